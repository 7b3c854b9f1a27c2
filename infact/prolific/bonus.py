"""Bonuses: owed per participant and reason, paid once (the ledger: infact.prolific.ledger).

Prolific's pay call (`POST /api/v1/bulk-bonus-payments/{id}/pay/`) is not idempotent: sent twice, it pays
twice. So INFACT pays what the ledger says is owed and not yet paid, and nothing else:

1. `plan`: every wanted line (a CSV, the `bonus_per_completed` rule, the fair-pay top-up) is checked
   against the ledger (paid, in flight, unconfirmed for this reason: skipped, saying why), against
   Prolific's own list (each submission's `bonus_payments`, the only per-participant list the API has:
   more there than the ledger knows holds the line back) and against `[prolific] max_bonus`.
2. `apply`: unfinished batches of earlier runs are finished first; then, under the store's lock, the
   owed lines are claimed (one record per participant and reason, stored once) and the batch sealed;
   then the bulk bonus is created and paid, each step stored before the call that could make it true.

A run killed anywhere leaves claims that hold their lines: the rerun finishes the batch and never sends
a second pay call for one whose first may have been received (`PayUncertain`), unless Prolific's list
shows it paid (then it is recorded paid) or the researcher checked (`confirm`).
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field

from infact.errors import InfactError, Problem
from infact.prolific import ledger
from infact.prolific.bonus_input import Line, money, to_cents
from infact.prolific.client import ProlificError, Unavailable, expect
from infact.prolific.session import Session
from infact.prolific.sync import fetch

KIND = ledger.BATCH


class PayUncertain(InfactError):
    """A pay call was sent (or about to be) and its answer was lost: INFACT will not send it again by itself."""


@dataclass
class Prolific:
    """What Prolific says now: the study's submissions by participant, and the bonuses paid on them (cents)."""

    submissions: dict[str, list[dict]] = field(default_factory=dict)
    bonuses: dict[str, list[int]] = field(default_factory=dict)


@dataclass
class Plan:
    reason: str
    source: str  # the CSV's path, or what the lines came from
    to_pay: list[Line] = field(default_factory=list)
    skipped: list[tuple[Line, str]] = field(default_factory=list)
    unfinished: list[ledger.Batch] = field(default_factory=list)
    verified: list[ledger.Batch] = field(default_factory=list)  # unconfirmed pay calls Prolific's list shows paid

    @property
    def cents(self) -> int:
        return sum(line.cents for line in self.to_pay)


def observe(session: Session, prolific_id: str, pids: set[str]) -> Prolific:
    """The study's submissions, and the bonus payments Prolific lists on those of `pids`."""
    out = Prolific()
    for sub in fetch(session, prolific_id):
        out.submissions.setdefault(str(sub["participant_id"]).lower(), []).append(sub)
    for pid in sorted(pids):
        for sub in out.submissions.get(pid, []):
            path = f"/api/v1/submissions/{sub['id']}/"
            detail = expect(session.client.get(path), ("id",), f"GET {path}")
            paid = detail.get("bonus_payments") or []
            out.bonuses.setdefault(pid, []).extend(round(float(c)) for c in paid if c is not None)
    return out


def plan(session: Session, lines: list[Line], reason: str, prolific_id: str, *, source: str, allow_extra=()) -> Plan:
    """What is owed and not yet paid (raises InfactError for lines over the cap or a bad reason)."""
    if not ledger.REASON.match(reason):
        raise InfactError(
            Problem("--reason", f"{reason!r}: use letters, digits, '.', '_' or '-' (at most 40), e.g. top-up-2")
        )
    led = ledger.read(session.records())
    unfinished = led.unfinished()
    pids = {line.participant_id for line in lines} | {p for b in unfinished for p in b.lines}
    seen = observe(session, prolific_id, pids)
    out = Plan(reason, source, unfinished=unfinished)
    for b in unfinished:
        if b.uncertain and _shows_paid(b, led, seen):
            out.verified.append(_mark_paid(session, b, "Prolific's bonus_payments list the payment"))
    if out.verified:
        led = ledger.read(session.records())
        out.unfinished = led.unfinished()
    cap, extra = to_cents(session.study.config.prolific.max_bonus), {p.lower() for p in allow_extra}
    refused = []
    for line in lines:
        why = _skip(line, reason, led, seen, prolific_id, extra)
        if why:
            out.skipped.append((line, why))
        elif led.held_cents(line.participant_id) + line.cents > cap:
            held = led.held_cents(line.participant_id)
            refused.append(
                Problem(
                    source,
                    f"{line.participant_id}: {money(line.cents)} would bring their bonuses in this study to "
                    f"{money(held + line.cents)}, over [prolific] max_bonus = {money(cap)}: check the amount, or "
                    "raise max_bonus in study.toml if it is meant",
                    line=line.line,
                )
            )
        else:
            out.to_pay.append(line)
    if refused:
        raise InfactError(refused)
    return out


