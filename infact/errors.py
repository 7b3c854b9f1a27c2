"""Errors that name the file, the line or key, and the fix.

Every problem a researcher can cause (a bad config, a malformed dataset line, an
unmatched system output) becomes a `Problem`. Loaders collect all of them before
raising, so one run of `python -m infact validate` lists everything to fix.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    line: int | None = None
    key: str | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        key = f" [{self.key}]" if self.key else ""
        return f"{where}:{key} {self.message}"


class InfactError(Exception):
    """A user-facing error: a list of problems, each with location and fix."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, (Problem, str)):
            problems = [problems]
        self.problems = [p if isinstance(p, Problem) else Problem("", p) for p in problems]
        super().__init__("\n".join(str(p) for p in self.problems))


class ConfigError(InfactError):
    """study.toml is missing, unreadable or invalid."""


class DatasetError(InfactError):
    """A situations file (or an input file for an importer) is invalid."""
