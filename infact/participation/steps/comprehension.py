"""The comprehension check: questions about the instructions right after consent, two attempts (Prolific's rules).

`[comprehension]` in study.toml (infact/study/platform_config.py) turns it on. The page asks every
question; all right passes. A first wrong attempt is stored as a `comprehension_attempt` record and the page
is shown again (the count is read from the store: a reload gives no third attempt). A second wrong attempt
stores the step's record with `comprehension_passed = False` and `screens_out`, and the flow ends the study
at once with the screen-out page, whatever `quality.on_attention_fail` says. It is not an attention check:
it never counts towards a rejection (`failed_checks`), and `infact prolific review` asks such a participant
to return the submission (Prolific: failed comprehension checks are returned, never rejected).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any

from infact.participation.steps.registry import Checked, Step, StepKind
from infact.study.platform_config import ATTEMPTS
from infact.text.catalogue import N_, _

ATTEMPT = "comprehension_attempt"  # the record of a failed attempt that leaves another one
AGAIN = N_("This attempt was already submitted. Please read the questions again and answer them below.")


def failed_attempts(st) -> int:
    """How many attempts this participant failed so far (from the stored records)."""
    return sum(1 for r in getattr(st, "records", ()) if r.get("kind") == ATTEMPT)


class Comprehension(StepKind):
    name = "comprehension"
    bot_seconds = 40.0

    def plan(self, flow, st) -> list[Step]:
        if not flow.cfg.comprehension.enabled:
            return []
        return [Step(self.name, self.name, data={"attempt": failed_attempts(st) + 1})]

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        attempt = step.data.get("attempt", 1)
        if answers.get("attempt") not in (None, attempt):  # a double click on the page of a failed attempt
            return Checked.refuse(_(AGAIN))
        questions = flow.cfg.comprehension.questions
        given = answers.get("answers") or {}
        missing = [str(n) for n, q in enumerate(questions, start=1) if given.get(q.id) not in q.options]
        if missing:
            return Checked.refuse(_("Please answer question {numbers}.").format(numbers=", ".join(missing)))
        wrong = [q.id for q in questions if given[q.id] != q.answer]
        last = attempt >= ATTEMPTS
        return Checked(
            fields={
                "answers": {q.id: given[q.id] for q in questions},
                "wrong": wrong,
                "attempt": attempt,
                "comprehension_passed": not wrong,
                "screens_out": bool(wrong) and last,
            }
        )

    def store(self, flow, st, step: Step, fields: Mapping[str, Any]) -> None:
        if fields["comprehension_passed"] or fields["screens_out"]:
            flow.store_step(st, step, **fields)  # the step's answer: passed, or failed for good
            return
        at = flow.clock().astimezone(UTC).isoformat(timespec="milliseconds")
        flow.storage.append(  # a failed attempt that leaves another: the step stays unanswered
            {
                "key": f"{flow.study.id}/{st.token}/step/{step.name}/attempt-{fields['attempt']}",
                "study": flow.study.id,
                "dataset_version": flow.study.dataset_version,
                "participant": st.token,
                "kind": ATTEMPT,
                "at": at,
                "preview": st.preview,
                "step": step.name,
                **fields,
            }
        )

    def bot_answers(self, study, step: Step, bot) -> dict:
        """Right, except a `fails-comprehension` bot (wrong every time) and a `speeder` (wrong on the first try)."""
        attempt = step.data.get("attempt", 1)
        wrong = bot.strategy == "fails-comprehension" or (bot.strategy == "speeder" and attempt == 1)
        picks = {
            q.id: next(o for o in q.options if o != q.answer) if wrong else q.answer
            for q in study.config.comprehension.questions
        }
        return {"answers": picks, "attempt": attempt}

    def simulated_answers(self, study, step: Step, sim) -> dict:
        from infact.llm.simulated import Question

        cfg = study.config.comprehension
        questions = [Question(q.id, q.text, tuple(q.options)) for q in cfg.questions]
        page = f"{study.config.texts.instructions}\n\n{cfg.intro}"
        got = sim.answer(page, questions)
        answers = {q.id: got.get(q.id) or q.options[0] for q in cfg.questions}
        return {"answers": answers, "attempt": step.data.get("attempt", 1)}
