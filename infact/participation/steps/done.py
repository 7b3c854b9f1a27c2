"""Done: the completion page (code or platform redirect). It takes no answer."""

from __future__ import annotations

from infact.participation.steps.registry import StepKind


class Done(StepKind):
    name = "done"
    answered = False
