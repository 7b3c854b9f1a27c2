"""Fair pay: the study's effective hourly reward against Prolific's minimum and recommended rates, and the
top-up that brings approved participants to a target rate; plus the `bonus_per_completed` rule's lines.

Prolific judges pay by the median completion time of the study's submissions (its "average reward per
hour"), not by the estimate: a study whose median time grows past the estimate underpays, and Prolific
asks the researcher to pay each approved participant the difference (an adjustment, as a bonus).
Rates, from Prolific's "Prolific's payment principles" (researcher-help.prolific.com; minimum
£6.00 / $8.00 an hour, recommended at least £9.00 / $12.00), are `[prolific]` settings so a change on
Prolific's side needs no new INFACT. Times are Prolific's own (started_at → completed_at of synced
submissions) when a sync has seen completed ones, else INFACT's (arrival → completion).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from infact.prolific.bonus_input import PROLIFIC_ID, Line, cents_up, money, to_cents
from infact.storage import Storage
from infact.stores import prolific_records as rec
from infact.study.platform_config import SESSION_PARAM, ProlificConfig

# Prolific's payment principles (docs/prolific.md): cents of the workspace currency per hour.
MINIMUM = {"GBP": 600, "USD": 800}
RECOMMENDED = {"GBP": 900, "USD": 1200}
COMPLETED = ("AWAITING REVIEW", "APPROVED")


@dataclass(frozen=True)
class Rates:
    minimum: int  # cents per hour
    recommended: int
    target: int


def rates(cfg: ProlificConfig) -> Rates:
    low = to_cents(cfg.min_hourly_reward) if cfg.min_hourly_reward else MINIMUM[cfg.currency]
    good = to_cents(cfg.recommended_hourly_reward) if cfg.recommended_hourly_reward else RECOMMENDED[cfg.currency]
    target = to_cents(cfg.target_hourly_reward) if cfg.target_hourly_reward else low
    return Rates(low, good, target)


def _minutes(start, end) -> float | None:
    try:
        a, b = datetime.fromisoformat(str(start)), datetime.fromisoformat(str(end))
    except (TypeError, ValueError):
        return None
    seconds = (b - a).total_seconds()
    return seconds / 60 if seconds > 0 else None


def prolific_minutes(submissions: Iterable[Mapping]) -> list[float]:
    """Completion times (minutes) of Prolific's completed submissions."""
    times = (_minutes(s.get("started_at"), s.get("completed_at")) for s in submissions if s.get("status") in COMPLETED)
    return [t for t in times if t is not None]


def infact_minutes(storage: Storage, study: str) -> list[float]:
    """Arrival → completion of INFACT's completed participants (previews left out)."""
    arrived = {
        r["participant"]: r.get("at") for r in storage.records(study=study, kind="arrival") if not r.get("preview")
    }
    times = (
        _minutes(arrived.get(r["participant"]), r.get("at"))
        for r in storage.records(study=study, kind="complete")
        if not r.get("preview")
    )
    return [t for t in times if t is not None]


@dataclass(frozen=True)
class FairPay:
    median_minutes: float | None
    n: int
    source: str  # "Prolific" or "INFACT"
    hourly: int | None  # cents per hour at the median time
    rates: Rates
    currency: str

    @property
    def underpays(self) -> bool:
        return self.hourly is not None and self.hourly < self.rates.minimum

    @property
    def below_recommended(self) -> bool:
        return self.hourly is not None and self.hourly < self.rates.recommended

    def line(self) -> str:
        if self.hourly is None:
            return "no completed participant yet: the effective hourly reward is not known"
        return (
            f"effective reward {money(self.hourly)} {self.currency}/hour at the median time "
            f"{self.median_minutes:.1f} min ({self.source}, n = {self.n}); Prolific's minimum "
            f"{money(self.rates.minimum)}, recommended {money(self.rates.recommended)}"
        )

    def warning(self) -> str | None:
        if self.underpays:
            return (
                f"This study underpays: {self.line()}. Prolific asks you to pay the difference to approved "
                "participants: `infact prolific bonus --top-up --apply` (docs/prolific.md), and to raise the reward "
                "or the estimate for the places left."
            )
        if self.below_recommended:
            return f"Below Prolific's recommended rate: {self.line()}."
        return None