def _skip(line: Line, reason: str, led: ledger.Ledger, seen: Prolific, prolific_id: str, extra: set) -> str | None:
    pid = line.participant_id
    held = led.entry(pid, reason)
    if held is not None:
        state = {
            "paid": "already paid",
            "uncertain": "in flight (a pay call got no answer; see below)",
            "open": "in flight, not paid yet (`--apply` finishes it)",
        }[held.status]
        more = "; to pay them more on purpose, give a new --reason" if held.status == "paid" else ""
        return f"{state}: {money(held.cents)} for reason {reason!r} (batch {held.batch}){more}"
    if pid not in seen.submissions:
        return f"no submission in Prolific study {prolific_id}: Prolific pays bonuses only to its participants"
    listed = sum(seen.bonuses.get(pid, []))
    known = sum(e.cents for e in led.entries(pid) if e.status in ("paid", "uncertain"))
    if listed > known and pid not in extra:
        return (
            f"Prolific lists {money(listed)} in bonuses for them, INFACT's ledger {money(known)}: paid outside "
            f"INFACT? Check on Prolific; if that was for something else, rerun with --allow-extra {pid}"
        )
    return None


def _shows_paid(b: ledger.Batch, led: ledger.Ledger, seen: Prolific) -> bool:
    """Every line of the batch is among Prolific's payments beyond those of the ledger's other paid batches."""
    for pid, cents in b.lines.items():
        others = Counter(e.cents for e in led.entries(pid) if e.status == "paid" and e.batch != b.name)
        if (Counter(seen.bonuses.get(pid, [])) - others)[cents] < 1:
            return False
    return bool(b.lines)


def _put(session: Session, batch: str, stage_key: str, **fields) -> bool:
    return session.put(KIND, f"{batch}/{stage_key}", batch=batch, **fields)


def _mark_paid(session: Session, b: ledger.Batch, how: str) -> ledger.Batch:
    _put(session, b.name, "paid", stage="paid", bonus_id=b.sent.get(b.attempts), how=how)
    return current(session, b.name)


def current(session: Session, name: str) -> ledger.Batch:
    return ledger.read(session.records()).batches.get(name) or ledger.Batch(name)


def open_batch(session: Session, lines: list[Line], reason: str, label: str | None = None) -> ledger.Batch | None:
    """Claim the lines still owed, under the store's lock, and seal the batch (None: nothing left to claim).
    `label` (`--name`) only names the batch: who is paid is decided by the claims."""
    name = f"{label + '-' if label else ''}{session.clock():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}"
    study, now = session.study.id, session.clock()
    with session.storage.lock():
        led = ledger.read(session.records())
        for dead in (b for b in led.batches.values() if not b.sealed and not b.void):
            _put(session, dead.name, "void", stage="void", why="stopped before it was sealed; nothing was sent")
        led = ledger.read(session.records())
        claimed = {}
        for line in lines:
            pid = line.participant_id
            if led.entry(pid, reason) is not None:
                continue  # another run claimed it since the plan
            gen = led.next_gen(pid, reason)
            rec = ledger.claim_record(study, now, pid=pid, reason=reason, gen=gen, batch=name, cents=line.cents)
            if session.storage.append(rec):
                claimed[pid] = line.cents
        if not claimed:
            return None
        _put(session, name, "lines", stage="lines", reason=reason, lines=claimed, cents=sum(claimed.values()))
    return current(session, name)


def csv_text(lines: dict[str, int]) -> str:
    """Prolific's `csv_bonuses`: checked IDs and whole cents only, so nothing can split into another line."""
    return "".join(f"{pid},{money(cents)}\n" for pid, cents in sorted(lines.items()))


def ensure_created(session: Session, b: ledger.Batch, prolific_id: str) -> ledger.Batch:
    """The bulk bonus of a sealed batch, created now unless a run before created it."""
    b = current(session, b.name)
    if b.created is not None or b.void or b.paid is not None:
        return b
    n = b.intents + 1
    if not _put(session, b.name, f"intent-{n}", stage="intent", attempt=n):
        raise InfactError(
            Problem("bonus", f"another run is creating the bulk bonus of batch {b.name} right now; run again later")
        )
    body = {"study_id": prolific_id, "csv_bonuses": csv_text(b.lines)}
    try:
        answer = expect(session.client.post("/api/v1/submissions/bonus-payments/", body), ("id",), "create bonus")
    except ProlificError as exc:
        if exc.status is not None and 400 <= exc.status < 500 and exc.status != 429:
            _put(session, b.name, "void", stage="void", why=f"Prolific refused to create it ({exc.status})")
        raise
    costs = {k: answer.get(k) for k in ("amount", "fees", "total_amount")}
    _put(session, b.name, f"created-{n}", stage="created", attempt=n, bonus_id=answer["id"], **costs)
    return current(session, b.name)


