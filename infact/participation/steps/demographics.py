"""Demographics: one choice per configured question (`[[demographics]]`), stored as labels."""

from __future__ import annotations

from typing import Any, Mapping

from infact.participation.steps.registry import Checked, Step, StepKind


class Demographics(StepKind):
    name = "demographics"
    table = "demographics"
    bot_seconds = 25.0

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        values: dict[str, str] = {}
        errors = []
        for item in flow.cfg.demographics:
            v = answers.get(item.id)
            if v not in item.options:
                errors.append(f"Please answer “{item.text}”.")
            else:
                values[item.id] = v
        return Checked.refuse(*errors) if errors else Checked(fields={"answers": values})

    def bot_answers(self, study, step: Step, bot) -> dict:
        return {item.id: bot.rng.choice(item.options) for item in study.config.demographics}

    def rows(self, record: dict, scale) -> list[dict]:
        return [{"item": item, "answer": value} for item, value in record["answers"].items()]
