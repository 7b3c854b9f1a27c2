"""Style covariates of a response: its length and how many items it recommends.

Chatbot Arena's style control (Chiang et al. 2024) showed that raters, human or model,
favour longer and more elaborate answers. INFACT measures two such features per response
so a ranking can be corrected for them and a judge's taste for them can be compared with
the humans': `length` in words and `items`, the number of quoted item names ("Title (2001)"),
counted the way the participant page highlights them.
"""

from __future__ import annotations

from collections.abc import Iterable

from infact.text.items import QUOTED, is_item

FEATURES = ("length", "items")


def response_length(text: str) -> int:
    return len(str(text).split())


def item_count(text: str, items: Iterable[str] = ()) -> int:
    """Quoted names that the participant page highlights as items (a year, or listed by the importer)."""
    return sum(is_item(q, items) for q in QUOTED.findall(str(text)))


def features_of(text: str, items: Iterable[str] = ()) -> dict[str, int]:
    return {"length": response_length(text), "items": item_count(text, items)}