def pay(session: Session, b: ledger.Batch) -> ledger.Batch:
    """Send the batch's pay call once; raises PayUncertain when an earlier one may have been received."""
    b = current(session, b.name)
    if b.paid is not None:
        return b
    if b.uncertain or b.void or b.bonus_id is None:
        raise PayUncertain(uncertain_problem(b))
    k, bid = b.attempts + 1, b.bonus_id
    if not _put(session, b.name, f"pay_sent-{k}", stage="pay_sent", bonus_id=bid, attempt=k):
        now = current(session, b.name)  # another run sent attempt k first
        if now.paid is not None:
            return now
        raise PayUncertain(
            Problem(
                "bonus",
                f"another run is paying batch {b.name} right now (or stopped while paying it): nothing sent by this "
                "run; run again in a minute to see how it ended",
                key=b.name,
            )
        )
    try:
        session.client.post(f"/api/v1/bulk-bonus-payments/{bid}/pay/", None, safe=False)
    except Unavailable as exc:
        if exc.maybe_done:  # a 5xx or no answer in time: it may have paid
            raise PayUncertain([*exc.problems, uncertain_problem(current(session, b.name))]) from exc
        _put(session, b.name, f"unpaid-{k}", stage="unpaid", bonus_id=bid, attempt=k)  # refused (429), never sent
        raise
    except ProlificError as exc:  # 401/403/404/400: Prolific refused it, so it did not pay
        if exc.status is not None and 400 <= exc.status < 500:
            _put(session, b.name, f"unpaid-{k}", stage="unpaid", bonus_id=bid, attempt=k)
        raise
    return _mark_paid(session, current(session, b.name), "Prolific accepted the pay call")


def settle(session: Session, b: ledger.Batch, prolific_id: str) -> ledger.Batch:
    """Create (if needed) and pay one sealed batch."""
    return pay(session, ensure_created(session, b, prolific_id))


def apply(session: Session, the_plan: Plan, prolific_id: str, label: str | None = None) -> list[ledger.Batch]:
    """Finish earlier runs' batches, then claim, create and pay the plan's lines; raises PayUncertain at the end
    (after paying everything else) when a batch waits for the researcher's word."""
    done, waiting = [], []
    for b in the_plan.unfinished:
        if b.uncertain:
            waiting.append(b)
            continue
        done.append(settle(session, b, prolific_id))
    if the_plan.to_pay:
        b = open_batch(session, the_plan.to_pay, the_plan.reason, label)
        if b is not None:
            done.append(settle(session, b, prolific_id))
    if waiting:
        raise PayUncertain([uncertain_problem(b) for b in waiting])
    return done


def confirm(session: Session, bonus_id: str, *, paid: bool) -> ledger.Batch:
    """The researcher's word after checking Prolific: the unconfirmed pay call of `bonus_id` did (not) pay."""
    for b in ledger.read(session.records()).batches.values():
        if b.uncertain and b.sent.get(b.attempts) == bonus_id:
            if paid:
                return _mark_paid(session, b, "the researcher checked on Prolific")
            k = b.attempts
            _put(session, b.name, f"unpaid-{k}", stage="unpaid", bonus_id=bonus_id, attempt=k, by="researcher")
            return current(session, b.name)
    raise InfactError(
        Problem("--confirm-paid/--confirm-unpaid", f"bulk bonus {bonus_id} has no unconfirmed pay call in the ledger")
    )


def uncertain_problem(b: ledger.Batch) -> Problem:
    bid = b.sent.get(b.attempts) or b.bonus_id
    return Problem(
        "bonus",
        f"bulk bonus {bid} (batch {b.name}, {len(b.lines)} participant(s), {money(b.cents)}): its pay call was sent "
        "and its outcome is unknown (no answer in time, a 5xx, or a run that stopped before storing the answer), "
        "and Prolific's bonus list does not show it yet (payments take minutes), so it may have paid. The pay call "
        "is not idempotent: INFACT will not send it again on its own. Run again in a few minutes, or check the "
        f"participants' bonuses on Prolific, then run `infact prolific bonus --confirm-paid {bid}` (it paid) or "
        f"`--confirm-unpaid {bid} --apply` (it did not)",
        key=b.name,
    )


def cost_line(created: dict | None) -> str:
    """Prolific's price of a bulk bonus (its create answer, in cents)."""
    c = created or {}

    def amount(v) -> str:
        return "?" if v is None else f"{float(v) / 100:.2f}"

    return (
        f"bulk bonus {c.get('bonus_id') or c.get('id')}: bonuses {amount(c.get('amount'))} + fees "
        f"{amount(c.get('fees'))} = total {amount(c.get('total_amount'))} (workspace currency)"
    )


def quote(session: Session, lines: list[Line], prolific_id: str) -> dict:
    """Prolific's price of these lines: a bulk bonus created and never paid (creating one is free)."""
    body = {"study_id": prolific_id, "csv_bonuses": csv_text({line.participant_id: line.cents for line in lines})}
    return expect(session.client.post("/api/v1/submissions/bonus-payments/", body), ("id",), "create bonus")
