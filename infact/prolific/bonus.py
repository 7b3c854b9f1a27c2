"""Bonuses, paid exactly once.

Prolific's pay call (`POST /api/v1/bulk-bonus-payments/{id}/pay/`) is not idempotent: sent twice, it
pays twice. So every step is stored before the call that could make it true, under one bonus
`name` (by default a hash of the bonus lines, so the same CSV is the same bonus):

  intent-N          before the N-th create call          (a create is free: nothing is paid)
  created-N         the bulk bonus id and its cost
  pay_sent/ID/K     BEFORE the K-th pay call for bulk bonus ID
  paid/ID           after Prolific accepted the pay call
  unpaid/ID/K       pay attempt K surely did not reach Prolific (refused, or never sent; or the researcher checked)
  confirmed_paid/ID the researcher checked on Prolific that an unconfirmed pay call did pay

A run killed at any point and run again therefore never sends a second pay call for a bonus whose
pay call may have been received: it stops with `PayUncertain`, naming the bonus and what to check.
A run killed during a create call cannot know whether Prolific created the bonus (the API lists no
bulk bonuses); the rerun creates a new one and says that the earlier one, if it exists, is unpaid
and costs nothing.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

from infact.errors import InfactError, Problem
from infact.prolific.client import ProlificError, Unavailable, expect
from infact.prolific.session import Session
from infact.stores import prolific_records as rec

KIND = "prolific_bonus"


class PayUncertain(InfactError):
    """A pay call was sent (or about to be) and its answer was lost: INFACT will not send it again by itself."""


@dataclass
class BonusState:
    name: str
    intents: int = 0
    created: dict | None = None  # the latest created bulk bonus (id, amount, fees, total_amount)
    attempts: int = 0  # pay calls started for `created`
    unpaid: set[int] = field(default_factory=set)  # attempts known not to have reached Prolific
    paid: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def bonus_id(self) -> str | None:
        return self.created["bonus_id"] if self.created else None

    @property
    def uncertain(self) -> bool:
        return self.attempts > 0 and not self.paid and self.attempts not in self.unpaid


def read_csv(path: Path) -> list[tuple[str, float]]:
    """`participant_id,amount` lines (Prolific's bulk bonus format; a header line is allowed)."""
    rows = []
    text = path.read_text(encoding="utf-8-sig")
    for n, line in enumerate(csv.reader(io.StringIO(text)), 1):
        if not line or not "".join(line).strip():
            continue
        if len(line) != 2:
            raise InfactError(Problem(str(path), "each line must be `participant_id,amount`", line=n))
        pid, amount = line[0].strip(), line[1].strip()
        try:
            value = float(amount)
        except ValueError:
            if n == 1:
                continue  # a header
            raise InfactError(Problem(str(path), f"amount {amount!r} is not a number, e.g. 0.50", line=n)) from None
        if not pid or value <= 0:
            raise InfactError(Problem(str(path), "needs a participant id and an amount above 0", line=n))
        rows.append((pid, round(value, 2)))
    if not rows:
        raise InfactError(Problem(str(path), "no bonus lines (participant_id,amount)"))
    return rows


def rule_rows(session: Session) -> list[tuple[str, float]]:
    """`[prolific] bonus_per_completed` for every completed participant with a Prolific ID."""
    per = session.study.config.prolific.bonus_per_completed
    if per is None:
        raise InfactError(Problem("study.toml", "give --csv FILE or set [prolific] bonus_per_completed"))
    done = {
        r["participant"]
        for r in session.storage.records(study=session.study.id, kind="complete")
        if not r.get("preview")
    }
    rows = []
    for r in session.storage.records(study=session.study.id, kind="arrival"):
        if r["participant"] in done and r.get("platform_id") and not r.get("preview"):
            rows.append((r["platform_id"], round(per, 2)))
    return sorted(set(rows))


def csv_text(rows: list[tuple[str, float]]) -> str:
    return "".join(f"{pid},{amount:.2f}\n" for pid, amount in rows)


def default_name(rows: list[tuple[str, float]]) -> str:
    return "b" + hashlib.sha256(csv_text(rows).encode()).hexdigest()[:16]


def state(session: Session, name: str) -> BonusState:
    done = rec.stages(session.records(), KIND, f"{name}/")
    st = BonusState(name)
    st.intents = sum(1 for s in done if s.startswith("intent-"))
    created = sorted(
        (r for r in rec.of_kind(session.records(), KIND) if r.get("stage") == "created"),
        key=lambda r: r.get("attempt", 0),
    )
    created = [r for r in created if r.get("name") == name]
    if created:
        st.created = dict(created[-1])
        bid = st.bonus_id
        st.attempts = sum(1 for s in done if s.startswith(f"pay_sent/{bid}/"))
        st.unpaid = {int(s.rsplit("/", 1)[1]) for s in done if s.startswith(f"unpaid/{bid}/")}
        st.paid = f"paid/{bid}" in done or f"confirmed_paid/{bid}" in done
    if st.intents > len(created):
        st.notes.append(
            "an earlier run stopped during its create call, so Prolific may hold a bulk bonus INFACT has no id "
            "for; it is unpaid (a bulk bonus is paid only by its pay call) and costs nothing"
        )
    return st


def _put(session: Session, name: str, key_end: str, **fields) -> bool:
    return session.put(KIND, f"{name}/{key_end}", name=name, **fields)


def ensure_created(session: Session, rows: list[tuple[str, float]], name: str, prolific_id: str) -> BonusState:
    """The bulk bonus for `name`, created now unless a run before created it."""
    st = state(session, name)
    if st.created is not None:
        return st
    n = st.intents + 1
    text = csv_text(rows)
    _put(session, name, f"intent-{n}", stage="intent", attempt=n, lines=len(rows))
    body = {"study_id": prolific_id, "csv_bonuses": text}
    answer = expect(session.client.post("/api/v1/submissions/bonus-payments/", body), ("id",), "create bonus")
    costs = {k: answer.get(k) for k in ("amount", "fees", "total_amount")}
    _put(session, name, f"created-{n}", stage="created", attempt=n, bonus_id=answer["id"], **costs)
    return state(session, name)


def pay(session: Session, st: BonusState) -> BonusState:
    """Send the pay call once; raises PayUncertain when an earlier one may have been received."""
    bid = st.bonus_id
    if st.paid:
        return st
    if st.uncertain:
        raise PayUncertain(uncertain_problem(st))
    k = st.attempts + 1
    if not _put(session, st.name, f"pay_sent/{bid}/{k}", stage="pay_sent", bonus_id=bid, attempt=k):
        raise PayUncertain(uncertain_problem(state(session, st.name)))  # another process got here first
    try:
        session.client.post(f"/api/v1/bulk-bonus-payments/{bid}/pay/", None, safe=False)
    except Unavailable as exc:
        if not exc.maybe_done:  # refused (429) or never connected: surely not paid
            _put(session, st.name, f"unpaid/{bid}/{k}", stage="unpaid", bonus_id=bid, attempt=k)
        raise
    except ProlificError as exc:  # 401/403/404/400: Prolific refused it, so it did not pay
        if exc.status is not None and 400 <= exc.status < 500:
            _put(session, st.name, f"unpaid/{bid}/{k}", stage="unpaid", bonus_id=bid, attempt=k)
        raise
    _put(session, st.name, f"paid/{bid}", stage="paid", bonus_id=bid)
    return state(session, st.name)


def confirm(session: Session, name: str, bonus_id: str, *, paid: bool) -> BonusState:
    """The researcher's word after checking Prolific: the unconfirmed pay call did (not) pay."""
    st = state(session, name)
    if st.bonus_id != bonus_id or not st.uncertain:
        raise InfactError(
            Problem("--confirm-paid/--confirm-unpaid", f"bulk bonus {bonus_id} of {name!r} has no unconfirmed pay call")
        )
    if paid:
        _put(session, name, f"confirmed_paid/{bonus_id}", stage="confirmed_paid", bonus_id=bonus_id)
    else:
        k = st.attempts
        _put(session, name, f"unpaid/{bonus_id}/{k}", stage="unpaid", bonus_id=bonus_id, attempt=k, by="researcher")
    return state(session, name)


def uncertain_problem(st: BonusState) -> Problem:
    return Problem(
        "bonus",
        f"bulk bonus {st.bonus_id} ({st.name}): a pay call was sent by a run that stopped before Prolific's answer "
        "was stored, so it may have paid. The pay call is not idempotent: INFACT will not send it again on its "
        "own. Check the participants' bonuses on Prolific, then run `infact prolific bonus … --name "
        f"{st.name} --confirm-paid {st.bonus_id}` (it paid) or `--confirm-unpaid {st.bonus_id} --apply` (it did not)",
        key=st.name,
    )


def cost_line(st: BonusState) -> str:
    c = st.created or {}

    def money(v) -> str:
        return "?" if v is None else f"{v / 100:.2f}"

    return (
        f"bulk bonus {st.bonus_id}: bonuses {money(c.get('amount'))} + fees {money(c.get('fees'))} = "
        f"total {money(c.get('total_amount'))} (workspace currency)"
    )
