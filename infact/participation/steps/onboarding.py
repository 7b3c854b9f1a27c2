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

from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from infact.errors import DatasetError, Problem
from infact.participation.steps.registry import Checked, Step, StepKind
from infact.study.protocol_config import PAIRWISE_KINDS

ANSWERS = ("A", "B")


def read_gold_pairs(folder: Path, file: str) -> tuple[dict, ...]:
    """The checked gold pairs; DatasetError naming file, line and key for every problem."""
    path = Path(folder) / file
    if not path.is_file():
        raise DatasetError(Problem(str(path), "onboarding file not found; create it (one gold pair per line) or "
                                   "remove `onboarding` from [protocol].", key="protocol.onboarding"))
    return _read(str(path), path.stat().st_mtime)


@lru_cache(maxsize=16)
def _read(path: str, mtime: float) -> tuple[dict, ...]:
    from infact.study.situations import json_lines

    rows, problems = json_lines(Path(path).read_text(encoding="utf-8"), path, "one gold pair (a JSON object) per line")
    pairs = []
    for line, obj in rows:
        if not isinstance(obj, dict):
            problems.append(Problem(path, "a gold pair is a JSON object with context, a, b, answer", line))
            continue
        if isinstance(obj.get("a"), list) or isinstance(obj.get("b"), list):
            problems.extend(_conversation_pair_problems(obj, path, line))
        else:
            problems.extend(_response_pair_problems(obj, path, line))
        if obj.get("answer") not in ANSWERS:
            problems.append(Problem(path, f"answer must be \"A\" or \"B\", not {obj.get('answer')!r}", line, "answer"))
        pairs.append(obj)
    if not rows:
        problems.append(Problem(path, "no gold pairs: add at least one line", key="protocol.onboarding"))
    if problems:
        raise DatasetError(problems)
    return tuple(pairs)


def _response_pair_problems(obj: dict, path: str, line: int) -> list[Problem]:
    """A response-level gold pair: a context ending with a user turn and two response texts."""
    problems = []
    context = obj.get("context")
    if not (isinstance(context, list) and context and all(isinstance(t, dict) and t.get("role") in ("user", "bot")
                                                       and isinstance(t.get("text"), str) for t in context)):
        problems.append(Problem(path, "context must be a list of {role: user|bot, text}", line, "context"))
    elif context[-1]["role"] != "user":
        problems.append(Problem(path, "context must end with a user turn", line, "context"))
    for key in ("a", "b"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            problems.append(Problem(path, f"'{key}' must be the text of a response", line, key))
    return problems


def _conversation_pair_problems(obj: dict, path: str, line: int) -> list[Problem]:
    """A dialog-level gold pair (pairwise_dialog): `a` and `b` are whole conversations, `topic` optional."""
    from infact.study.dialogs import parse_turns

    problems = []
    for key in ("a", "b"):
        why = parse_turns(obj.get(key))[1]
        if why:
            problems.append(Problem(path, f"'{key}' is a conversation here (the other one is a list of turns) and {why}",
                                    line, key))
    if not isinstance(obj.get("topic", ""), str):
        problems.append(Problem(path, "'topic' must be a string", line, "topic"))
    return problems


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
            return Checked.refuse(f"Please answer example {', '.join(missing)}.")
        correct = sum(given[str(i)] == p["answer"] for i, p in enumerate(pairs, start=1))
        share = correct / len(pairs)
        passed = share >= flow.cfg.protocol.onboarding_threshold
        return Checked(fields={"answers": {str(i): given[str(i)] for i in range(1, len(pairs) + 1)},
                               "correct": correct, "share": share, "attention_passed": passed,
                               "screens_out": not passed})

    def bot_answers(self, study, step: Step, bot) -> dict:
        pairs = read_gold_pairs(study.folder, study.config.protocol.onboarding)
        wrong = {"fails-attention": 1.0, "speeder": 0.5}.get(bot.strategy, 0.05)
        return {"gold": {str(i): (p["answer"] if bot.rng.random() >= wrong else "AB"[p["answer"] == "A"])
                         for i, p in enumerate(pairs, start=1)}}
