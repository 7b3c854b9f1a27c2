"""Comparing responses instead of rating them: the `pairwise` step kind, and what the comparisons share.

Pairwise (response level, as Chatbot Arena and ACUTE-Eval ask it): the situation's dialog,
two systems' responses side by side in a random left/right order (stored), and per criterion
"Which response is more …?" — A, B or (if allowed) about the same — plus an optional
justification. The shown responses, the stored fields and a bot's pick are shared with best_worst.py
and pairwise_dialog.py.

The pairs and sets come from the participant's assignment record (infact/participation/
protocols.py, balanced or adaptive), so they survive any reload. On the attention-check step
the instructed response replaces one system's response; choosing it passes.
Records become pairwise.csv / best_worst.csv rows (infact/results/tables/comparisons.py columns).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from typing import Any

from infact.llm.prompts import responses_page
from infact.llm.simulated import Question
from infact.participation.steps.registry import Checked, Step, StepKind, assigned_steps
from infact.study.protocol_config import shown_attention_text
from infact.study.situations import VERSION_UNKNOWN as UNKNOWN
from infact.table_schema import BOT, EXCLUDED, PARTICIPANT, SECONDS, STEP_INDEX, STUDY, TableSchema
from infact.table_schema import Column as C
from infact.text import typed
from infact.text.catalogue import _, number
from infact.text.style import features_of
from infact.values import response_letter, shown_response

TIE = "tie"
BOTH_BAD = "both_bad"  # its own answer, kept apart from a tie (LMArena's "both are bad")


def shown_texts(flow, step: Step) -> list[dict]:
    """Position, system and the text the participant reads, in display order."""
    situation = flow.study.situation(step.situation_id)
    instructed = step.instructed_system if step.attention_check else None
    return [
        {
            "position": pos,
            "system": system,
            "text": shown_response(
                situation.responses,
                system,
                instructed_system=instructed,
                instruction=shown_attention_text(flow.cfg),
            ),
        }
        for pos, system in enumerate(step.order, start=1)
    ]


def _common(flow, step: Step) -> dict:
    situation = flow.study.situation(step.situation_id)
    return step.answer_fields(
        dialog_id=situation.dialog_id,
        context=[t.to_dict() for t in situation.context],
        responses=shown_texts(flow, step),
        versions={s: flow.study.system_versions[s] for s in step.order},  # as shown: the ledger's versions
    )


def checked_choice(flow, step: Step, errors: list[str], picked, **answer) -> Checked:
    """The errors, or the fields to store; on the attention check, whether every pick was the instructed system."""
    if errors:
        return Checked.refuse(*errors)
    fields = {**_common(flow, step), **answer}
    if step.attention_check:
        fields["attention_passed"] = all(p == step.instructed_system for p in picked)
    return Checked(fields=fields)


def bot_pick(bot, step: Step, *, worst: bool = False) -> str:
    """A bot's choice among the shown systems (attentive: Plackett–Luce on its planted quality)."""
    if step.attention_check and bot.strategy != "fails-attention":
        others = [s for s in step.order if s != step.instructed_system]
        return bot.rng.choice(others) if worst else step.instructed_system
    if bot.strategy == "straightliner":
        return step.order[-1] if worst else step.order[0]  # always the same side: a position bias
    if bot.strategy == "speeder":
        return bot.rng.choice(step.order)
    sign = -1.0 if worst else 1.0
    weights = [math.exp(sign * 1.5 * bot.quality.get(s, 0.0)) for s in step.order]
    return bot.rng.choices(step.order, weights=weights)[0]


class Shown:
    """The study as shown_texts reads it from a Flow (a simulated participant reads the page without one)."""

    def __init__(self, study):
        self.study, self.cfg = study, study.config


def responses_shown(study, step: Step) -> str:
    """The page a simulated participant reads: the dialog and the responses, lettered in the order shown."""
    situation = study.situation(step.situation_id)
    texts = shown_texts(Shown(study), step)
    return responses_page(situation.context, [(response_letter(r["position"]), r["text"]) for r in texts])


def simulated_reason(sim, page: str, proto) -> str:
    """The justification a study requires, asked of the simulated participant (a stand-in when it gives none)."""
    need = proto.justification_min_chars
    got = sim.answer(page, [Question("reason", "In a sentence or two: why did you choose as you did?", (), need)])
    reason = got["reason"] or "Simulated participant (LLM): no reason given (fallback)."
    while len(reason) < need:
        reason += " " + reason
    return reason


