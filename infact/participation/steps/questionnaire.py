"""Questionnaire: agreement with each statement (points stored, labels exported), an
optional instructed item (attention check), and an optional free-text comment
(`[questionnaire.comment]`) exported as item `comment`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from infact.llm.simulated import Question
from infact.participation.steps.registry import Checked, Step, StepKind, check_items
from infact.table_schema import BOT, PARTICIPANT, TableSchema
from infact.table_schema import Column as C
from infact.text import typed
from infact.text.catalogue import _, number
from infact.values import label_to_point, point_to_label

COMMENT_ITEM = "comment"  # its item name in questionnaire.csv
COMMENT_TYPING = "comment_typing"  # how the comment was typed (infact/text/typed.py), on the record only


def comment_of(answers: Mapping[str, Any], max_chars: int) -> tuple[str | None, str | None]:
    """(the comment to store or None when left empty, an error when it is too long)."""
    text = answers.get(COMMENT_ITEM)
    if text is None:
        return None, None
    if not isinstance(text, str):
        return None, _("Your comment could not be read; please type it again.")
    text = text.strip()
    if len(text) > max_chars:
        return None, _("Please shorten your comment to at most {n} characters (it has {length}).").format(
            n=number(max_chars), length=number(len(text))
        )
    return text or None, None


QUESTIONNAIRE = TableSchema(
    "questionnaire",
    "Post-task questionnaire, long: one row per participant × item; the free-text comment, when "
    "given, is one more row with item = comment, no value and the text as answer.",
    (
        PARTICIPANT,
        C("item", "string", "questionnaire item id (study.toml [questionnaire])", True),
        C("value", "integer", "the point chosen, 1..k (empty for the comment)"),
        C("answer", "string", "the label chosen (the comment's text for item = comment)"),
        BOT,
    ),
)


class Questionnaire(StepKind):
    name = "questionnaire"
    schema = QUESTIONNAIRE
    bot_seconds = 40.0

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        q = flow.cfg.questionnaire
        values, errors = check_items(
            q.items,
            answers,
            lambda item, answer: label_to_point(answer, q.scale),
            lambda n, item: _("Please answer statement {n}: {text}").format(n=number(n), text=_(item.text)),
        )
        comment, problem = comment_of(answers, q.comment.max_chars) if q.comment.enabled else (None, None)
        if problem:
            errors.append(problem)
        if errors:
            return Checked.refuse(*errors)
        fields: dict[str, Any] = {"answers": values}
        checks = [i for i in q.items if i.expected is not None]
        if checks:
            fields["attention_passed"] = all(values[i.id] == label_to_point(i.expected, q.scale) for i in checks)
        if q.comment.enabled:
            fields["comment"] = comment
            fields[COMMENT_TYPING] = typed.metrics(answers.get(COMMENT_TYPING), comment) if comment else None
        return Checked(fields=fields)

    def bot_answers(self, study, step: Step, bot) -> dict:
        q = study.config.questionnaire
        out: dict[str, Any] = {}
        for item in q.items:
            if item.expected is not None and bot.strategy != "fails-attention":
                out[item.id] = item.expected
            elif item.expected is not None:
                out[item.id] = next(s for s in q.scale if s != item.expected)
            else:
                out[item.id] = bot.rng.choice(q.scale[1:]) if bot.strategy != "speeder" else bot.rng.choice(q.scale)
        if q.comment.enabled and bot.strategy == "attentive" and bot.rng.random() < 0.3:
            out[COMMENT_ITEM] = bot.rng.choice(BOT_COMMENTS)
        return out

    def simulated_answers(self, study, step: Step, sim) -> dict | None:
        """Every statement on the questionnaire's scale (an instructed item too: informative); a fallback takes
        the middle of the scale. The optional comment is left empty."""
        q = study.config.questionnaire
        if not q.items:
            return None
        page = "The closing questionnaire: how much do you agree with each statement about the study you took part in?"
        got = sim.answer(page, [Question(item.id, item.text, tuple(q.scale)) for item in q.items])
        return {item.id: got[item.id] or q.scale[len(q.scale) // 2] for item in q.items}

    def scale(self, cfg) -> Sequence[str] | None:
        return cfg.questionnaire.scale

    def rows(self, record: dict, scale: Sequence[str] | None) -> list[dict]:
        rows = [
            {"item": item, "value": value, "answer": point_to_label(value, scale or [])}
            for item, value in record["answers"].items()
        ]
        if record.get("comment"):
            rows.append({"item": COMMENT_ITEM, "value": None, "answer": record["comment"]})
        return rows


# What an attentive bot sometimes writes: some realistic free text for the dashboard and exports.
BOT_COMMENTS = (
    "Some responses ignored what the user had just said.",
    "Interesting study, the recommendations were sometimes off-topic.",
    "A few answers repeated movies the user already mentioned.",
)
