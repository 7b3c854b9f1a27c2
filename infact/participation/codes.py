"""Completion codes: drawn per participant, and checked against what workers submit.

A per-participant code (MTurk, self-hosted studies) proves that someone finished —
but only together with who submitted it: a code copied from a forum must not pay
a second worker. `verify_codes` therefore checks (worker ID, code) pairs whenever
the submissions name the worker (MTurk's batch results do, column `WorkerId`).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import random
import re
import unicodedata

import pandas as pd

# No 0/O, 1/I/L, U: a code read aloud or copied by hand survives.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
CODE_LENGTH = 10
VERIFY_COLUMNS = ["worker_id", "submitted", "matched", "participant", "status", "platform_id", "duplicate", "problem"]


def make_participant_code(rng_or_secret: str | bytes | random.Random, participant: str) -> str:
    """A hard-to-guess code like "ABCD-EFGH-JK" (~49 bits).

    With a secret (str/bytes) the code is an HMAC of the participant token, so
    it is the same on every rerun and can be recomputed; with a Random it is drawn.
    """
    if isinstance(rng_or_secret, random.Random):
        chars = [rng_or_secret.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)]
    else:
        secret = rng_or_secret.encode() if isinstance(rng_or_secret, str) else bytes(rng_or_secret)
        if not secret:
            raise ValueError("make_participant_code needs a non-empty secret")
        n = int.from_bytes(hmac.new(secret, participant.encode(), hashlib.sha256).digest(), "big")
        chars = []
        for _ in range(CODE_LENGTH):
            n, i = divmod(n, len(CODE_ALPHABET))
            chars.append(CODE_ALPHABET[i])
    s = "".join(chars)
    return f"{s[:4]}-{s[4:8]}-{s[8:]}"


# What a copy or a retyped code may hold around the letters: spaces (also no-break and zero-width
# ones), any dash (a code font draws "-" like a minus, so people type "−", "–" or "—") and "_".
_NOT_CODE = re.compile(r"[\s\u00ad\u200b-\u200d\u2060\ufeff\u2212_]")


def normalize_code(code: str) -> str:
    """Upper-case, without spaces and dashes of any kind: how workers actually paste codes."""
    text = unicodedata.normalize("NFKC", str(code))  # full-width letters and digits become plain ones
    text = "".join(c for c in text if unicodedata.category(c) != "Pd")  # every dash: - ‐ ‑ ‒ – — ﹣ －
    return _NOT_CODE.sub("", text).upper()


def read_submissions(text: str) -> list[tuple[str | None, str]]:
    """(worker ID or None, code) per submission.

    Accepts MTurk's batch results CSV (header with `WorkerId` and a column whose
    name contains `code`, e.g. `Answer.surveycode`), lines `WORKERID,CODE`, or
    one bare code per line (self-hosted studies have no worker IDs).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    header = [h.strip() for h in next(csv.reader([lines[0]]))]
    lowered = [h.lower() for h in header]
    if "workerid" in lowered and any("code" in h for h in lowered):
        wi = lowered.index("workerid")
        ci = next(i for i, h in enumerate(lowered) if "code" in h)
        rows = list(csv.reader(lines[1:]))
        return [((r[wi].strip() or None) if wi < len(r) else None, r[ci].strip() if ci < len(r) else "") for r in rows]
    out: list[tuple[str | None, str]] = []
    for line in lines:
        parts = [p.strip() for p in re.split(r"[,\t;]", line) if p.strip()]
        out.append((parts[0], parts[-1]) if len(parts) >= 2 else (None, parts[0]))
    return out


def _stored_completions(participants: pd.DataFrame) -> dict[str, dict]:
    stored: dict[str, dict] = {}
    if len(participants):
        done = participants[participants["status"].isin(["completed", "screened_out"])]
        if "preview" in done:
            done = done[~done["preview"].fillna(False).astype(bool)]
        for row in done.to_dict("records"):
            if isinstance(row.get("completion_code"), str) and row["completion_code"]:
                stored[normalize_code(row["completion_code"])] = row
    return stored


def verify_codes(submissions: list, participants: pd.DataFrame) -> pd.DataFrame:
    """Check submitted codes against the stored completions.

    `submissions` holds bare codes or (worker ID, code) pairs. A code matches only
    when it is stored for a finished participant *and*, if a worker ID was
    submitted with it, that participant arrived with this worker ID (letter case
    ignored). One row per submission: `worker_id, submitted, matched, participant,
    status, platform_id, duplicate` (the same code submitted more than once) and
    `problem` (why it does not match).
    """
    pairs = [s if isinstance(s, tuple) else (None, s) for s in submissions]
    stored = _stored_completions(participants)
    counts: dict[str, int] = {}
    for _, c in pairs:
        counts[normalize_code(c)] = counts.get(normalize_code(c), 0) + 1
    rows = []
    for worker, c in pairs:
        hit = stored.get(normalize_code(c))
        problem = None if hit else "no finished participant has this code"
        if hit and worker is not None and str(hit.get("platform_id") or "").casefold() != worker.casefold():
            problem = "the code belongs to another worker ID"
        rows.append(
            {
                "worker_id": worker,
                "submitted": c,
                "matched": problem is None,
                "participant": hit["participant"] if hit else None,
                "status": hit["status"] if hit else None,
                "platform_id": hit.get("platform_id") if hit else None,
                "duplicate": counts[normalize_code(c)] > 1,
                "problem": problem,
            }
        )
    return pd.DataFrame(rows, columns=VERIFY_COLUMNS)
