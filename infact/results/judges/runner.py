"""`python -m infact judge --judge NAME`: an LLM answers the study's own items, as its participants would.

- rating studies: one call per situation × system × criterion, answered with one scale label;
- pairwise studies: each pair of responses in both orders (A/B, and the tie label if ties are allowed);
- dialog-level studies (`pairwise_dialog`): each pair of whole conversations, both orders;
- `samples = k` draws k answers per item (each its own call and row).

Every call is cached by its prompt hash in `judges/NAME.raw.jsonl` (every raw output, the
re-ask, the parsed label and the call records), so a rerun or a killed run never repeats a
call; `judges/NAME.csv` is rewritten from it in the formats `analyze --judge` and the
dashboard's Judges section read (infact/results/judges/agreement.py). Unparseable answers
stay in the raw file, marked, and out of the CSV.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from infact.errors import ConfigError, Problem, SystemFailure
from infact.fileio import atomic_write_text
from infact.llm.batch import BatchSummary, run_batch
from infact.llm.calls import prompt_hash, utc_iso
from infact.llm.checkpoint import Checkpoint
from infact.llm.client import LLMClient, open_client
from infact.results.judges import prompts
from infact.study.endpoints import JUDGE_MAX_TOKENS, Sampling, capped, endpoints_from_secrets, merged
from infact.study.loader import Study

TIE = "tie"
RATING_COLUMNS = ["situation_id", "system", "criterion", "score", "label", "sample"]
PAIR_COLUMNS = ["situation_id", "system_a", "system_b", "winner", "criterion", "label", "sample"]


@dataclass(frozen=True)
class JudgeItem:
    key: str
    kind: str  # rating | pairwise | dialog
    situation_id: str
    criterion: str
    sample: int
    messages: tuple
    labels: tuple[str, ...]
    system: str | None = None  # rating
    system_a: str | None = None  # pairwise/dialog: shown first (A)
    system_b: str | None = None


@dataclass
class JudgeReport:
    summary: BatchSummary
    csv_path: Path
    raw_path: Path
    rows: int
    unparseable: int
    items: int
    extra: dict = field(default_factory=dict)

    def lines(self) -> list[str]:
        return [*self.summary.lines(), f"items={self.items}", f"rows={self.rows}", f"unparseable={self.unparseable}"]


def judge_items(study: Study, llm: LLMClient, settings) -> list[JudgeItem]:
    cfg = study.config
    system = {"role": "system", "content": prompts.system_message(cfg, settings.preamble)}
    sampled = judge_sampling(settings, llm).params()
    items: list[JudgeItem] = []

    def add(kind: str, sid: str, crit: str, text: str, labels: list[str], **who) -> None:
        if settings.constrain in ("json_schema", "json_object"):
            text += "\n\n" + prompts.JSON_ASK
        messages = (system, {"role": "user", "content": text})
        params = {**sampled, **request_fields(settings, labels)}
        for k in range(settings.samples):
            key = prompt_hash(llm.endpoint.model, list(messages), params, salt=f"sample={k}")
            items.append(JudgeItem(key, kind, sid, crit, k, messages, tuple(labels), **who))

    kind = cfg.protocol.kind
    if kind == "best_worst":
        raise ConfigError(
            Problem(
                str(study.folder / "study.toml"),
                "judges answer rating and pairwise studies; a best_worst study's judge is not supported yet",
                key="protocol.kind",
            )
        )
    pair_labels = ["A", "B"] + ([cfg.protocol.tie_label] if cfg.protocol.allow_tie else [])
    for s in study.situations:
        names = [n for n in cfg.study.systems if n in (s.conversations if kind == "pairwise_dialog" else s.responses)]
        for c in cfg.criteria:
            if kind == "rating":
                for n in names:
                    add(
                        "rating",
                        s.situation_id,
                        c.id,
                        prompts.rating_prompt(s.context, s.responses[n], c.question, cfg.scale.labels),
                        cfg.scale.labels,
                        system=n,
                    )
                continue
            question = cfg.protocol.question_for(c.id)
            for x, y in combinations(names, 2):
                for a, b in ((x, y), (y, x)):
                    text = (
                        prompts.dialog_prompt(s.conversations[a], s.conversations[b], question, pair_labels)
                        if kind == "pairwise_dialog"
                        else prompts.pairwise_prompt(s.context, s.responses[a], s.responses[b], question, pair_labels)
                    )
                    add(
                        "dialog" if kind == "pairwise_dialog" else "pairwise",
                        s.situation_id,
                        c.id,
                        text,
                        pair_labels,
                        system_a=a,
                        system_b=b,
                    )
    return items


def judge_sampling(settings, llm: LLMClient) -> Sampling:
    """The judge's sampling over its endpoint's, answers bounded to JUDGE_MAX_TOKENS unless either sets one."""
    return capped(settings.sampling, llm.endpoint.sampling, JUDGE_MAX_TOKENS)


def request_fields(settings, labels) -> dict:
    """What the judge's requests carry beyond messages and sampling: its constraint, then its own fields."""
    return {**prompts.constraint(settings.constrain, list(labels)), **settings.request}


