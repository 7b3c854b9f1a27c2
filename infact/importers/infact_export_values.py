"""The original INFACT export's values and its attention-check rule (`import infact-export`,
infact/importers/infact_export.py): scale labels, ratings as strings, numbers with stray spaces."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from infact.errors import DatasetError, Problem
from infact.fileio import loads_json
from infact.importers.common import read_text
from infact.study.config import DEFAULT_SCALE
from infact.values import label_to_point

# The original INFACT scale, lowest first: the study's default scale is that very scale.
LABELS = list(DEFAULT_SCALE)


def clean_text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def whole_number(value: Any) -> int | None:
    try:
        n = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return int(n) if n.is_integer() else None


def number(value: Any) -> float | None:
    try:
        return float(str(value).strip())
    except (TypeError, ValueError):
        return None


def parse_rating(value: Any) -> int | None:
    """'4', 4, '4.0', ' 4 ' or a scale label in any case -> 4; anything else (or out of 1..5) -> None."""
    n = whole_number(value)
    if n is None and isinstance(value, str):  # exports hold labels in any letter case
        return label_to_point(next((lab for lab in LABELS if lab.lower() == value.strip().lower()), None), LABELS)
    return label_to_point(n, LABELS)


@dataclass(frozen=True)
class CheckRule:
    """Which trial is the attention check and when it is passed. Defaults are INFACT's
    own: dialog 6 with these two (stripped) responses, passed when Our_rating < 3."""

    dialog_id: int = 6
    responses: dict[str, str] = field(
        default_factory=lambda: {
            "Deep_crs": "What kind of movies are you looking for?",
            "Our": 'I am reading this carefully, and I give a rating of "Meaningless" to all three responses here, '
            '"The Godfather (1972)"',
        }
    )
    rated: str = "Our"  # whose rating is checked
    max_rating: int = 2  # passed when that rating is at most this

    def matches(self, trial: dict) -> bool:
        if whole_number(trial.get("Dialog_ID")) != self.dialog_id:
            return False
        return all(clean_text(trial.get(f"{key}_response")) == text.strip() for key, text in self.responses.items())

    @classmethod
    def from_json(cls, path: Path) -> CheckRule:
        name = str(path)
        try:
            data = loads_json(read_text(path))
        except json.JSONDecodeError as exc:
            raise DatasetError(Problem(name, f"not valid JSON ({exc.msg})", exc.lineno)) from None
        known = {f.name for f in fields(cls)}
        shape = 'expected {"dialog_id": int, "responses": {"Our": "text", …}, "rated": "Our", "max_rating": int}'
        if not isinstance(data, dict):
            raise DatasetError(Problem(name, f"{shape}, got {type(data).__name__}"))
        if set(data) - known:
            raise DatasetError(Problem(name, f"unknown key(s) {sorted(set(data) - known)}: {shape}"))
        rule = cls(**data)
        try:
            dialog_id, max_rating = int(rule.dialog_id), int(rule.max_rating)
        except (TypeError, ValueError):
            raise DatasetError(Problem(name, f"dialog_id and max_rating must be whole numbers: {shape}")) from None
        if (
            not isinstance(rule.responses, dict)
            or not all(isinstance(v, str) for v in rule.responses.values())
            or not isinstance(rule.rated, str)
        ):
            raise DatasetError(Problem(name, f"responses must map keys to texts and rated must be a key: {shape}"))
        return cls(dialog_id, rule.responses, rule.rated, max_rating)


DEFAULT_RULE = CheckRule()
