"""The HEDS sections that read the stored answers as well: 3.1 sample, 3.2 evaluators, 3.3 design (the same
tables and funnel as the exports; the assembly: infact/results/reports/datasheet.py)."""

from __future__ import annotations

import pandas as pd

from infact.results.quality import funnel
from infact.results.reports.datasheet_fields import PROTOCOL_WORDS, field, quoted


def sample(study, t) -> list[dict]:
    s = study.config.sampling
    frames = [t.ratings, *t.compare.values()]
    used = {str(v) for f in frames if f is not None and "situation_id" in f.columns for v in f["situation_id"].dropna()}
    return [
        field(
            "3.1.1",
            "Number of evaluation items (situations) in the pool",
            len(study.situations),
            "the study's situation pool",
        ),
        field(
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
        field(
            "3.1.3",
            "Items evaluated so far",
            len(used),
            "ratings.csv / pairwise.csv / best_worst.csv / "
            "annotations.csv: distinct situation_id (dialog_id for whole conversations)",
        ),
        field(
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


def evaluators(study, t) -> list[dict]:
    cfg = study.config
    platform = cfg.platform.kind
    counts = evaluator_counts(t)
    return [
        field(
            "3.2.1",
            "Number of evaluators (recruited, screened out, excluded with reasons, included)",
            counts,
            "participants.csv (stage, decision, flags) and visits.csv: the dashboard's funnel",
        ),
        field(
            "3.2.2",
            "Type of evaluators",
            f"crowdworkers on {platform}" if platform != "none" else None,
            "study.toml [platform] kind",
            "who the participants were (no platform configured)",
        ),
        field(
            "3.2.3",
            "How evaluators were recruited",
            {"platform": platform, "require_id": cfg.platform.require_id} if platform != "none" else None,
            "study.toml [platform]",
            "how participants were invited",
        ),
        field(
            "3.2.4",
            "Training and instructions given",
            {"instructions": quoted(cfg.texts.instructions), "onboarding_gold_pairs": cfg.protocol.onboarding},
            "study.toml [texts] instructions, [protocol] onboarding",
        ),
        field(
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


def _checks(cfg) -> dict:
    """3.3.4: the attention and gold checks, and what a failed one does."""
    ac, p = cfg.attention_check, cfg.protocol
    return {
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


def design(study, t) -> list[dict]:
    cfg = study.config
    p = cfg.protocol
    checks = _checks(cfg)
    return [
        field(
            "3.3.1",
            "Protocol (how responses are judged)",
            {
                "kind": p.kind,
                "description": PROTOCOL_WORDS.get(p.kind),
                "order_of_steps": list(cfg.flow.steps or []) or None,
            },
            "study.toml [protocol], [flow]",
        ),
        field(
            "3.3.2",
            "Items per evaluator and evaluations per item",
            {
                "situations_per_participant": cfg.study.situations_per_participant,
                "ratings_per_situation": cfg.assignment.ratings_per_situation,
            },
            "study.toml [study] situations_per_participant, [assignment] ratings_per_situation",
        ),
        field(
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
        field(
            "3.3.4",
            "Attention and gold checks, and what a failed check does",
            checks,
            "study.toml [attention_check], [questionnaire] items with `expected`, [protocol] onboarding, [quality]",
        ),
        field(
            "3.3.5",
            "Time per evaluator (minutes, completed participants)",
            {"expected": cfg.study.expected_minutes, "measured": _minutes(t)},
            "study.toml expected_minutes; participants.csv total_seconds",
        ),
        field("3.3.6", "Payment", None, "—", "the pay per participant and hourly rate (not configured in INFACT)"),
        field(
            "3.3.7",
            "Where the evaluation took place",
            "online, in the evaluator's own browser (INFACT web app)",
            "INFACT",
        ),
        _stopping_field(study, t),
    ]


def _stopping_field(study, t) -> dict:
    return field(
        "3.3.8",
        "Stopping rule (declared before the study)",
        stopping_rule(study, t),
        "study.toml [monitoring]; its last change beside participants.csv's first started_at",
        "no stopping rule declared in [monitoring]: the sample size was whatever recruiting reached",
    )


def stopping_rule(study, t) -> dict | None:
    """3.3.8: the declared rule, and whether study.toml (where it is written) last changed before the first
    participant arrived: the evidence that the rule was declared in advance."""
    from datetime import UTC, datetime

    rule = study.config.monitoring
    if not rule.declared:
        return None
    path = study.folder / "study.toml"
    changed = datetime.fromtimestamp(path.stat().st_mtime, UTC) if path.exists() else None
    starts = pd.to_datetime(t.participants.get("started_at"), errors="coerce", utc=True, format="ISO8601")
    first = starts.min() if starts is not None and starts.notna().any() else None
    before = None if changed is None or first is None else bool(changed <= first)
    return {
        "rule": rule.describe(),
        "settings": rule.model_dump(),
        "method": (
            f"a finite-horizon boundary for the declared maximum of {rule.max_participants} participants "
            "(O'Brien–Fleming type), looked at after every vote; beyond the maximum nothing is settled anew"
            if rule.max_participants
            else "anytime-valid confidence sequences, looked at after every vote"
        )
        + " (docs/ranking.md)",
        "declared_in_advance": before,
        "study_toml_last_changed": changed.isoformat(timespec="seconds") if changed else None,
        "first_participant_started": first.isoformat() if first is not None else None,
    }
