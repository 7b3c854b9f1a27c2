"""Onboarding with gold pairs (ACUTE-Eval's quality gate) before a pairwise study's situations.

`[protocol] onboarding = "onboarding.jsonl"` names a file in the study folder; each line is a
gold pair: `{"context": [turns], "a": "…", "b": "…", "answer": "A" | "B"}` (a dialog that ends
with a user turn, two responses, the one a careful reader must prefer). In a dialog-level study
(`pairwise_dialog`) `a` and `b` are whole conversations (lists of turns) and `context` is left
out: `{"topic": "…", "a": [turns], "b": [turns], "answer": "A"}`. The participant
answers every pair on one page after consent. Fewer correct than `onboarding_threshold` (0.75,
as in ACUTE-Eval) ends the study with the screen-out page, whatever `quality.on_attention_fail`
says: someone who cannot tell the gold pairs apart should not judge the real ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.llm.prompts import conversations_page, responses_page
from infact.llm.simulated import Question
from infact.participation.steps.registry import Checked, Step, StepKind
from infact.study.gold_pairs import ANSWERS, read_gold_pairs
from infact.study.protocol_config import PAIRWISE_KINDS
from infact.text.catalogue import _


class Onboarding(StepKind):
    name = "onboarding"
    bot_seconds = 60.0

    def plan(self, flow, st) -> list[Step]:
        proto = flow.cfg.protocol
        return [Step(self.name, self.name)] if proto.kind in PAIRWISE_KINDS and proto.onboarding else []

    def pairs(self, flow) -> tuple[dict, ...]:
        return read_gold_pairs(flow.study.folder, flow.cfg.protocol.onboarding)

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        pairs = self.pairs(flow)
        given = answers.get("gold") or {}
        missing = [str(i) for i in range(1, len(pairs) + 1) if given.get(str(i)) not in ANSWERS]
        if missing:
            return Checked.refuse(_("Please answer example {numbers}.").format(numbers=", ".join(missing)))
        correct = sum(given[str(i)] == p["answer"] for i, p in enumerate(pairs, start=1))
        share = correct / len(pairs)
        passed = share >= flow.cfg.protocol.onboarding_threshold
        return Checked(
            fields={
                "answers": {str(i): given[str(i)] for i in range(1, len(pairs) + 1)},
                "correct": correct,
                "share": share,
                "attention_passed": passed,
                "screens_out": not passed,
            }
        )

    def bot_answers(self, study, step: Step, bot) -> dict:
        pairs = read_gold_pairs(study.folder, study.config.protocol.onboarding)
        wrong = {"fails-attention": 1.0, "speeder": 0.5}.get(bot.strategy, 0.05)
        return {
            "gold": {
                str(i): (p["answer"] if bot.rng.random() >= wrong else "AB"[p["answer"] == "A"])
                for i, p in enumerate(pairs, start=1)
            }
        }

    def simulated_answers(self, study, step: Step, sim) -> dict:
        """Every gold pair on the page, each answered A or B as the real pairs are (a fallback takes A)."""
        pairs = read_gold_pairs(study.folder, study.config.protocol.onboarding)
        question = study.config.protocol.question_for(study.config.criteria[0].id)
        parts = []
        for i, p in enumerate(pairs, start=1):
            shown = (
                conversations_page([("A", p["a"]), ("B", p["b"])])
                if isinstance(p["a"], list)
                else responses_page(p.get("context") or [], [("A", p["a"]), ("B", p["b"])])
            )
            parts.append(f"Example {i}:\n{shown}")
        questions = [Question(str(i), f"Example {i}: {question}", ANSWERS) for i in range(1, len(pairs) + 1)]
        got = sim.answer("\n\n".join(parts), questions)
        return {"gold": {key: value or "A" for key, value in got.items()}}