def asked(answer: str, situation: str = "the situation") -> tuple[C, ...]:
    """The first columns of both preference tables: who answered, on which situation, which criterion."""
    return (
        PARTICIPANT,
        C("situation_id", "string", situation),
        C("criterion", "string", f"criterion id the {answer} answers"),
    )


# Further column runs the pairwise and best–worst tables share, declared once: where the comparison came from,
# and the marks every row carries last.
SOURCE = (STEP_INDEX, C("dialog_id", "string", "the source dialog"), STUDY)
ROW_MARKS = (EXCLUDED, BOT)


def shared_cells(record: dict, criterion: str) -> dict:
    """What a pairwise or best–worst row takes alike from its record: the `asked` and `SOURCE` columns (the
    participant's is added by the caller), the seconds spent and when it was answered."""
    return {
        "study": record["study"],
        "step_index": record["index"],
        "situation_id": record["situation_id"],
        "dialog_id": record.get("dialog_id"),
        "criterion": criterion,
        "seconds": record.get("seconds"),
        "answered_at": record.get("answered_at") or record.get("at"),
    }


# Live arena votes (docs/live.md) are rows of the same file with these columns filled.
LIVE_VOTE_COLUMNS = ("identity_leak", "system_skipped", "conversation_a", "conversation_b")
PAIRWISE = TableSchema(
    "pairwise",
    "One row per vote: per criterion in the pairwise and dialog-level (ACUTE-style) protocols, per chat "
    "pair in the live arena. winner is a system, `tie` or `both_bad`.",
    (
        *asked("vote", "the situation (dialog-level studies: the dialog id)"),
        C("system_a", "string", "one system of the pair (alphabetically first)", True),
        C("system_b", "string", "the other system of the pair", True),
        C("shown_left", "string", "the system shown on the left (first on a phone)"),
        C(
            "winner",
            "string",
            "the system preferred, `tie` (about the same) or `both_bad` (both bad, where the study offers it: "
            "a tie in the ranking fit, counted apart in each system's both-bad rate)",
            True,
        ),
        SECONDS,
        C("justification", "string", "the participant's reason, when asked"),
        C("length_a", "number", "words in system_a's response (style covariate)"),
        C("length_b", "number", "words in system_b's response"),
        C("items_a", "number", "item names (movie titles) system_a's response recommends"),
        C("items_b", "number", "item names system_b's response recommends"),
        *SOURCE,
        C("dataset", "string", "CRS Arena votes (`import crs-arena`): the dataset both systems were built on"),
        C("identity_leak", "boolean", "live arena: a system named itself in the chat (the vote is not blind)"),
        C("system_skipped", "boolean", "live arena: a system failed and the participant skipped it"),
        C("conversation_a", "string", "live arena: id of the chat with system_a (transcripts.jsonl)"),
        C("conversation_b", "string", "live arena: id of the chat with system_b"),
        C("answered_at", "datetime", "when the vote was given (UTC; the ledger's first and last vote)"),
        C(
            "version_a",
            "string",
            "system_a's version when it was shown (docs/ranking.md, 'The ledger': `responses-…`, `endpoint-…`, "
            "`url-…`, `callable-…`); `unknown` for votes stored before versions were recorded",
        ),
        C("version_b", "string", "system_b's version when it was shown"),
        *(
            C(f"justification_{name}", "integer", f"how the justification was typed: {text} (docs/quality.md)")
            for name, text in typed.COLUMN_HELP.items()
        ),
        *ROW_MARKS,
    ),
)