def check(cfg: ProlificConfig, prolific: list[float], infact_median: float | None, infact_n: int) -> FairPay:
    """The effective hourly reward at the median time: Prolific's times when there are any, else INFACT's."""
    if prolific:
        median, n, source = statistics.median(prolific), len(prolific), "Prolific"
    else:
        median, n, source = infact_median, infact_n, "INFACT"
    hourly = round(cfg.reward_cents * 60 / median) if median else None
    return FairPay(median, n, source, hourly, rates(cfg), cfg.currency)


def study_check(cfg: ProlificConfig, records: list[dict], infact_median: float | None, infact_n: int) -> FairPay:
    """The dashboard's figure: Prolific's synced times when a sync has seen completed submissions."""
    return check(cfg, prolific_minutes(rec.submissions(records).values()), infact_median, infact_n)


def owed_per_person(fair: FairPay, reward_cents: int) -> int:
    """What each approved participant is owed on top of the reward to reach the target rate at the median time."""
    if fair.median_minutes is None:
        return 0
    due = cents_up(Decimal(fair.rates.target) / 100 * Decimal(str(fair.median_minutes)) / 60)
    return max(0, due - reward_cents)


def top_up_lines(owed: int, approved: Iterable[str], already: Mapping[str, int]) -> list[Line]:
    """One line per approved participant: what is owed less what earlier top-ups (any top-up reason) paid."""
    out = []
    for pid in sorted({p.lower() for p in approved}):
        rest = owed - already.get(pid, 0)
        if rest > 0:
            out.append(Line(pid, rest))
    return out


def rule_lines(
    per: float, storage: Storage, study: str, submissions: Mapping[str, set[str]] | None = None
) -> tuple[list[Line], list[str]]:
    """`bonus_per_completed` for every completed participant with a Prolific ID; notes for IDs left out.

    A completed session that arrived with a SESSION_ID earns its Prolific ID the bonus only when that SESSION_ID is
    one of the ID's Prolific submissions (`submissions`: lower-case Prolific ID -> lower-case submission ids): someone
    who opened the study with a real participant's PROLIFIC_PID and another SESSION_ID (issue 36, the real
    participant wins) never earns that ID a bonus, whoever came first. A session without a SESSION_ID (a link made
    before Prolific sent one) counts only when it is the ID's one session."""
    cents = to_cents(per)
    done = {r["participant"] for r in storage.records(study=study, kind="complete") if not r.get("preview")}
    arrivals = [r for r in storage.records(study=study, kind="arrival") if not r.get("preview")]
    sessions_per_pid = Counter(str(r.get("platform_id") or "").strip().lower() for r in arrivals)
    lines, notes = {}, []
    for r in arrivals:
        pid = str(r.get("platform_id") or "").strip()
        if r["participant"] not in done or not pid:
            continue
        if not PROLIFIC_ID.match(pid):
            notes.append(f"{pid!r} (participant {r['participant']}) is not a Prolific ID: left out")
            continue
        if not _own_session(r, pid.lower(), submissions, sessions_per_pid[pid.lower()]):
            notes.append(
                f"{pid.lower()}: participant {r['participant']} finished, but its SESSION_ID is none of this "
                f"Prolific ID's submissions ({sessions_per_pid[pid.lower()]} session(s) came with the ID): left out "
                "(another session's completion never earns the ID a bonus)"
            )
            continue
        lines[pid.lower()] = Line(pid.lower(), cents)
    return [lines[p] for p in sorted(lines)], notes


def _own_session(arrival: dict, pid: str, submissions: Mapping[str, set[str]] | None, sessions: int) -> bool:
    sid = str((arrival.get("platform_params") or {}).get(SESSION_PARAM["prolific"]) or "").lower()
    if not sid or submissions is None:
        return sessions == 1
    return sid in submissions.get(pid, set())


def top_up(session, prolific_id: str) -> tuple[list[Line], FairPay, int]:
    """The top-up lines (approved submissions on Prolific now), the fair-pay figure and the amount per person."""
    from infact.prolific import ledger
    from infact.prolific.sync import fetch

    cfg = session.study.config.prolific
    subs = fetch(session, prolific_id)
    mine = infact_minutes(session.storage, session.study.id)
    fair = check(cfg, prolific_minutes(subs), statistics.median(mine) if mine else None, len(mine))
    owed = owed_per_person(fair, cfg.reward_cents)
    led = ledger.read(session.records())
    approved = [str(s["participant_id"]) for s in subs if s.get("status") == "APPROVED"]
    already = {pid: sum(e.cents for e in led.entries(pid.lower()) if e.reason.startswith("top-up")) for pid in approved}
    return top_up_lines(owed, approved, {p.lower(): c for p, c in already.items()}), fair, owed
