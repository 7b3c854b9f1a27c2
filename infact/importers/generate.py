"""`python -m infact generate`: a system's response to every situation, written into the study.

The system is an endpoint (`--endpoint`, an OpenAI-compatible LLM), an HTTP system (`--url`),
an in-process callable (`--callable`), or — with none of these — the study's own
`[live.systems.NAME]` table. Each situation's context is sent as the chat contract's request
(the bot's turns as `assistant`), as in a live chat at that point of the dialog.

Resumable: every answer is appended to `generated/NAME.jsonl` in the study folder as it comes
(infact/llm/checkpoint.py), keyed by the situation and what the system is, so a killed run
continues where it stopped and a changed model or prompt asks again. Only when every call
has been made are the answers merged into the situations files (atomically), each response's
provenance under `source.generated.NAME`. A rerun asks only for the situations without a response of
NAME (the calls that failed, situations added since): existing responses are kept unless `force`,
which asks again for every situation whatever the checkpoint holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from infact.chat.client import CallableSystem, HttpSystem, SystemClient, connect, load_callable
from infact.chat.contract import Message, build_request
from infact.chat.llm_chat import LLMSystem
from infact.errors import ConfigError, InfactError, Problem, SystemFailure
from infact.llm.batch import BatchSummary, run_batch
from infact.llm.calls import utc_iso
from infact.llm.checkpoint import Checkpoint
from infact.llm.client import open_client
from infact.study.config import StudyConfig
from infact.study.endpoints import GENERATE_MAX_TOKENS, capped, endpoints_from_secrets, merged
from infact.study.loader import load_config
from infact.study.situations import Situation, read_situations, situation_paths, write_situations

CHECKPOINT_DIR = "generated"


@dataclass(frozen=True)
class Target:
    """The system that answers, and what identifies it (provenance and checkpoint keys)."""

    client: SystemClient
    identity: dict
    workers: int


@dataclass(frozen=True)
class _Job:
    key: str
    situation: Situation
    request: dict


def resolve_target(
    config: StudyConfig,
    name: str,
    *,
    endpoint: str | None = None,
    url: str | None = None,
    callable_spec: str | None = None,
    system_prompt: str | None = None,
    timeout_s: float = 60.0,
    workers: int = 4,
    secrets: Mapping | None = None,
) -> Target:
    if sum(x is not None for x in (endpoint, url, callable_spec)) > 1:
        raise InfactError("give one of --endpoint, --url or --callable")
    live = config.live.systems.get(name)
    if endpoint is None and url is None and callable_spec is None:
        if live is None:
            raise ConfigError(
                Problem(
                    "study.toml",
                    f"system '{name}' has no [live.systems.{name}] table: say how "
                    "to reach it with --endpoint NAME, --url URL or --callable "
                    "module:function",
                    key=f"live.systems.{name}",
                )
            )
        endpoint, url, callable_spec = live.endpoint, live.url, live.callable
        system_prompt = system_prompt or live.system_prompt
    if endpoint is not None:
        llm = open_client(
            endpoint, merged(config.endpoints, endpoints_from_secrets(secrets)), secrets=secrets, label=name
        )
        own = live.sampling if live is not None and live.endpoint == endpoint else None
        sampling = capped(own, llm.endpoint.sampling, GENERATE_MAX_TOKENS)
        client = LLMSystem(name, llm, system_prompt=system_prompt, sampling=sampling)
        prompt_id = hashlib.sha256((system_prompt or "").encode()).hexdigest()[:16] if system_prompt else None
        identity = {
            "via": "endpoint",
            "endpoint": endpoint,
            "model": llm.endpoint.model,
            "params": sampling.params(),
            **({"system_prompt_sha256": prompt_id} if prompt_id else {}),
        }
        return Target(client, identity, llm.endpoint.max_concurrency)
    if url is not None:
        return Target(HttpSystem(name, url, timeout_s), {"via": "url", "url": url}, workers)
    if live is not None and live.callable == callable_spec:
        return Target(connect(name, live), {"via": "callable", "callable": callable_spec}, workers)
    return Target(
        CallableSystem(name, load_callable(callable_spec or ""), timeout_s),
        {"via": "callable", "callable": callable_spec},
        workers,
    )


def request_for(study_id: str, situation: Situation) -> dict:
    messages = [Message("user" if t.role == "user" else "assistant", t.text) for t in situation.context]
    return build_request(study_id, situation.situation_id, sum(t.role == "user" for t in situation.context), messages)


def job_key(name: str, identity: dict, situation: Situation) -> str:
    what = json.dumps(
        {
            "system": name,
            "identity": identity,
            "situation": situation.situation_id,
            "context": [t.to_dict() for t in situation.context],
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(what.encode("utf-8")).hexdigest()[:32]


def _call(name: str, target: Target) -> Callable[[_Job], dict]:
    def call(job: _Job) -> dict:
        base = {"situation_id": job.situation.situation_id, "system": name, "at": utc_iso()}
        try:
            reply = target.client.reply(job.request)
        except SystemFailure as failure:
            call_record = getattr(failure, "call", None)
            return {**base, "error": failure.as_record(), **({"call": call_record.to_dict()} if call_record else {})}
        return {
            **base,
            "response": reply.text,
            "items": list(reply.items),
            "latency_ms": reply.latency_ms,
            **({"call": reply.extra["llm"]} if "llm" in reply.extra else {}),
        }

    return call


@dataclass
class GenerateReport:
    summary: BatchSummary
    written: dict[str, int]  # situations file → responses written
    checkpoint: Path
    errors: list[str]
    kept: int = 0  # situations that already had a response of the system (not asked again without force)
    warnings: list[str] = field(default_factory=list)


def generate(
    study: str | Path,
    name: str,
    target: Target | None = None,
    *,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **resolve,
) -> GenerateReport:
    study = Path(study)
    config = load_config(study)
    if config.protocol.kind == "pairwise_dialog":
        raise ConfigError(
            Problem(
                str(study / "study.toml"),
                "generate writes responses to situations; a "
                "pairwise_dialog study compares whole conversations (import them instead)",
                key="protocol.kind",
            )
        )
    paths = situation_paths(study, config.study.situations, str(study / "study.toml"))
    files: dict[Path, list[Situation]] = {}
    for path in paths:
        situations, problems = read_situations([path])
        if problems:
            raise InfactError(problems)
        files[path] = situations
    target = target or resolve_target(config, name, **resolve)
    llm = getattr(target.client, "llm", None)  # an endpoint system: is its model the server's?
    warnings = [w for w in [llm.model_warning()] if w] if llm is not None else []
    # Without --force a rerun asks only what is missing (the calls that failed, the situations added since);
    # the responses already there, generated or imported, are kept.
    todo = [s for ss in files.values() for s in ss if force or name not in s.responses]
    jobs = [_Job(job_key(name, target.identity, s), s, request_for(config.study.id, s)) for s in todo]
    checkpoint = Checkpoint(study / CHECKPOINT_DIR / f"{name}.jsonl")
    if force:  # regenerate everything: earlier answers in the checkpoint do not count (its file keeps them)
        for job in jobs:
            checkpoint.records.pop(job.key, None)
    summary = run_batch(jobs, _call(name, target), checkpoint, target.workers, progress)
    written = {}
    for path, situations in files.items():
        out, n = _merged(situations, name, jobs, checkpoint, target.identity)
        if n:
            write_situations(path, out)
        written[str(path)] = n
    errors = [
        f"{r['situation_id']}: {r['error']['kind']}: {r['error']['detail']}"
        for r in (checkpoint.records[k] for k in summary.failed_keys)
    ]
    kept = sum(len(ss) for ss in files.values()) - len(todo)
    return GenerateReport(summary, written, checkpoint.path, errors, kept, warnings)


def _merged(
    situations: list[Situation], name: str, jobs: list[_Job], checkpoint: Checkpoint, identity: dict
) -> tuple[list[Situation], int]:
    by_id = {j.situation.situation_id: checkpoint.records.get(j.key) for j in jobs}
    out, n = [], 0
    for s in situations:
        record = by_id.get(s.situation_id)
        if record is None or record.get("error"):
            out.append(s)
            continue
        call = record.get("call") or {}
        provenance = {
            "by": "infact generate",
            **identity,
            "at": record["at"],
            "latency_ms": record.get("latency_ms"),
            **{
                k: call[k]
                for k in ("prompt_hash", "prompt_tokens", "completion_tokens", "response_model", "finish_reason")
                if call.get(k) is not None
            },
        }
        generated = {**(s.source.get("generated") or {}), name: provenance}
        out.append(
            replace(s, responses={**s.responses, name: record["response"]}, source={**s.source, "generated": generated})
        )
        n += 1
    return out, n


def missing_generated(folder: str | Path, config: StudyConfig) -> list[Problem]:
    """For `validate`: a system `generate` wrote (a `source.generated.NAME` on some situation) that lacks a
    response in other situations of the same file (its failed calls), one warning per system and file."""
    folder = Path(folder)
    problems = []
    try:
        paths = situation_paths(folder, config.study.situations, str(folder / "study.toml"))
    except InfactError:  # validate reports the files' own problems
        return []
    for path in paths:
        situations, _ = read_situations([path])
        generated = {n for s in situations for n in (s.source.get("generated") or {})}
        for name in sorted(generated):
            lacking = [s.situation_id for s in situations if name not in s.responses]
            if lacking:
                problems.append(
                    Problem(
                        str(path),
                        f"system '{name}' was generated for {len(situations) - len(lacking)} of {len(situations)} "
                        f"situations; {len(lacking)} lack a response (e.g. {', '.join(lacking[:3])}): run "
                        f"`python -m infact generate --study {folder} --system {name}` again to ask only for those",
                        key=name,
                    )
                )
    return problems