def _ask(llm: LLMClient, settings) -> Callable[[JudgeItem], dict]:
    sampling = judge_sampling(settings, llm)

    def call(item: JudgeItem) -> dict:
        messages, raw, calls = list(item.messages), [], []
        out = {"at": utc_iso(), "situation_id": item.situation_id, "criterion": item.criterion, "sample": item.sample}
        try:
            for attempt in range(2):  # the answer, then one re-ask with a reminder of the labels
                done = llm.complete(
                    messages,
                    sampling,
                    salt=f"sample={item.sample}/ask={attempt}",
                    extra=request_fields(settings, item.labels),
                )
                raw.append(done.text)
                calls.append(done.record.to_dict())
                label = prompts.parse_label(done.text, list(item.labels))
                if label is not None:
                    return {**out, "raw": raw, "label": label, "status": "ok", **_totals(calls)}
                messages += [
                    {"role": "assistant", "content": done.text},
                    {"role": "user", "content": prompts.reminder(list(item.labels))},
                ]
        except SystemFailure as failure:
            record = getattr(failure, "call", None)
            calls += [record.to_dict()] if record is not None else []
            return {**out, "raw": raw, "error": failure.as_record(), **_totals(calls)}
        return {**out, "raw": raw, "label": None, "status": "unparseable", **_totals(calls)}

    return call


def _totals(calls: list[dict]) -> dict:
    return {
        "calls": len(calls),
        "call": {
            "prompt_tokens": sum(c.get("prompt_tokens") or 0 for c in calls),
            "completion_tokens": sum(c.get("completion_tokens") or 0 for c in calls),
            "latency_ms": sum(c.get("latency_ms") or 0 for c in calls),
            **({"finish_reason": calls[-1].get("finish_reason")} if calls else {}),
        },
        "call_records": calls,
    }


def run_judge(
    study: Study,
    name: str,
    *,
    secrets: Mapping | None = None,
    llm: LLMClient | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> JudgeReport:
    cfg = study.config
    settings = cfg.judges.get(name)
    if settings is None:
        raise ConfigError(
            Problem(
                str(study.folder / "study.toml"),
                f"no [judges.{name}] table: add one with "
                f'endpoint = "…" (docs/llm.md); judges declared: {sorted(cfg.judges) or "none"}',
                key=f"judges.{name}",
            )
        )
    llm = llm or open_client(
        settings.endpoint,
        merged(cfg.endpoints, endpoints_from_secrets(secrets)),
        secrets=secrets,
        label=f"judge {name}",
    )
    warning = llm.model_warning()
    items = judge_items(study, llm, settings)
    unique = list({i.key: i for i in items}.values())
    folder = study.folder / "judges"
    checkpoint = Checkpoint(folder / f"{name}.raw.jsonl")
    summary = run_batch(unique, _ask(llm, settings), checkpoint, llm.endpoint.max_concurrency, progress)
    rows, unparseable = _rows(items, checkpoint)
    csv_path = folder / f"{name}.csv"
    columns = RATING_COLUMNS if cfg.protocol.kind == "rating" else PAIR_COLUMNS
    atomic_write_text(csv_path, _csv(rows, columns))
    extra = {"warnings": [warning]} if warning else {}
    return JudgeReport(summary, csv_path, checkpoint.path, len(rows), unparseable, len(items), extra)


def _rows(items: list[JudgeItem], checkpoint: Checkpoint) -> tuple[list[dict], int]:
    rows, unparseable = [], 0
    for item in items:
        record = checkpoint.records.get(item.key) or {}
        if record.get("status") == "unparseable":
            unparseable += 1
        label = record.get("label") if not record.get("error") else None
        if label is None:
            continue
        base = {"situation_id": item.situation_id, "criterion": item.criterion, "label": label, "sample": item.sample}
        if item.kind == "rating":
            rows.append({**base, "system": item.system, "score": item.labels.index(label) + 1})
        else:
            winner = {"A": item.system_a, "B": item.system_b}.get(label, TIE)
            rows.append({**base, "system_a": item.system_a, "system_b": item.system_b, "winner": winner})
    return rows, unparseable


def _csv(rows: list[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()
