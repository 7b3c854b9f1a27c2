"""Errors that name the file, the line or key, and the fix.

Every problem a researcher can cause (a bad config, a malformed dataset line, an
unmatched system output) becomes a `Problem`. Loaders collect all of them before
raising, so one run of `python -m infact validate` lists everything to fix.

A system under test (or an LLM endpoint) that gives no usable answer raises one
`SystemFailure` subclass. They live here, at the bottom, because both the chat
runtime (infact.chat) and the LLM connector below it (infact.llm) raise them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
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


class OptionError(InfactError):
    """An option of a library call that cannot be used: `option` is its name in the call (`n_boot`), `message`
    what is wrong and what to do; `file` the file it names, when the fault is in that file. A command line shows
    the option under its own flag (`named({"n_boot": "--n-boot"})`); an option the message or `key` names is
    written `{name}` and shown the same way."""

    def __init__(self, option: str, message: str, key: str | None = None, *, file: str | None = None):
        self.option, self.message, self.key, self.file = option, message, key, file
        super().__init__(self.problem({}))

    def problem(self, names: Mapping[str, str]) -> Problem:
        """The problem with every option named as `names` names it (an option not in it: by its own name)."""

        def named(text: str) -> str:
            return re.sub(r"\{([a-z_]+)\}", lambda m: names.get(m[1], m[1]), text)

        key = named(self.key) if self.key else None
        return Problem(self.file or names.get(self.option, self.option), named(self.message), key=key)

    def named(self, names: Mapping[str, str]) -> InfactError:
        return InfactError(self.problem(names))


class ConfigError(InfactError):
    """study.toml is missing, unreadable or invalid."""


class DatasetError(InfactError):
    """A situations file (or an input file for an importer) is invalid."""


# -- a system (or an LLM endpoint) gave no usable answer -----------------------


def N_(message: str) -> str:
    """Marks a participant message for the catalogue (infact/text/catalogue.py, a part above this module):
    translated where it is shown."""
    return message


class SystemFailure(Exception):
    """A system under test did not give a usable answer."""

    kind = "failure"
    participant_message = N_(
        "The chatbot did not answer this time. Your conversation is saved. You can try again, or skip this chatbot."
    )

    def __init__(self, system: str, detail: str):
        self.system = system
        self.detail = detail
        super().__init__(f"{system}: {self.kind}: {detail}")

    def as_record(self) -> dict:
        return {"kind": self.kind, "detail": self.detail[:500]}


class SystemTimeout(SystemFailure):
    kind = "timeout"
    participant_message = N_(
        "The chatbot is taking too long to answer. Your conversation is saved. You can try again, or skip this chatbot."
    )


class SystemUnreachable(SystemFailure):
    kind = "unreachable"


class SystemHTTPError(SystemFailure):
    kind = "http_status"

    def __init__(self, system: str, detail: str, status: int):
        self.status = status
        super().__init__(system, detail)

    def as_record(self) -> dict:
        return {**super().as_record(), "status": self.status}


class SystemBadReply(SystemFailure):
    kind = "bad_reply"


class SystemCrashed(SystemFailure):
    """An in-process callable raised an exception."""

    kind = "crashed"


class SimulatorFailed(Exception):
    """A simulated participant's own LLM (`bots --strategy llm`) gave no answer: the bot stops there.

    Nothing is made up in its place: the chat is not ended for it (a failed call is not a participant
    giving up) and no rubric or vote answer is stored; the run reports and counts the failure."""

    def __init__(self, failure: SystemFailure):
        self.failure = failure
        super().__init__(f"the simulator's endpoint failed: {failure.kind}: {failure.detail}")
