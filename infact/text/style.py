"""Style covariates of a response: its length and how many items it recommends.

Chatbot Arena's style control (Chiang et al. 2024) showed that raters, human or model,
favour longer and more elaborate answers. INFACT measures two such features per response
so a ranking can be corrected for them and a judge's taste for them can be compared with
the humans': `length` in words and `items`, the number of quoted item names ("Title (2001)"),
counted the way the participant page highlights them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import pandas as pd

from infact.text.display import _QUOTED, is_item  # the one definition of an item name

FEATURES = ("length", "items")


def response_length(text: str) -> int:
    return len(str(text).split())


def item_count(text: str, items: Iterable[str] = ()) -> int:
    """Quoted names that the participant page highlights as items (a year, or listed by the importer)."""
    return sum(is_item(q, items) for q in _QUOTED.findall(str(text)))


def features_of(text: str, items: Iterable[str] = ()) -> dict[str, int]:
    return {"length": response_length(text), "items": item_count(text, items)}


def response_features(situations: Iterable) -> pd.DataFrame:
    """situation_id, system, length, items for every response of the given situations."""
    rows = [{"situation_id": s.situation_id, "system": system, **features_of(text, s.meta.get("items") or ())}
            for s in situations for system, text in s.responses.items()]
    return pd.DataFrame(rows, columns=["situation_id", "system", *FEATURES])


def features_from_path(path: str | Path) -> pd.DataFrame:
    """Features of a study folder's situations or of one situations .jsonl file."""
    from infact.study.situations import load_situations

    path = Path(path)
    if path.is_dir():
        from infact.study.loader import load_study

        study = load_study(path)
        situations = list(study.situations) + ([study.attention_situation] if study.attention_situation else [])
    else:
        situations = load_situations([path])
    return response_features(situations)
