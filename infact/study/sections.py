"""What every section of study.toml shares: unknown keys refused, values frozen, and identifiers that become
column values in the exports (study, criteria, rubric items, aspects) checked by one rule."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

# 1-64 letters, digits, '-' or '_', starting with a letter or digit (aspects: a letter, LETTER_ID).
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")
LETTER_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$")


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def identifier(value: str, rule: str, pattern: re.Pattern = ID) -> str:
    """`value` when it is an identifier by `pattern`; else a ValueError saying the `rule`."""
    if not pattern.match(value):
        raise ValueError(rule)
    return value
