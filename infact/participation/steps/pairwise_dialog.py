"""Dialog-level pairwise comparison (ACUTE-Eval style): the `pairwise_dialog` step kind.

Two systems' whole conversations of one dialog (infact/study/dialogs.py: the same dialog_id,
i.e. the same seed or opening) side by side, left/right in a random order that is stored, then
per criterion "Which … is more …?" answered A, B or (if allowed) about the same, with the
optional justification: everything as the response-level `pairwise` kind, whose checking, bot
answers and pairwise.csv rows it inherits. Votes go to the same pairwise.csv with
situation_id = dialog_id, so ranking, dashboard and analyze read them unchanged; `length_*` and
`items_*` there measure each system's whole side of the conversation.

On the attention-check step the instructed system's last bot turn is replaced by
`protocol.attention_text` (choosing that conversation passes). The ACUTE onboarding is the
`onboarding` kind with conversation gold pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.llm.prompts import conversations_page
from infact.participation.steps.pairwise import Pairwise, Shown
from infact.participation.steps.registry import Checked, Step
from infact.study.protocol_config import shown_attention_text
from infact.values import response_letter


def shown_conversations(flow, step: Step) -> list[dict]:
    """Position, system and the turns the participant reads, in display order."""
    dialog = flow.study.situation(step.situation_id)
    out = []
    for pos, system in enumerate(step.order, start=1):
        turns = [t.to_dict() for t in dialog.conversations[system]]
        if step.attention_check and system == step.instructed_system:
            last_bot = max(i for i, t in enumerate(turns) if t["role"] == "bot")
            turns[last_bot] = {"role": "bot", "text": shown_attention_text(flow.cfg)}
        out.append({"position": pos, "system": system, "turns": turns})
    return out


class PairwiseDialog(Pairwise):
    name = "pairwise_dialog"
    bot_seconds = 75.0  # two whole conversations to read
    noun = "conversation"

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        checked = super().check(flow, step, answers)
        if checked.errors:
            return checked
        fields = {k: v for k, v in checked.fields.items() if k != "context"}  # no shared context: whole dialogs
        fields["conversations"] = shown_conversations(flow, step)
        return Checked(fields=fields)

    def page(self, study, step: Step) -> str:
        """The two whole conversations in the order shown (the check's replaced turn included)."""
        shown = shown_conversations(Shown(study), step)
        return conversations_page([(response_letter(r["position"]), r["turns"]) for r in shown])
