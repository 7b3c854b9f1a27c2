"""Demographics: one choice per configured question (`[[demographics]]`), stored as labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.participation.steps.registry import Checked, Step, StepKind, check_items
from infact.table_schema import BOT, PARTICIPANT, TableSchema
from infact.table_schema import Column as C
from infact.text.catalogue import _

DEMOGRAPHICS = TableSchema(
    "demographics",
    "Demographics answers, long: one row per participant × item.",
    (
        PARTICIPANT,
        C("item", "string", "demographics item id (study.toml [demographics])", True),
        C("answer", "string", 'the option label chosen ("Prefer not to say" included)'),
        BOT,
    ),
)


class Demographics(StepKind):
    name = "demographics"
    schema = DEMOGRAPHICS
    bot_seconds = 25.0

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        values, errors = check_items(
            flow.cfg.demographics,
            answers,
            lambda item, answer: answer if isinstance(answer, str) and answer in item.options else None,
            lambda n, item: _("Please answer “{question}”.").format(question=_(item.text)),
        )
        return Checked.refuse(*errors) if errors else Checked(fields={"answers": values})

    def bot_answers(self, study, step: Step, bot) -> dict:
        return {item.id: bot.rng.choice(item.options) for item in study.config.demographics}

    def rows(self, record: dict, scale) -> list[dict]:
        return [{"item": item, "answer": value} for item, value in record["answers"].items()]
