"""Bonus lines, strictly: Prolific's own `participant_id,amount` format, checked before anything is sent.

Prolific pays what its CSV parser reads, so a line INFACT reads one way and Prolific another pays the
wrong person or the wrong amount. Every line is therefore held to the narrowest reading:

- exactly two cells, an ID that looks like a Prolific ID (24 hexadecimal characters; case-insensitive,
  stored in lower case) and nothing in a cell that a CSV writer would quote (comma, quote, line break);
- an amount in plain decimals, finite, above 0, with at most two decimals (Prolific pays whole
  pence/cents: 0.004 is refused, never sent as 0.00; 0.125 is refused, never rounded);
- each participant once (IDs compared case-insensitively): two lines for one person are refused, not summed.

Amounts are kept as whole cents (`int`) from here on, so no float ever rounds a payment. Every refused
line gets `file:line: why, and the fix`; a file that is not UTF-8 gets one error.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from pathlib import Path

from infact.errors import InfactError, Problem

PROLIFIC_ID = re.compile(r"^[0-9a-fA-F]{24}$")
AMOUNT = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
_SPLITTERS = (",", '"', "\n", "\r")


@dataclass(frozen=True)
class Line:
    participant_id: str  # lower case
    cents: int
    line: int | None = None  # its line in the CSV, if it came from one


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def to_cents(value: float | str | Decimal) -> int:
    """An amount of at most two decimals as whole cents (ValueError otherwise)."""
    d = Decimal(str(value))
    if not d.is_finite() or d <= 0 or d != d.quantize(Decimal("0.01")):
        raise ValueError(f"{value!r} is not an amount above 0 with at most two decimals")
    return int(d * 100)


def cents_up(value: Decimal) -> int:
    """A computed amount (a top-up) rounded up to the next whole cent: never below what is owed."""
    return int((value * 100).to_integral_value(rounding=ROUND_CEILING))


def read_csv(path: Path) -> list[Line]:
    """The checked lines of a bonus CSV (a header line first is allowed); InfactError listing every bad line."""
    where = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InfactError(Problem(where, f"cannot read the bonus file ({exc.strerror}); check the path")) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InfactError(
            Problem(
                where,
                f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at position {exc.start}): save it as UTF-8 "
                "(in Excel: CSV UTF-8) and run again",
            )
        ) from None
    problems: list[Problem] = []
    lines: list[Line] = []
    first_line: dict[str, int] = {}
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows, start = [], 1
    try:
        for row in reader:
            rows.append((start, row))  # the line the record starts on (a quoted line break spans lines)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InfactError(
            Problem(where, f"not a plain CSV ({exc}): one `participant_id,amount` per line", line=start)
        ) from None
    for n, row in rows:
        if not row or not "".join(row).strip():
            continue
        checked = _check_row(where, n, row, header_allowed=not first_line and not problems)
        if checked is None:
            continue
        pid = row[0].strip().lower()
        if PROLIFIC_ID.match(pid) and len(row) == 2:
            if pid in first_line:
                checked = Problem(
                    where,
                    f"participant {pid} is already on line {first_line[pid]} (IDs are compared case-insensitively): "
                    "keep one line per participant with the total to pay",
                    line=n,
                )
            first_line.setdefault(pid, n)
        if isinstance(checked, Problem):
            problems.append(checked)
        else:
            lines.append(checked)
    if problems:
        raise InfactError(problems)
    if not lines:
        raise InfactError(
            Problem(
                where, "no bonus lines: write one `participant_id,amount` per line, e.g. 60ffe5c8371090c7041d43f8,0.50"
            )
        )
    return lines


def _check_row(where: str, n: int, row: list[str], *, header_allowed: bool) -> Line | Problem | None:
    """A Line, a Problem naming the fix, or None for a header line."""
    if len(row) != 2:
        return Problem(
            where,
            f"{len(row)} cells: each line must be `participant_id,amount`, e.g. 60ffe5c8371090c7041d43f8,0.50",
            line=n,
        )
    pid, amount = row[0].strip(), row[1].strip()
    if any(ch in cell for cell in row for ch in _SPLITTERS):
        return Problem(
            where,
            "a cell holds a comma, quote or line break, which Prolific's CSV reading would split into other lines "
            "(another person or amount): write the bare ID and amount, without quotes",
            line=n,
        )
    if header_allowed and not PROLIFIC_ID.match(pid) and not AMOUNT.match(amount):
        return None  # a header such as participant_id,amount
    if not PROLIFIC_ID.match(pid):
        return Problem(
            where,
            f"{pid!r} is not a Prolific participant ID (24 hexadecimal characters, e.g. 60ffe5c8371090c7041d43f8): "
            "copy it from Prolific's submissions list",
            line=n,
        )
    return _amount_line(where, n, pid.lower(), amount)


def _amount_line(where: str, n: int, pid: str, amount: str) -> Line | Problem:
    if not AMOUNT.match(amount):
        try:
            finite = Decimal(amount).is_finite()
        except InvalidOperation:
            finite = True
        why = "is not a finite number" if not finite else "is not a plain decimal amount"
        return Problem(where, f"amount {amount!r} {why}: write it like 0.50 (workspace currency)", line=n)
    d = Decimal(amount)
    if d != d.quantize(Decimal("0.01")):
        return Problem(
            where,
            f"amount {amount!r} has more than two decimals: Prolific pays whole pence/cents; "
            "write the amount you mean with two decimals",
            line=n,
        )
    if d <= 0:
        return Problem(where, f"amount {amount!r} is not above 0: leave the line out if nothing is owed", line=n)
    return Line(pid, int(d * 100), n)
