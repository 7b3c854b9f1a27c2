"""Item names (movie titles) in dialog text: defined once for the participant page, the importers,
the sampler and the style covariates.

A quoted string is an item when it ends with a year ("The Matrix (1999)") or when the importer
listed it; ReDial's raw mentions (`@12345`) count as items where a dialog is read before import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Quoted text: "The Matrix (1999)", "Police Academy  (1984)", "Braveheart", "Meaningless".
QUOTED = re.compile(r'"([^"\n]{1,200})"')
YEAR_AT_END = re.compile(r"\(\s*(1[89]|20)\d\d\s*\)\s*$")
MENTION_ID = re.compile(r"@(\d+)")
_ITEM = re.compile(r'"[^"\n]+"|@\d+')
_YEAR = re.compile(r"\s*\((\d{4})\)\s*$")


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def is_item(quoted: str, items: Iterable[str] = ()) -> bool:
    """A quoted string is an item when it ends with a year or the importer listed it."""
    return bool(YEAR_AT_END.search(quoted)) or _key(quoted) in {_key(i) for i in items}


def mentions_item(text: str) -> bool:
    """True when an utterance names a movie (a quoted title or a raw @id)."""
    return _ITEM.search(text) is not None


def normalise_title(title: str) -> str:
    """'Police Academy  (1984)' and 'Police Academy(1984) ' -> 'Police Academy (1984)'."""
    title = " ".join(title.split())
    return _YEAR.sub(r" (\1)", title).strip()


def normalise_titles(text: str) -> str:
    """Normalise every double-quoted title in an utterance; other text is kept."""
    return QUOTED.sub(lambda m: f'"{normalise_title(m.group(1))}"', text)