class Pairwise(StepKind):
    name = "pairwise"
    schema = PAIRWISE
    per_situation = True
    noun = "response"  # what A and B are, in messages (pairwise_dialog: "conversation")

    def plan(self, flow, st) -> list[Step] | None:
        return assigned_steps(self.name, st)

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        proto = flow.cfg.protocol
        given = answers.get("choices") or {}
        letters = {response_letter(i): s for i, s in enumerate(step.order, start=1)}
        errors, choices = [], {}
        for crit in flow.cfg.criteria:
            value = given.get(crit.id)
            what = "" if len(flow.cfg.criteria) == 1 else f" ({crit.id})"
            if value in letters:
                choices[crit.id] = letters[value]
            elif proto.allow_tie and value == proto.tie_label:
                choices[crit.id] = TIE
            elif proto.allow_both_bad and value == proto.both_bad_label:
                choices[crit.id] = BOTH_BAD
            else:
                extra = [proto.tie_label] * proto.allow_tie + [proto.both_bad_label] * proto.allow_both_bad
                ors = "".join(_(" or “{label}”").format(label=_(x)) for x in extra)
                choose = (
                    _("Please choose conversation A or B{more}{what}.")
                    if self.noun == "conversation"
                    else _("Please choose response A or B{more}{what}.")
                )
                errors.append(choose.format(more=ors, what=what))
        text = str(answers.get("justification") or "").strip()
        if proto.justification == "required" and len(text) < proto.justification_min_chars:
            errors.append(
                _("Please explain your choice in at least {n} characters.").format(
                    n=number(proto.justification_min_chars)
                )
            )
        typing = typed.metrics(answers.get("typing"), text) if text else None
        return checked_choice(
            flow, step, errors, choices.values(), choices=choices, justification=text, justification_typing=typing
        )

    def bot_time(self, step: Step) -> float:
        return self.bot_seconds + 8

    def bot_answers(self, study, step: Step, bot) -> dict:
        proto = study.config.protocol
        choices = {}
        for crit in study.config.criteria:
            pick = bot_pick(bot, step)
            close = abs(bot.quality.get(step.order[0], 0) - bot.quality.get(step.order[1], 0)) < 1.0
            # a straight-liner takes the same side every time (never "about the same")
            tie = (
                proto.allow_tie
                and not step.attention_check
                and bot.strategy != "straightliner"
                and close
                and bot.rng.random() < 0.3
            )
            # an attentive bot sometimes finds both bad when neither system is above the median planted quality
            both_bad = (
                proto.allow_both_bad
                and not step.attention_check
                and bot.strategy == "attentive"
                and max(bot.quality.get(s, 0.0) for s in step.order) <= statistics.median(bot.quality.values())
                and bot.rng.random() < 0.4
            )
            letter = response_letter(step.order.index(pick) + 1)
            choices[crit.id] = proto.both_bad_label if both_bad else proto.tie_label if tie else letter
        justification = "" if proto.justification == "off" else "It answers the question and names a fitting movie."
        return {"choices": choices, "justification": justification}

    def page(self, study, step: Step) -> str:
        """What the simulated participant reads (pairwise_dialog: the two conversations)."""
        return responses_shown(study, step)

    def simulated_answers(self, study, step: Step, sim) -> dict:
        """The page (the check's instruction in place of one response), one question per criterion answered A, B
        or the study's tie / both-bad labels; a fallback takes the tie (A without one); a required
        justification is asked for after the choice."""
        proto = study.config.protocol
        labels = ("A", "B") + (proto.tie_label,) * proto.allow_tie + (proto.both_bad_label,) * proto.allow_both_bad
        page = self.page(study, step)
        questions = [Question(c.id, proto.question_for(c.id), labels) for c in study.config.criteria]
        got = sim.answer(page, questions)
        stand_in = proto.tie_label if proto.allow_tie else "A"
        choices = {c.id: got[c.id] or stand_in for c in study.config.criteria}
        reason = simulated_reason(sim, page, proto) if proto.justification == "required" else ""
        return {"choices": choices, "justification": reason}

    def rows(self, record: dict, scale) -> list[dict]:
        if record.get("attention_check"):
            return []  # a check is not a vote; its result is in participants.csv
        left, right = record["responses"][0], record["responses"][1]
        a, b = sorted((left, right), key=lambda r: r["system"])
        fa, fb = features_of(a["text"]), features_of(b["text"])
        versions = record.get("versions") or {}
        return [
            {
                **shared_cells(record, crit),
                "system_a": a["system"],
                "system_b": b["system"],
                "shown_left": left["system"],
                "winner": winner,
                "justification": record.get("justification", ""),
                "length_a": fa["length"],
                "length_b": fb["length"],
                "items_a": fa["items"],
                "items_b": fb["items"],
                "version_a": versions.get(a["system"], UNKNOWN),
                "version_b": versions.get(b["system"], UNKNOWN),
                **typed.columns("justification", record.get("justification_typing")),
            }
            for crit, winner in record["choices"].items()
        ]
