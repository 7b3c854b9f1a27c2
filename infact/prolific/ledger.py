"""The bonus ledger: what each Prolific participant was paid, or has in flight, for each reason.

Everything is an append-only `_prolific` record whose key is its identity (stored once, whichever
process writes it first), so the ledger needs no lock to stay right, only to stay tidy:

  prolific_bonus_claim  <reason>/<pid>/<gen>   this participant's bonus for this reason belongs to batch B
  prolific_bonus        <batch>/lines          the batch sealed: its claimed lines (written in the same
                                               locked section as the claims, so a batch without it died)
  prolific_bonus        <batch>/intent-N       before the N-th create call
  prolific_bonus        <batch>/created-N      the bulk bonus id and Prolific's cost
  prolific_bonus        <batch>/pay_sent-K     BEFORE the K-th pay call (one K per batch, whatever the bonus id)
  prolific_bonus        <batch>/unpaid-K       attempt K surely did not pay (refused, never sent, or the
                                               researcher checked)
  prolific_bonus        <batch>/paid           Prolific accepted the pay call, or its own list shows the payment,
                                               or the researcher checked
  prolific_bonus        <batch>/void           the batch will never be paid (its create was refused, or it died
                                               before it was sealed): its claims are free again

A (participant, reason) is owed nothing while a live claim (the newest generation whose batch is not
void) holds it: paid, in flight, or waiting for the researcher's word. Attempt K+1 of a pay call is only
made once attempt K is known not to have paid, and `pay_sent-K` is stored once, so two processes can
never both send one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from infact.stores import prolific_records as rec

CLAIM = "prolific_bonus_claim"
BATCH = "prolific_bonus"
REASON = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass
class Batch:
    name: str
    reason: str = ""
    lines: dict[str, int] = field(default_factory=dict)  # participant id -> cents (from the claims)
    sealed: bool = False
    intents: int = 0
    created: dict | None = None  # the newest created record (bonus_id, amount, fees, total_amount)
    sent: dict[int, str] = field(default_factory=dict)  # pay attempt K -> the bulk bonus id it paid
    unpaid: set[int] = field(default_factory=set)
    paid: dict | None = None  # the `paid` record (how it was known)
    void: bool = False

    @property
    def bonus_id(self) -> str | None:
        return self.created["bonus_id"] if self.created else None

    @property
    def attempts(self) -> int:
        return max(self.sent, default=0)

    @property
    def uncertain(self) -> bool:
        """A pay call was sent (or about to be) and nobody knows whether it paid."""
        return self.attempts > 0 and self.paid is None and self.attempts not in self.unpaid

    @property
    def status(self) -> str:
        if self.void:
            return "void"
        if self.paid is not None:
            return "paid"
        return "uncertain" if self.uncertain else "open"

    @property
    def cents(self) -> int:
        return sum(self.lines.values())


@dataclass(frozen=True)
class Entry:
    participant_id: str
    reason: str
    cents: int
    batch: str
    status: str  # paid, uncertain, open


@dataclass
class Ledger:
    batches: dict[str, Batch] = field(default_factory=dict)
    claims: dict[tuple[str, str], list[tuple[int, str, int]]] = field(default_factory=dict)  # -> (gen, batch, cents)

    def entry(self, pid: str, reason: str) -> Entry | None:
        """The live claim on (pid, reason): its newest generation whose batch is sealed and not void. A claim of an
        unsealed batch is left out: under the store's lock it is a dead run's (`bonus.open_batch` voids it)."""
        for _gen, name, cents in sorted(self.claims.get((pid, reason), []), reverse=True):
            batch = self.batches.get(name)
            if batch is None or batch.void or not batch.sealed:
                continue
            return Entry(pid, reason, cents, name, batch.status)
        return None

    def next_gen(self, pid: str, reason: str) -> int:
        return 1 + max((g for g, _, _ in self.claims.get((pid, reason), [])), default=0)

    def entries(self, pid: str) -> list[Entry]:
        return [e for (p, r) in self.claims if p == pid and (e := self.entry(p, r)) is not None]

    def held_cents(self, pid: str) -> int:
        """Paid, in flight or unconfirmed: what INFACT has committed to this participant, all reasons."""
        return sum(e.cents for e in self.entries(pid))

    def unfinished(self) -> list[Batch]:
        return [b for b in self.batches.values() if b.sealed and b.status in ("open", "uncertain")]


def read(records: Iterable[Mapping]) -> Ledger:
    """The ledger from the study's `_prolific` records."""
    records = list(records)
    out = Ledger()
    for r in rec.of_kind(records, CLAIM):
        key = (str(r["participant_id"]), str(r["reason"]))
        out.claims.setdefault(key, []).append((int(r["gen"]), str(r["batch"]), int(r["cents"])))
        batch = out.batches.setdefault(str(r["batch"]), Batch(str(r["batch"]), str(r["reason"])))
        batch.lines[key[0]] = int(r["cents"])
    for r in sorted(rec.of_kind(records, BATCH), key=lambda r: int(r.get("attempt") or 0)):
        name = r.get("batch")
        if not name:  # a bonus of INFACT before the ledger (no per-participant lines): see docs/prolific.md
            continue
        _apply_stage(out.batches.setdefault(str(name), Batch(str(name), str(r.get("reason") or ""))), r)
    return out


def _apply_stage(batch: Batch, r: Mapping) -> None:
    stage, k = r.get("stage"), int(r.get("attempt") or 0)
    if stage == "lines":
        batch.sealed = True
    elif stage == "intent":
        batch.intents = max(batch.intents, k)
    elif stage == "created":
        batch.created = dict(r)
    elif stage == "pay_sent":
        batch.sent[k] = str(r.get("bonus_id"))
    elif stage == "unpaid":
        batch.unpaid.add(k)
    elif stage == "paid":
        batch.paid = dict(r)
    elif stage == "void":
        batch.void = True


def claim_record(study: str, now, *, pid: str, reason: str, gen: int, batch: str, cents: int) -> dict:
    return rec.record(
        study, CLAIM, f"{reason}/{pid}/{gen}", now, participant_id=pid, reason=reason, gen=gen, batch=batch, cents=cents
    )
