"""Style covariates of every response in a study, as a table (`analyze --style`, the dashboard's ranking).

The features themselves are defined once in infact/text/style.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from infact.study.loader import load_study
from infact.study.situations import load_situations
from infact.text.style import FEATURES, features_of


def response_features(situations: Iterable) -> pd.DataFrame:
    """situation_id, system, length, items for every response of the given situations."""
    rows = [
        {"situation_id": s.situation_id, "system": system, **features_of(text, s.meta.get("items") or ())}
        for s in situations
        for system, text in s.responses.items()
    ]
    return pd.DataFrame(rows, columns=["situation_id", "system", *FEATURES])


def features_from_path(path: str | Path) -> pd.DataFrame:
    """Features of a study folder's situations or of one situations .jsonl file."""
    path = Path(path)
    if path.is_dir():
        study = load_study(path)
        situations = list(study.situations) + ([study.attention_situation] if study.attention_situation else [])
    else:
        situations = load_situations([path])
    return response_features(situations)
