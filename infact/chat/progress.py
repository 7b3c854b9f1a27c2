"""Where a participant is inside the live step, as the page says it ("Step 2 of 5: …").

The live step is one page of the study's flow, but a participant meets up to five screens
in it (chat A, its questions, chat B, its questions, the vote): they are told which one,
as situations say "Situation 1 of 3". A rubric that is never asked (a chat skipped before
any answer) keeps its number: the count is the plan, so it never goes back.
"""

from __future__ import annotations

from infact.chat.arena import Phase
from infact.text.catalogue import N_, _, number

LABELS = {"chat": N_("Chat with chatbot {slot}"), "rubric": N_("Rate chatbot {slot}"), "vote": N_("Your vote")}


def stages(arena: bool) -> list[Phase]:
    slots = "AB" if arena else "A"
    out = [Phase(name, slot) for slot in slots for name in ("chat", "rubric")]
    return out + [Phase("vote")] if arena else out


def position(phase: Phase, arena: bool) -> tuple[int, int]:
    """(number of this screen, how many there are); a finished step is past the last one."""
    plan = stages(arena)
    if phase.name == "done":
        return len(plan), len(plan)
    return plan.index(Phase(phase.name, phase.slot)) + 1, len(plan)


def progress_text(phase: Phase, arena: bool) -> str:
    n, total = position(phase, arena)
    label = LABELS.get(phase.name, "")
    step = _("Step {n} of {total}").format(n=number(n), total=number(total))
    return _("{step}: {stage}").format(step=step, stage=_(label).format(slot=phase.slot)) if label else step
