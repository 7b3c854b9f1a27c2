"""Annotating one system's whole conversation: the `conversation` step kind (CRSArena-Eval's protocol).

The page shows the conversation (user and system turns distinct, items highlighted); under each
system turn its `level = "turn"` aspects, after the last turn the `level = "dialogue"` aspects and,
if `protocol.comment = "optional"`, a comment. A turn left unanswered is refused with the turn named
("chatbot message 2"). Conversations come from the balanced assignment (least-annotated first, with
leases); with `protocol.gold` one gold conversation is mixed in at a random position, unmarked: an
answer further than the aspect's `tolerance` from the gold answer fails it, which counts as a failed
attention check (`attention_passed = False`, the misses stored in `gold_misses`).

Answers arrive as labels: `{"turns": {"<turn_ind>": {aspect: label}}, "dialogue": {aspect: label},
"comment": "…"}`; values are stored on each aspect's own scale (zero-based ones included). Records
become annotations.csv rows, one per turn × aspect and per dialogue aspect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.llm.simulated import Question
from infact.participation.steps.registry import Checked, Step, StepKind
from infact.study.annotation.aspects import Aspect, of_level
from infact.study.annotation.conversations import dataset_of, read_gold, system_of, system_turns, turns_of
from infact.table_schema import BOT, EXCLUDED, STUDY, TableSchema
from infact.table_schema import Column as C
from infact.text.catalogue import _, number

GOLD_PREFIX = "gold:"
CARELESS = ("straightliner", "speeder", "fails-attention")  # bots that do not answer the gold as its answers


def gold_conversations(study) -> tuple:
    proto = study.config.protocol
    return read_gold(study.folder, proto.gold, study.config.aspects) if proto.gold else ()


def conversation_steps(study, chosen: list, rng) -> list[dict]:
    """The assignment's steps: the chosen conversations, a random gold one at a random position."""
    n = study.config.study.situations_per_participant
    gold = gold_conversations(study)
    gold_at = rng.randint(1, n) if gold else None
    regular = iter(chosen)
    steps = []
    for index in range(1, n + 1):
        if index == gold_at:
            conv, _ = rng.choice(gold)
            steps.append(
                {
                    "step": f"conversation-{index}",
                    "index": index,
                    "kind": "conversation",
                    "situation_id": GOLD_PREFIX + conv.situation_id,
                    "order": [system_of(conv)],
                    "attention_check": True,
                }
            )
        else:
            conv = next(regular)
            steps.append(
                {
                    "step": f"conversation-{index}",
                    "index": index,
                    "kind": "conversation",
                    "situation_id": conv.situation_id,
                    "order": [system_of(conv)],
                    "attention_check": False,
                }
            )
    return steps


def conversation_of(study, situation_id: str):
    """(the conversation, the gold answers or None) a step shows."""
    if situation_id.startswith(GOLD_PREFIX):
        wanted = situation_id[len(GOLD_PREFIX) :]
        for conv, expected in gold_conversations(study):
            if conv.situation_id == wanted:
                return conv, expected
        raise KeyError(f"gold conversation {wanted!r} is no longer in {study.config.protocol.gold}")
    return study.situation(situation_id), None


def message_numbers(conv) -> dict[int, int]:
    """turn_ind → the number the page gives the system turn ("chatbot message 2")."""
    return {t: n for n, t in enumerate(system_turns(conv), start=1)}


def _missing(given: Mapping, aspects: list[Aspect]) -> tuple[dict[str, int], list[str]]:
    values, missing = {}, []
    for a in aspects:
        v = a.value_of((given or {}).get(a.id))
        if v is None:
            missing.append(a.id)
        else:
            values[a.id] = v
    return values, missing


def gold_misses(expected: dict, turns: dict, dialogue: dict, aspects: list[Aspect]) -> list[str]:
    """What differs from the gold answers by more than each aspect's tolerance."""
    by_id = {a.id: a for a in aspects}
    misses = []
    for ind, gold in expected.get("turns", {}).items():
        for aspect, value in gold.items():
            given = turns.get(str(ind), {}).get(aspect)
            if given is None or abs(given - value) > by_id[aspect].tolerance:
                misses.append(f"turn {ind} {aspect}: {given} (gold {value})")
    for aspect, value in expected.get("dialogue", {}).items():
        given = dialogue.get(aspect)
        if given is None or abs(given - value) > by_id[aspect].tolerance:
            misses.append(f"dialogue {aspect}: {given} (gold {value})")
    return misses


