"""Situation: a dialog cut after a user turn and every system's next response, each
rated on the scale per criterion; one of them may be the instructed attention check.

The situations and their response orders come from the participant's assignment
record (drawn when consent is stored), so they are the same after any reload.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from infact.llm.prompts import responses_page
from infact.llm.simulated import Question
from infact.participation.steps.registry import Checked, Step, StepKind, assigned_steps
from infact.table_schema import BOT, EXCLUDED, PARTICIPANT, SECONDS, STEP_INDEX, STUDY, TableSchema
from infact.table_schema import Column as C
from infact.text.catalogue import _
from infact.values import label_to_point, point_to_label, points_of, response_letter, shown_response


def instructed_system(step: Step) -> str | None:
    """The system whose response the attention check replaces on this step, if any."""
    return step.instructed_system if step.attention_check else None


def response_text(cfg, situation, step: Step, system: str) -> str:
    """What the participant reads for `system` on `step`: the page and the record agree."""
    return shown_response(
        situation.responses, system, instructed_system=instructed_system(step), instruction=_(cfg.attention_check.text)
    )


def _instructed(step: Step, system: str) -> bool:
    return system == instructed_system(step)


RATINGS = TableSchema(
    "ratings",
    "Long: one row per participant × situation × system × criterion (rating protocol).",
    (
        PARTICIPANT,
        STUDY,
        C("dataset_version", "string", "content hash of the situations files shown"),
        STEP_INDEX,
        C("situation_id", "string", "the situation's id in the situations file", True),
        C("dialog_id", "string", "the source dialog the situation was cut from"),
        C("system", "string", "the system whose response was rated", True),
        C("criterion", "string", "criterion id (study.toml [[criteria]])"),
        C("rating", "integer", "the point chosen, 1..k (k = scale points)", True),
        C("rating_label", "string", "the label of that point as shown"),
        C("position", "integer", "1-based place of the response on the page (the order was random)"),
        SECONDS,
        C("is_attention_check", "boolean", "true on the instructed-response check; analysis leaves these rows out"),
        C("shown_at", "datetime", "when the page was first shown (UTC, ISO 8601)"),
        C("answered_at", "datetime", "when it was submitted (UTC, ISO 8601)"),
        EXCLUDED,
        BOT,
    ),
)


class Situation(StepKind):
    name = "situation"
    schema = RATINGS
    per_situation = True

    def plan(self, flow, st) -> list[Step] | None:
        return assigned_steps(self.name, st)

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        cfg = flow.cfg
        given = answers.get("ratings") or {}
        situation = flow.study.situation(step.situation_id)
        errors: list[str] = []
        responses = []
        for pos, system in enumerate(step.order, start=1):
            ratings: dict[str, int] = {}
            for crit in cfg.criteria:
                value = label_to_point((given.get(system) or {}).get(crit.id), cfg.scale.labels)
                if value is None:
                    what = "" if len(cfg.criteria) == 1 else f" ({crit.id})"
                    errors.append(
                        _("Please rate response {letter}{what}.").format(letter=response_letter(pos), what=what)
                    )
                else:
                    ratings[crit.id] = value
            responses.append(
                {
                    "position": pos,
                    "system": system,
                    "text": response_text(cfg, situation, step, system),
                    "ratings": ratings,
                    "instructed": _instructed(step, system),
                }
            )
        if errors:
            return Checked.refuse(*errors)
        fields = step.answer_fields(
            dialog_id=situation.dialog_id, context=[t.to_dict() for t in situation.context], responses=responses
        )
        if step.attention_check:
            expected = points_of(cfg.attention_check.expected, cfg.scale.labels)
            check = next(r for r in responses if r["instructed"])
            fields["attention_passed"] = all(v in expected for v in check["ratings"].values())
        return Checked(fields=fields)

    def bot_time(self, step: Step) -> float:
        return self.bot_seconds + 6 * len(step.order)

    def bot_answers(self, study, step: Step, bot) -> dict:
        """Labels per system and criterion, by the bot's strategy."""
        cfg = study.config
        labels = cfg.scale.labels
        k = len(labels)
        expected = [label_to_point(e, labels) for e in cfg.attention_check.expected]
        flat = bot.rng.randint(3, k) if bot.strategy == "straightliner" else None
        ratings: dict[str, dict[str, str]] = {}
        for system in step.order:
            per: dict[str, str] = {}
            for crit in cfg.criteria:
                instructed = _instructed(step, system)
                if instructed and bot.strategy != "fails-attention":
                    value = expected[0]
                elif bot.strategy == "straightliner" and not step.attention_check:
                    value = flat
                elif bot.strategy == "speeder":
                    value = bot.rng.randint(1, k)
                else:
                    mean = bot.quality.get(system, (k + 1) / 2) + bot.bias
                    value = int(min(k, max(1, round(bot.rng.gauss(mean, 0.8)))))
                    if instructed:  # ignores the instruction: rates it like the others
                        value = max(v for v in range(1, k + 1) if v not in expected)
                per[crit.id] = point_to_label(value, labels)
            ratings[system] = per
        return {"ratings": ratings}

    def simulated_answers(self, study, step: Step, sim) -> dict:
        """The page as read (the dialog, the responses in the order shown, the check's instruction in its place),
        one question per response × criterion on the scale; a fallback takes the middle of the scale."""
        cfg = study.config
        labels = tuple(cfg.scale.labels)
        situation = study.situation(step.situation_id)
        letters = {system: response_letter(pos) for pos, system in enumerate(step.order, start=1)}
        page = responses_page(
            situation.context, [(letters[s], response_text(cfg, situation, step, s)) for s in step.order]
        )
        questions = [
            Question(f"{letters[s]}/{c.id}", f"Response {letters[s]}: {c.question}", labels)
            for s in step.order
            for c in cfg.criteria
        ]
        got = sim.answer(page, questions)
        middle = labels[len(labels) // 2]
        return {"ratings": {s: {c.id: got[f"{letters[s]}/{c.id}"] or middle for c in cfg.criteria} for s in step.order}}

    def scale(self, cfg) -> Sequence[str] | None:
        return cfg.scale.labels

    def rows(self, record: dict, scale: Sequence[str] | None) -> list[dict]:
        rows = []
        for resp in record["responses"]:
            for crit, value in resp["ratings"].items():
                rows.append(
                    {
                        "study": record["study"],
                        "dataset_version": record.get("dataset_version"),
                        "step_index": record["index"],
                        "situation_id": record["situation_id"],
                        "dialog_id": record.get("dialog_id"),
                        "system": resp["system"],
                        "criterion": crit,
                        "rating": int(value),
                        "rating_label": point_to_label(value, scale) if scale else None,
                        "position": resp["position"],
                        "seconds": record.get("seconds"),
                        "is_attention_check": bool(record.get("attention_check")),
                        "shown_at": record.get("shown_at"),
                        "answered_at": record.get("answered_at"),
                    }
                )
        return rows
