"""Consent: the welcome page; nothing goes on without ticking the consent box."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.participation.steps.registry import Checked, Step, StepKind
from infact.text.catalogue import N_, _

REFUSED = N_(
    "Please tick the consent box to take part. If you do not want to take part, you can simply close this page."
)


class Consent(StepKind):
    name = "consent"
    bot_seconds = 45.0

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        if answers.get("consent") is not True:
            return Checked.refuse(_(REFUSED))
        return Checked(fields={"answers": {"consent": True}})

    def store(self, flow, st, step: Step, fields: Mapping[str, Any]) -> None:
        # The consent is the participant's own record; only the draw of the situations needs the store-wide
        # lock (the balanced assignment must see every other participant's draw), so a launch's consents
        # queue for one write each, not two. A consent stored without its assignment (a crash between the
        # two) is assigned when it is submitted again (Flow.current).
        flow.store_step(st, step, **fields)
        if st.assignment is None:
            with flow.storage.lock():
                flow.assign(st)

    def bot_answers(self, study, step: Step, bot) -> dict:
        return {"consent": True}
