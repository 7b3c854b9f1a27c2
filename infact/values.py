"""How answers change form, written once.

A rating is a scale *label* when a participant or a bot gives it, a 1-based *point*
when it is stored and analysed, and a label again in exports. Yes/no columns come
back from CSV files as text. The text a participant is shown for a response (the
attention check's instruction replaces one system's response) is decided here too,
so the page, the stored record and the tables cannot disagree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

# One word list for every yes/no column read back from a file (CSV, XLSX, JSON).
TRUE_WORDS = frozenset({"true", "1", "yes", "y", "t"})
FALSE_WORDS = frozenset({"false", "0", "no", "n", "f", ""})


def parse_bool(value: Any) -> bool | None:
    """True/False for a yes/no value in any stored form; None when it is neither."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        if value != value:  # NaN: missing
            return None
        return bool(value) if value in (0, 1) else None
    text = str(value).strip().lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    return None


def bool_column(values: pd.Series) -> pd.Series:
    """A yes/no column as booleans; missing or unrecognised values count as False."""
    return values.map(lambda v: parse_bool(v) is True).astype(bool)


def label_to_point(value: Any, labels: Sequence[str]) -> int | None:
    """A scale label (or an already numeric 1-based point) as its point; None if neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 1 <= value <= len(labels):
        return value
    if isinstance(value, str) and value in labels:
        return list(labels).index(value) + 1
    return None


def point_to_label(point: Any, labels: Sequence[str]) -> str | None:
    """The label of a 1-based point; None outside the scale or when missing."""
    try:
        p = int(point)
    except (TypeError, ValueError):
        return None
    if isinstance(point, float) and point != p:
        return None
    return labels[p - 1] if 1 <= p <= len(labels) else None


def points_of(labels_given: Sequence[str], labels: Sequence[str]) -> set[int]:
    """Points of several labels (e.g. the answers that pass an attention check)."""
    return {list(labels).index(label) + 1 for label in labels_given}


def response_letter(position: int) -> str:
    """The anonymous name a participant sees for the response at 1-based `position`."""
    return chr(ord("A") + position - 1)


def shown_response(responses: dict[str, str], system: str, *, instructed_system: str | None, instruction: str) -> str:
    """What the participant reads for `system`: its response, or the attention check's
    instruction when this is the system whose response the check replaces."""
    if instructed_system is not None and system == instructed_system:
        return instruction
    return responses[system]


def json_ready(obj):
    """numpy scalars -> Python, NaN/inf -> None, so json.dumps(allow_nan=False) works."""
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    return obj


# Identifiers that become column values in the exports (study, criteria, rubric items): 1-64 letters, digits,
# '-' or '_', starting with a letter or digit; aspects start with a letter (LETTER_ID).
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")
LETTER_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$")


def identifier(value: str, rule: str, pattern: re.Pattern = ID) -> str:
    """`value` when it is an identifier by `pattern`; else a ValueError saying the `rule` (study.toml's
    validators: one check for every id)."""
    if not pattern.match(value):
        raise ValueError(rule)
    return value