ANNOTATIONS = TableSchema(
    "annotations",
    "Conversation annotations, long: participant × conversation × turn × aspect; dialogue-level "
    "aspects have an empty turn (CRSArena-Eval's protocol, docs/protocols.md).",
    (
        C("participant", "string", "random participant token (`aggregated` for imported aggregated annotations)", True),
        C("dialog_id", "string", "the conversation's dialog id (CRS Arena: the user's id)"),
        C("system", "string", "the system whose conversation was annotated", True),
        C("turn", "integer", "0-based index of the annotated system turn (turn_ind); empty at dialogue level"),
        C("aspect", "string", "aspect id (study.toml [[aspects]])", True),
        C("level", "string", "`turn` or `dialogue`", True),
        C("value", "integer", "the point chosen on the aspect's own scale (zero-based scales allowed)", True),
        C("seconds", "number", "seconds spent on the whole conversation's page"),
        C("conversation_id", "string", "the annotated conversation's id", True),
        C("dataset", "string", "the dataset the conversation comes from (2nd `_` field of a CRS Arena id)"),
        C("label", "string", "the label of the point chosen"),
        C("step_index", "integer", "1-based number of the conversation in the participant's run"),
        C("is_gold", "boolean", "true on the hidden gold conversation (left out of the analysis)"),
        STUDY,
        C("dataset_version", "string", "content hash of the conversations files shown"),
        EXCLUDED,
        BOT,
    ),
)
ANNOTATION_COLUMNS = [c for c in ANNOTATIONS.names if c not in ("excluded", "condition")]


