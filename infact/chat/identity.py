"""Identity leaks: an answer that gives away which system (or model) is talking.

Votes from a conversation where a system named itself are not blind any more;
Chatbot Arena drops them for this reason. We flag the answer and the conversation
and mark the vote (exports keep it, analysis can leave it out).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# CRS and LLM names a system might say about itself ("I am KBRD", "as ChatGPT, …"). Only names
# that are not also ordinary words or people in movie talk (no "Claude", "Gemini", "Llama"):
# add those per study with `live.identity_words` if your systems could say them.
KNOWN_MODELS = (
    "KBRD",
    "KGSF",
    "UniCRS",
    "BARCOR",
    "CRSLab",
    "iEvaLM",
    "RB-CRS",
    "CRB-CRS",
    "ChatGPT",
    "GPT-3",
    "GPT-3.5",
    "GPT-4",
    "GPT-4o",
    "OpenAI",
    "Anthropic",
    "DialoGPT",
    "BlenderBot",
)
_MIN_NAME = 3  # shorter system names ("A", "S1") would match ordinary words


def identity_words(systems: Iterable[str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    words = {w.strip() for w in (*systems, *extra, *KNOWN_MODELS) if len(w.strip()) >= _MIN_NAME}
    return tuple(sorted(words, key=lambda w: (-len(w), w.lower())))


def _pattern(words: tuple[str, ...]) -> re.Pattern | None:
    if not words:
        return None
    # Whole words only, case-insensitive; '-' and '.' inside a name are literal.
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])", re.IGNORECASE)


class LeakDetector:
    """System names and `identity_words` are matched as whole words, ignoring case. A system
    named like an ordinary word ("Fair") would flag "Fair enough!": give systems distinctive names."""

    def __init__(self, systems: Iterable[str], extra: Iterable[str] = ()):
        self.words = identity_words(systems, extra)
        self._re = _pattern(self.words)
        self._canonical = {w.lower(): w for w in self.words}

    def find(self, text: str) -> list[str]:
        """The identity words named in `text` (as configured), without repeats, in order."""
        if not self._re or not text:
            return []
        found: list[str] = []
        for m in self._re.finditer(text):
            word = self._canonical.get(m.group(1).lower(), m.group(1))
            if word not in found:
                found.append(word)
        return found
