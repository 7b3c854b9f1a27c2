"""A Human Evaluation Datasheet (HEDS 3.0, Belz & Thomson 2024) filled from study.toml and the collected data.

HEDS describes one human evaluation experiment in five sections: 1 main reference and
supplementary resources; 2 evaluated system(s); 3 sample of system outputs (3.1), evaluators
(3.2) and experimental design (3.3); 4 definition and operationalisation of each quality
criterion (one block per criterion); 5 ethics. Every field here is a fact INFACT holds: the
settings, the situation files and the stored answers (the same tables and funnel as the
exports). A field the study cannot fill is listed in `missing` with what would fill it —
never guessed. `datasheet()` returns the JSON; `render_markdown()` the same as Markdown.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import UTC, datetime

import pandas as pd

from infact.results.quality import funnel
from infact.results.reports import ledger_report

HEDS_VERSION = "3.0"
SECTIONS = {
    "1": "Main reference and supplementary resources",
    "2": "Evaluated system(s)",
    "3.1": "Sample of system outputs",
    "3.2": "Evaluators",
    "3.3": "Experimental design",
    "4": "Definition and operationalisation of quality criteria",
    "5": "Ethics",
}
PROTOCOL_WORDS = {
    "rating": "each response rated on a labelled scale (absolute rating)",
    "pairwise": "two systems' responses side by side, a forced choice of the better (relative, pairwise)",
    "pairwise_dialog": "two systems' whole conversations side by side, a choice of the better (ACUTE-Eval style)",
    "best_worst": "several systems' responses, a choice of the best and the worst (best–worst scaling)",
    "conversation": "whole conversations annotated turn by turn and as a whole (aspects on labelled scales)",
}


def _field(fid: str, question: str, value, source: str, fill: str = "") -> dict:
    return {
        "id": fid,
        "question": question,
        "value": value,
        "source": source,
        **(
            {"missing": fill or "not recorded by INFACT; add it to the datasheet by hand"}
            if value in (None, "", [])
            else {}
        ),
    }


def quoted(text: str | None) -> dict | None:
    """A participant-facing text quoted verbatim with its SHA-256, so a reader can check it is the one shown."""
    if not text:
        return None
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "text": text}


def _systems(study) -> list[dict]:
    out = []
    for name in study.systems:
        formats = Counter(
            str((s.source or {}).get("format")) for s in study.situations if (s.source or {}).get("format")
        )
        generated = [((s.source or {}).get("generated") or {}).get(name) for s in study.situations]
        generated = [g for g in generated if g]
        gen = None
        if generated:
            keep = (
                "by",
                "endpoint",
                "model",
                "base_url",
                "sampling",
                "temperature",
                "max_tokens",
                "seed",
                "prompt_sha256",
            )
            gen = {k: generated[0][k] for k in keep if k in generated[0]}
            gen["responses"] = len(generated)
        answered = sum(1 for s in study.situations if name in s.responses or name in s.conversations)
        out.append(
            {
                "name": name,
                "responses_in_sample": answered,
                "provenance": ({"generated": gen} if gen else {"imported": dict(formats)} if formats else None),
            }
        )
    return out


def _section1(study) -> list[dict]:
    files = list(study.config.study.situations)
    return [
        _field("1.1", "Main reference (paper) for the experiment", None, "—", "cite the paper that reports this study"),
        _field(
            "1.2",
            "Supplementary resources (system outputs, evaluation tool)",
            {
                "study_folder": study.folder.name,
                "situation_files": files,
                "dataset_version": study.dataset_version,
                "tool": "INFACT (python -m infact)",
            },
            "study.toml [study] situations; the files' content hash",
        ),
        _field("1.3", "Contact for the experiment", None, "—", "name and e-mail of the responsible researcher"),
    ]


def _section2(study) -> list[dict]:
    kind = study.config.protocol.kind
    dialog = kind in ("pairwise_dialog", "conversation")
    return [
        _field(
            "2.1",
            "Type of input",
            "whole dialog seed or topic"
            if dialog
            else "a dialog context (turns between a user and a system) ending with a user turn",
            "protocol.kind",
        ),
        _field(
            "2.2",
            "Type of output",
            "a whole conversation" if dialog else "the system's next turn in the dialog",
            "protocol.kind",
        ),
        _field("2.3", "Task", "conversational recommendation / dialog response generation", "INFACT's study type"),
        _field("2.4", "Input and output language(s)", None, "—", "the language(s) of the dialogs"),
        _field(
            "2.5",
            "Evaluated systems and their provenance",
            _systems(study),
            "study.toml [study] systems; each situation's `source` (importer format, or `generated` with model "
            "and parameters)",
        ),
    ]


def _section31(study, t) -> list[dict]:
    s = study.config.sampling
    frames = [t.ratings, *t.compare.values()]
    used = {str(v) for f in frames if f is not None and "situation_id" in f.columns for v in f["situation_id"].dropna()}
    return [
        _field(
            "3.1.1",
            "Number of evaluation items (situations) in the pool",
            len(study.situations),
            "the study's situation pool",
        ),
        _field(
            "3.1.2",
            "How the items were selected",
            {
                "mode": s.mode,
                "size": s.size,
                "seed": s.seed,
                "stratify": s.stratify,
                "pool_counts": dict(study.pool_counts),
            },
            "study.toml [sampling]; the loader's pool counts",
        ),
        _field(
            "3.1.3",
            "Items evaluated so far",
            len(used),
            "ratings.csv / pairwise.csv / best_worst.csv / "
            "annotations.csv: distinct situation_id (dialog_id for whole conversations)",
        ),
        _field(
            "3.1.4",
            "Statistical power / sample-size calculation",
            None,
            "—",
            "run `python -m infact plan` and quote its answer",
        ),
    ]


def evaluator_counts(t) -> dict:
    """The funnel's figures, computed from participants.csv's own columns (stage, consented, decision, flags)."""
    counts = funnel.funnel_counts(t.participants, funnel.visits_became(t.visits) if t.visits is not None else None)
    reasons = funnel.exclusion_reasons(t.participants) if "decision" in t.participants else pd.DataFrame()
    return {**counts, "exclusion_reasons": {str(r.flag): int(r.participants) for r in reasons.itertuples()}}


def demographics_summary(t) -> dict:
    """Per demographic question, how many included participants gave each answer."""
    d = t.demographics
    if d is None or d.empty or "item" not in d.columns:
        return {}
    included = set(t.participants.loc[~t.participants["excluded"].astype(bool), "participant"])
    d = d[d["participant"].isin(included)]
    return {str(item): {str(k): int(v) for k, v in g["answer"].value_counts().items()} for item, g in d.groupby("item")}


def _section32(study, t) -> list[dict]:
    cfg = study.config
    platform = cfg.platform.kind
    counts = evaluator_counts(t)
    return [
        _field(
            "3.2.1",
            "Number of evaluators (recruited, screened out, excluded with reasons, included)",
            counts,
            "participants.csv (stage, decision, flags) and visits.csv: the dashboard's funnel",
        ),
        _field(
            "3.2.2",
            "Type of evaluators",
            f"crowdworkers on {platform}" if platform != "none" else None,
            "study.toml [platform] kind",
            "who the participants were (no platform configured)",
        ),
        _field(
            "3.2.3",
            "How evaluators were recruited",
            {"platform": platform, "require_id": cfg.platform.require_id} if platform != "none" else None,
            "study.toml [platform]",
            "how participants were invited",
        ),
        _field(
            "3.2.4",
            "Training and instructions given",
            {"instructions": quoted(cfg.texts.instructions), "onboarding_gold_pairs": cfg.protocol.onboarding},
            "study.toml [texts] instructions, [protocol] onboarding",
        ),
        _field(
            "3.2.5",
            "Evaluator characteristics (demographics of included participants)",
            demographics_summary(t),
            "demographics.csv, included participants only",
            "no demographic answers collected yet",
        ),
    ]


def _minutes(t) -> dict | None:
    sec = (
        pd.to_numeric(t.participants.get("total_seconds"), errors="coerce").dropna()
        if "total_seconds" in t.participants
        else pd.Series(dtype=float)
    )
    if sec.empty:
        return None
    return {
        "median": round(float(sec.median()) / 60, 2),
        "q1": round(float(sec.quantile(0.25)) / 60, 2),
        "q3": round(float(sec.quantile(0.75)) / 60, 2),
        "n": int(len(sec)),
    }


def _section33(study, t) -> list[dict]:
    cfg = study.config
    ac, p = cfg.attention_check, cfg.protocol
    checks = {
        "attention_check": {
            "enabled": ac.enabled,
            "positions": list(ac.positions),
            "text": ac.text if p.kind == "rating" else p.attention_text,
            "passes": list(ac.expected) if p.kind == "rating" else "choosing it",
        }
        if ac.enabled
        else None,
        "questionnaire_attention_items": [i.id for i in cfg.questionnaire.items if i.expected],
        "onboarding": {"file": p.onboarding, "threshold": p.onboarding_threshold} if p.onboarding else None,
        "on_fail": cfg.quality.on_attention_fail,
        "quality_flags": cfg.quality.model_dump(),
    }
    return [
        _field(
            "3.3.1",
            "Protocol (how responses are judged)",
            {
                "kind": p.kind,
                "description": PROTOCOL_WORDS.get(p.kind),
                "order_of_steps": list(cfg.flow.steps or []) or None,
            },
            "study.toml [protocol], [flow]",
        ),
        _field(
            "3.3.2",
            "Items per evaluator and evaluations per item",
            {
                "situations_per_participant": cfg.study.situations_per_participant,
                "ratings_per_situation": cfg.assignment.ratings_per_situation,
            },
            "study.toml [study] situations_per_participant, [assignment] ratings_per_situation",
        ),
        _field(
            "3.3.3",
            "Assignment and randomisation",
            {
                "assignment": "balanced: each participant gets the least-evaluated situations first; an unfinished "
                f"participant's situations are released after {cfg.assignment.lease_minutes} minutes",
                "pairs": p.pairs if p.kind in ("pairwise", "pairwise_dialog") else None,
                "order": "situations in random order; responses (or left/right sides) in random order, stored "
                "with every answer",
            },
            "INFACT's assignment; study.toml [assignment], [protocol] pairs",
        ),
        _field(
            "3.3.4",
            "Attention and gold checks, and what a failed check does",
            checks,
            "study.toml [attention_check], [questionnaire] items with `expected`, [protocol] onboarding, [quality]",
        ),
        _field(
            "3.3.5",
            "Time per evaluator (minutes, completed participants)",
            {"expected": cfg.study.expected_minutes, "measured": _minutes(t)},
            "study.toml expected_minutes; participants.csv total_seconds",
        ),
        _field("3.3.6", "Payment", None, "—", "the pay per participant and hourly rate (not configured in INFACT)"),
        _field(
            "3.3.7",
            "Where the evaluation took place",
            "online, in the evaluator's own browser (INFACT web app)",
            "INFACT",
        ),
    ]


def _criteria(study) -> list[dict]:
    cfg, p = study.config, study.config.protocol
    if p.kind == "conversation":
        return [
            {
                "name": a.id,
                "level": a.level,
                "question": a.question,
                "scale": list(a.labels),
                "form": f"{len(a.labels)}-point labelled scale, starting empty",
            }
            for a in cfg.aspects
        ]
    out = []
    for c in cfg.criteria:
        if p.kind == "rating":
            item = {
                "question": c.question,
                "scale": list(cfg.scale.labels),
                "form": f"{len(cfg.scale.labels)}-point labelled rating scale per response, starting empty",
            }
        else:
            options = ["A", "B"] + [p.tie_label] * p.allow_tie + [p.both_bad_label] * p.allow_both_bad
            if p.kind == "best_worst":
                options = ["best", "worst"]
            item = {
                "question": p.question.replace("{criterion}", c.id),
                "options": options,
                "form": "forced choice"
                + (" with a tie option" if p.allow_tie and p.kind != "best_worst" else "")
                + (" and a both-bad option" if p.allow_both_bad and p.kind != "best_worst" else ""),
                "justification": p.justification,
            }
        out.append({"name": c.id, "what_is_evaluated": "the system's output in the context shown", **item})
    return out


def _section5(study) -> list[dict]:
    cfg = study.config
    return [
        _field("5.1", "Ethics approval", None, "—", "the approving body and reference number"),
        _field(
            "5.2",
            "Personal data collected, and how it is handled",
            {
                "privacy_statement": quoted(cfg.texts.privacy),
                "terms": quoted(cfg.texts.terms),
                "consent_label": quoted(cfg.texts.consent),
                "stored": "answers, what was shown, order and timing; the platform ID when arriving from a platform",
                "delete_on_withdraw": cfg.study.delete_on_withdraw,
            },
            "study.toml [texts] privacy, terms, consent; [study] delete_on_withdraw",
        ),
        _field("5.3", "Special-category data", None, "—", "whether any special-category data were collected"),
        _field("5.4", "Impact assessment", None, "—", "any data-protection or impact assessment"),
    ]


def datasheet(study, t, *, now: datetime | None = None) -> dict:
    """HEDS 3.0 as JSON-ready data from a loaded study and its collected tables (results.export.collect)."""
    sections = {
        "1": _section1(study),
        "2": _section2(study) + ledger_report.datasheet_fields(study, t),  # the ledger: its own module
        "3.1": _section31(study, t),
        "3.2": _section32(study, t),
        "3.3": _section33(study, t),
        "4": _criteria(study),
        "5": _section5(study),
    }
    missing = [
        f"{f['id']} {f['question']}: {f['missing']}"
        for key, fields in sections.items()
        if key != "4"
        for f in fields
        if "missing" in f
    ]
    return {
        "heds_version": HEDS_VERSION,
        "study": study.id,
        "title": study.config.study.title,
        "written_at": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
        "sections": {k: {"title": SECTIONS[k], ("criteria" if k == "4" else "fields"): v} for k, v in sections.items()},
        "missing": missing,
    }


# --------------------------------------------------------------------------- Markdown


def _value_lines(value, indent: int = 1) -> list[str]:
    pad = "  " * indent
    if isinstance(value, dict) and set(value) == {"sha256", "text"}:
        quote = "\n".join(f"{pad}> {line}" for line in value["text"].strip().splitlines())
        return [f"{pad}- SHA-256 `{value['sha256']}`, verbatim:", "", quote, ""]
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out += [f"{pad}- {k}:"] + _value_lines(v, indent + 1)
            else:
                out.append(f"{pad}- {k}: {'–' if v in (None, [], {}) else v}")
        return out
    if isinstance(value, list):
        out = []
        for v in value:
            out += [f"{pad}-"] + _value_lines(v, indent + 1) if isinstance(v, dict) else [f"{pad}- {v}"]
        return out
    return [f"{pad}- {value}"]


def render_markdown(sheet: dict) -> str:
    lines = [
        f"# Human Evaluation Datasheet (HEDS {sheet['heds_version']}): {sheet['title']}",
        "",
        f"Study `{sheet['study']}`, written {sheet['written_at']} by INFACT from study.toml and the stored "
        "answers. Fields INFACT cannot fill are marked *missing* and listed at the end.",
        "",
    ]
    for key, sec in sheet["sections"].items():
        lines += [f"## {key} {sec['title']}", ""]
        if key == "4":
            for c in sec["criteria"]:
                lines += (
                    [f"### Criterion `{c['name']}`", ""]
                    + _value_lines({k: v for k, v in c.items() if k != "name"}, 0)
                    + [""]
                )
            continue
        for f in sec["fields"]:
            if "missing" in f:
                lines += [f"- **{f['id']} {f['question']}**: *missing* — {f['missing']}"]
            elif isinstance(f["value"], (dict, list)):
                lines += [f"- **{f['id']} {f['question']}** ({f['source']}):"] + _value_lines(f["value"])
            else:
                lines += [f"- **{f['id']} {f['question']}**: {f['value']} ({f['source']})"]
        lines.append("")
    lines += ["## Missing fields", ""] + [f"- {m}" for m in sheet["missing"]] + [""]
    return "\n".join(lines)
