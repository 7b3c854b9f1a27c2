"""The HEDS sections filled from study.toml and the situation files alone: 1 resources, 2 evaluated systems,
4 quality criteria, 5 ethics (the assembly: infact/results/reports/datasheet.py)."""

from __future__ import annotations

from collections import Counter

from infact.results.reports.datasheet_fields import field, quoted
from infact.study.conditions.overlay import changed_settings


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


def resources(study, t=None) -> list[dict]:
    files = list(study.config.study.situations)
    return [
        field("1.1", "Main reference (paper) for the experiment", None, "—", "cite the paper that reports this study"),
        field(
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
        field("1.3", "Contact for the experiment", None, "—", "name and e-mail of the responsible researcher"),
    ]


def systems(study, t=None) -> list[dict]:
    kind = study.config.protocol.kind
    dialog = kind in ("pairwise_dialog", "conversation")
    return [
        field(
            "2.1",
            "Type of input",
            "whole dialog seed or topic"
            if dialog
            else "a dialog context (turns between a user and a system) ending with a user turn",
            "protocol.kind",
        ),
        field(
            "2.2",
            "Type of output",
            "a whole conversation" if dialog else "the system's next turn in the dialog",
            "protocol.kind",
        ),
        field("2.3", "Task", "conversational recommendation / dialog response generation", "INFACT's study type"),
        field("2.4", "Input and output language(s)", None, "—", "the language(s) of the dialogs"),
        field(
            "2.5",
            "Evaluated systems and their provenance",
            _systems(study),
            "study.toml [study] systems; each situation's `source` (importer format, or `generated` with model "
            "and parameters)",
        ),
        *([_conditions(study, t)] if study.conditions else []),
    ]


def _conditions(study, t=None) -> dict:
    """A between-subjects study: each condition, what it changes (with its texts quoted) and who completed it."""
    done = None
    if t is not None and "condition" in t.participants.columns:
        completed = t.participants[t.participants["status"] == "completed"]
        done = completed["condition"].value_counts().to_dict()
    out = []
    for name, overlay in study.config.conditions.items():
        raw = overlay.model_dump(exclude_none=True)
        texts = study.under(name).config.texts
        out.append(
            {
                "name": name,
                "changes": changed_settings(raw),
                "systems": study.under(name).systems,
                "texts": {
                    k: quoted(getattr(texts, k))
                    for k in raw.get("texts", {})
                    if isinstance(getattr(texts, k, None), str)
                },
                **({"completed": int(done.get(name, 0))} if done is not None else {}),
            }
        )
    return field(
        "2.6",
        "Between-subjects conditions (each participant assigned one at consent, balanced by completions)",
        out,
        "study.toml [conditions.NAME]; participants.csv `condition`",
    )


def criteria(study, t=None) -> list[dict]:
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


def ethics(study, t=None) -> list[dict]:
    cfg = study.config
    return [
        field("5.1", "Ethics approval", None, "—", "the approving body and reference number"),
        field(
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
        field("5.3", "Special-category data", None, "—", "whether any special-category data were collected"),
        field("5.4", "Impact assessment", None, "—", "any data-protection or impact assessment"),
    ]
