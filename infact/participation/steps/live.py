"""Live chat: the participant talks to the systems under test (issue 14, docs/live.md).

One page per participant, after the situations, in studies with `[live.systems]`.
Inside it `infact.chat.arena.LiveRun` runs chat A → rubric → (chat B → rubric →
vote); each message, rating and the vote is stored the moment it is given, so the
page is submitted only once everything is stored, and its record sums it up
(systems met, conversations, how each ended, the vote).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from infact.chat.arena import LiveRun
from infact.chat.bot import ChattingBot
from infact.chat.client import connect_all
from infact.chat.llm_chat import LLMChattingBot
from infact.participation.steps.registry import Checked, Step, StepKind
from infact.text.catalogue import N_, _

UNFINISHED = N_("Please finish the chat (and the questions after it) first.")


def live_run(flow, step: Step, clients=None, **kw) -> LiveRun:
    """The participant's live run; `clients` is only needed to chat, not to read progress."""
    return LiveRun(
        flow.study,
        flow.storage,
        clients or {},
        step.data["participant"],
        preview=step.data.get("preview", False),
        clock=kw.get("clock", flow.clock),
        condition=flow.condition,  # the Flow of the participant's condition (Flow.of): its records carry it
    )


class Live(StepKind):
    name = "live"
    bot_seconds = 5.0  # the chat's own time is spent inside bot_answers, message by message

    def plan(self, flow, st) -> list[Step] | None:
        if not flow.cfg.live.enabled:
            return []
        # The token travels in the step: check() and the bots need the participant's records.
        return [Step("live", self.name, data={"participant": st.token, "preview": st.preview})]

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        run = live_run(flow, step)
        records = run.records()
        if run.phase(records).name != "done":
            return Checked.refuse(_(UNFINISHED))
        slots = run.slots(records)
        ended = {slot: (run.conversation(slot, records).ended or {}).get("ended_by") for slot in slots}
        vote = run.vote(records)
        return Checked(
            fields={
                "systems": list(slots.values()),
                "conversations": [run.conversation(s, records).conversation_id for s in slots],
                "ended_by": ended,
                "winner": vote["winner"] if vote else None,
            }
        )

    def bot_answers(self, study, step: Step, bot) -> dict:
        """The bot chats for real (through the configured systems), then submits the page."""
        flow = bot.flow()  # the bot's own Flow: importing flow here would be an import cycle
        flow = flow.of(flow.state(step.data["participant"]))  # its condition's, whose records carry the condition
        run = live_run(flow, step, connect_all(study.config.live.systems, study.config.endpoints))
        if getattr(bot, "simulator", None) is not None:  # an LLM plays this participant's chats
            llm, persona = bot.simulator
            chatter = LLMChattingBot(run, llm, persona, spend=bot.clock.spend)
            try:
                chatter.play()
            finally:
                bot.fallbacks += chatter.fallbacks
            return {}
        patience = 0 if bot.strategy == "speeder" else 2
        ChattingBot(run, random.Random(bot.rng.random()), spend=bot.clock.spend, patience=patience).play()
        return {}