class Conversation(StepKind):
    name = "conversation"
    schema = ANNOTATIONS
    per_situation = True
    bot_seconds = 90.0

    def plan(self, flow, st) -> list[Step] | None:
        if st.assignment is None:
            return None
        return [
            Step(s["step"], self.name, s["index"], s["situation_id"], tuple(s["order"]), bool(s.get("attention_check")))
            for s in st.assignment["steps"]
            if s.get("kind") == self.name
        ]

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        aspects = flow.cfg.aspects
        conv, expected = conversation_of(flow.study, step.situation_id)
        given = answers.get("turns") or {}
        numbers = message_numbers(conv)
        errors, turns = [], {}
        for ind, n in numbers.items():
            values, missing = _missing(given.get(str(ind)), of_level(aspects, "turn"))
            if missing:
                errors.append(
                    _("Please rate chatbot message {n}: {missing}.").format(n=number(n), missing=", ".join(missing))
                )
            turns[str(ind)] = values
        dialogue, missing = _missing(answers.get("dialogue"), of_level(aspects, "dialogue"))
        if missing:
            errors.append(
                _("Please answer the questions about the whole conversation: {missing}.").format(
                    missing=", ".join(missing)
                )
            )
        comment = answers.get("comment")
        comment = comment.strip()[:2000] if isinstance(comment, str) and flow.cfg.protocol.comment != "off" else ""
        if errors:
            return Checked.refuse(*errors)
        fields = step.answer_fields(
            conversation_id=conv.situation_id,
            dialog_id=conv.dialog_id,
            system=system_of(conv),
            dataset=conv.meta.get("dataset", ""),
            turns=turns_of(conv),
            annotations={"turns": turns, "dialogue": dialogue},
            comment=comment or None,
        )
        if expected is not None:
            misses = gold_misses(expected, turns, dialogue, aspects)
            fields.update(attention_passed=not misses, gold_misses=misses)
        return Checked(fields=fields)

    def bot_time(self, step: Step) -> float:
        return self.bot_seconds

    def bot_answers(self, study, step: Step, bot) -> dict:
        """Attentive bots follow the planted quality of the conversation's system (and the gold answers on a
        gold conversation); straight-liners give one value everywhere and speeders random ones, gold or not;
        a fails-attention bot reads the others but answers the gold conversation against its answers."""
        conv, expected = conversation_of(study, step.situation_id)
        k = len(study.config.scale.labels)
        share = (bot.quality.get(system_of(conv), (k + 1) / 2) + bot.bias - 1) / max(1, k - 1)
        flat = bot.rng.random()

        def answer(a: Aspect, gold: int | None, turn_offset: float = 0.0) -> str:
            if gold is not None and bot.strategy not in CARELESS:
                value = gold  # a careful reader agrees with the gold answers
            elif gold is not None and bot.strategy == "fails-attention":  # the far end of the scale
                value = a.lowest if gold - a.lowest > a.highest - gold else a.highest
            elif bot.strategy == "straightliner":
                value = round(a.lowest + flat * (a.highest - a.lowest))
            elif bot.strategy == "speeder":
                value = bot.rng.randint(a.lowest, a.highest)
            else:
                mean = a.lowest + min(1.0, max(0.0, share + turn_offset)) * (a.highest - a.lowest)
                value = int(min(a.highest, max(a.lowest, round(bot.rng.gauss(mean, 0.5)))))
            return a.labels[value - a.first]

        gold_turns = (expected or {}).get("turns", {})
        gold_dialogue = (expected or {}).get("dialogue", {})
        aspects = study.config.aspects
        # A conversation's messages are not equally good: each turn moves the planted quality a little (both
        # aspects alike), so an attentive reader's turn answers vary as a person's do.
        offsets = {ind: bot.rng.gauss(0, 0.15) for ind in system_turns(conv)}
        turns = {
            str(ind): {
                a.id: answer(a, gold_turns.get(str(ind), {}).get(a.id), offsets[ind]) for a in of_level(aspects, "turn")
            }
            for ind in system_turns(conv)
        }
        dialogue = {a.id: answer(a, gold_dialogue.get(a.id)) for a in of_level(aspects, "dialogue")}
        return {"turns": turns, "dialogue": dialogue, "comment": ""}

    def simulated_answers(self, study, step: Step, sim) -> dict:
        """The conversation with its chatbot messages numbered as on the page, one question per message × turn
        aspect and per dialogue aspect (a gold conversation is answered like any other); a fallback takes the
        middle of the aspect's scale."""
        conv, _ = conversation_of(study, step.situation_id)
        numbers = message_numbers(conv)
        lines = []
        for t in turns_of(conv):
            who = f"Chatbot (message {numbers[t['turn_ind']]})" if t["role"] == "bot" else "User"
            lines.append(f"{who}: {t['text']}")
        page = "The conversation to annotate:\n" + "\n".join(lines)
        aspects = study.config.aspects
        asked = [
            (str(ind), a, Question(f"{n}/{a.id}", f"Chatbot message {n}: {a.question}", tuple(a.labels)))
            for ind, n in numbers.items()
            for a in of_level(aspects, "turn")
        ]
        asked += [
            (None, a, Question(f"dialogue/{a.id}", f"The whole conversation: {a.question}", tuple(a.labels)))
            for a in of_level(aspects, "dialogue")
        ]
        got = sim.answer(page, [q for _, _, q in asked])
        turns: dict[str, dict[str, str]] = {str(ind): {} for ind in numbers}
        dialogue: dict[str, str] = {}
        for ind, a, q in asked:
            label = got[q.key] or a.labels[len(a.labels) // 2]
            (dialogue if ind is None else turns[ind])[a.id] = label
        return {"turns": turns, "dialogue": dialogue, "comment": ""}

    def scale(self, cfg):
        return cfg.aspects  # rows() turn values back into each aspect's labels

    def rows(self, record: dict, scale) -> list[dict]:
        common = {
            "dialog_id": record.get("dialog_id"),
            "system": record.get("system"),
            "seconds": record.get("seconds"),
            "conversation_id": record.get("conversation_id"),
            "dataset": record.get("dataset") or dataset_of(record.get("conversation_id", "")),
            "step_index": record.get("index"),
            "is_gold": bool(record.get("attention_check")),
            "study": record.get("study"),
            "dataset_version": record.get("dataset_version"),
        }
        labels = {a.id: a for a in scale or ()}
        ann = record.get("annotations") or {}
        rows = [
            {
                **common,
                "turn": int(ind),
                "aspect": aspect,
                "level": "turn",
                "value": value,
                "label": labels[aspect].label_of(value) if aspect in labels else None,
            }
            for ind, values in ann.get("turns", {}).items()
            for aspect, value in values.items()
        ]
        rows += [
            {
                **common,
                "turn": None,
                "aspect": aspect,
                "level": "dialogue",
                "value": value,
                "label": labels[aspect].label_of(value) if aspect in labels else None,
            }
            for aspect, value in ann.get("dialogue", {}).items()
        ]
        return rows
