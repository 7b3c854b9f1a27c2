"""Best–worst: `protocol.set_size` responses of the situation, and per criterion the best and the worst.

The sets come from the participant's assignment record (infact/participation/protocols.py); on the attention
check choosing the instructed response as best passes. Records become best_worst.csv rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.llm.simulated import Question
from infact.participation.steps.pairwise import (
    ROW_MARKS,
    SOURCE,
    asked,
    bot_pick,
    checked_choice,
    responses_shown,
    shared_cells,
)
from infact.participation.steps.registry import Checked, Step, StepKind, assigned_steps
from infact.study.situations import VERSION_UNKNOWN as UNKNOWN
from infact.table_schema import SECONDS, TableSchema
from infact.table_schema import Column as C
from infact.text.catalogue import _
from infact.values import response_letter

BEST_WORST = TableSchema(
    "best_worst",
    "Best–worst protocol: one row per choice and criterion.",
    (
        *asked("choice"),
        C("systems", "string", "the systems shown, in display order, joined with `|`", True),
        C("best", "string", "the system chosen as best", True),
        C("worst", "string", "the system chosen as worst", True),
        SECONDS,
        *SOURCE,
        C("answered_at", "datetime", "when the choice was made (UTC; the ledger's first and last vote)"),
        C(
            "versions",
            "string",
            "the shown systems' versions, in the order of `systems`, joined with `|` (docs/ranking.md, 'The "
            "ledger'); `unknown` for choices stored before versions were recorded",
        ),
        *ROW_MARKS,
    ),
)


class BestWorst(StepKind):
    name = "best_worst"
    schema = BEST_WORST
    per_situation = True

    def plan(self, flow, st) -> list[Step] | None:
        return assigned_steps(self.name, st)

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        letters = {response_letter(i): s for i, s in enumerate(step.order, start=1)}
        best_given, worst_given = answers.get("best") or {}, answers.get("worst") or {}
        errors, best, worst = [], {}, {}
        for crit in flow.cfg.criteria:
            what = "" if len(flow.cfg.criteria) == 1 else f" ({crit.id})"
            b, w = letters.get(best_given.get(crit.id)), letters.get(worst_given.get(crit.id))
            if b is None or w is None:
                errors.append(_("Please pick the best and the worst response{what}.").format(what=what))
            elif b == w:
                errors.append(_("The best and the worst response must be different{what}.").format(what=what))
            else:
                best[crit.id], worst[crit.id] = b, w
        return checked_choice(flow, step, errors, best.values(), best=best, worst=worst)

    def bot_time(self, step: Step) -> float:
        return self.bot_seconds + 5 * len(step.order)

    def bot_answers(self, study, step: Step, bot) -> dict:
        best, worst = {}, {}
        for crit in study.config.criteria:
            b = bot_pick(bot, step)
            w = b
            while w == b:
                w = bot_pick(bot, step, worst=True)
            best[crit.id], worst[crit.id] = (response_letter(step.order.index(s) + 1) for s in (b, w))
        return {"best": best, "worst": worst}

    def simulated_answers(self, study, step: Step, sim) -> dict:
        """The page, then per criterion the best and the worst response by letter. A missing best takes A; a
        missing worst, or one equal to the best, takes the last other letter (marked as fallback)."""
        letters = tuple(response_letter(i) for i in range(1, len(step.order) + 1))
        criteria = study.config.criteria
        questions = [
            q
            for c in criteria
            for q in (
                Question(f"best/{c.id}", f"Which response is the best ({c.question})?", letters),
                Question(f"worst/{c.id}", f"Which response is the worst ({c.question})?", letters),
            )
        ]
        got = sim.answer(responses_shown(study, step), questions)
        best, worst = {}, {}
        for c in criteria:
            b, w = got[f"best/{c.id}"] or letters[0], got[f"worst/{c.id}"]
            if w == b:
                sim.mark_fallback(f"worst/{c.id}")
            if w is None or w == b:
                w = next(x for x in reversed(letters) if x != b)
            best[c.id], worst[c.id] = b, w
        return {"best": best, "worst": worst}

    def rows(self, record: dict, scale) -> list[dict]:
        if record.get("attention_check"):
            return []
        shown = [r["system"] for r in record["responses"]]
        versions = record.get("versions") or {}
        systems, stamped = "|".join(shown), "|".join(versions.get(s, UNKNOWN) for s in shown)
        return [
            {
                **shared_cells(record, crit),
                "systems": systems,
                "best": best,
                "worst": record["worst"][crit],
                "versions": stamped,
            }
            for crit, best in record["best"].items()
        ]
