"""What a researcher watches during a running study (Prolific and the like), as plain functions.

All take the dashboard's participant overview (infact.results.dashboard.data) or the
funnel progress, so every list agrees with the funnel's figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import pandas as pd

from infact.results.quality.funnel import Progress, bots_counted
from infact.text.neutral import visible_controls

# Prolific reviews a study's estimated time against the median: warn when it is off by more.
ESTIMATE_TOO_SHORT = 1.25  # median above 125% of the estimate: participants are underpaid
ESTIMATE_TOO_LONG = 0.5  # median under half the estimate: the advertised time scares people off


def completions_over_time(progress: Mapping[str, Progress]) -> pd.DataFrame:
    """ended_at, outcome and the running count of completions (previews and simulated participants left out; bots
    too unless the store holds no person, as in the funnel)."""
    bots = bots_counted(progress)
    rows = sorted(
        (p.ended_at, p.outcome)
        for p in progress.values()
        if p.outcome and p.ended_at is not None and p.counted(bots) and not p.withdrawn
    )
    out = pd.DataFrame(rows, columns=["ended_at", "outcome"])
    out["completed"] = (out["outcome"] == "completed").cumsum()
    return out


def expected_time(expected_minutes: float, default: bool) -> str:
    """The study's expected time as a banner names it: the study's setting, or its default when not set."""
    if default:
        return (
            f"the study's expected time ({expected_minutes:g} min, the default: `[study] expected_minutes` is not set)"
        )
    return f"the study's expected time ({expected_minutes:g} min, `[study] expected_minutes`)"


def duration_check(progress: Mapping[str, Progress], expected_minutes: float, *, default: bool = False) -> dict:
    """People's median completion time against the study's expected time (`default`: not set in study.toml, the
    default), with a warning when off. Bots' simulated times are never counted."""
    minutes = pd.Series(
        [
            p.total_seconds / 60
            for p in progress.values()
            if p.outcome == "completed" and p.total_seconds is not None and p.person and not p.withdrawn
        ],
        dtype=float,
    )
    out = {
        "n": len(minutes),
        "median_minutes": float(minutes.median()) if len(minutes) else None,
        "expected_minutes": float(expected_minutes),
        "warning": None,
    }
    if not len(minutes):
        return out
    ratio = out["median_minutes"] / expected_minutes
    out["ratio"] = ratio
    if ratio > ESTIMATE_TOO_SHORT:
        out["warning"] = (
            f"Participants need {out['median_minutes']:.1f} min (median), {ratio:.0%} of "
            f"{expected_time(expected_minutes, default)}: raise `study.expected_minutes` and the pay on "
            "Prolific, or shorten the study (Prolific asks for fair pay for the real time)."
        )
    elif ratio < ESTIMATE_TOO_LONG:
        out["warning"] = (
            f"Participants finish in {out['median_minutes']:.1f} min (median), under half "
            f"{expected_time(expected_minutes, default)}: lower the estimate (a long estimate "
            "deters people, and it changes how many failed checks Prolific requires before a rejection)."
        )
    return out


def prolific_lists(overview: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Platform IDs to approve, to reject (with the reason) and to ask to return.

    Only participants with a platform ID (e.g. PROLIFIC_PID) and a finished session
    are listed; the action is the one quality.assess recommends.
    """
    has_id = overview[overview["platform_id"].notna() & (overview["platform_id"].astype(str) != "")]
    action = has_id["prolific_action"].astype(str)

    def pick(name: str) -> pd.DataFrame:
        rows = has_id[action == name]
        return pd.DataFrame(
            {
                "platform_id": rows["platform_id"].astype(str),
                "reason": rows["prolific_reason"].fillna("").astype(str),
                "participant": rows["participant"],
            }
        ).reset_index(drop=True)

    return {"approve": pick("approve"), "reject": pick("eligible_for_rejection"), "return": pick("ask_to_return")}


def participants_view(overview: pd.DataFrame, stages) -> pd.DataFrame:
    """The participant table as shown: the chosen stages, most recent activity first,
    flags and reasons as text."""
    shown = overview[overview["stage"].isin(list(stages))]
    shown = shown.sort_values("last_activity", ascending=False, na_position="last")
    return shown.assign(
        flags=shown["flags"].map(_flags_text),
        reasons=shown["reasons"].map(lambda r: "; ".join(r) if isinstance(r, (list, tuple)) else ""),
    )


def _flags_text(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(value) or "no flags"
    return "no flags" if value is None or value != value else str(value)


def exclusion_choices(overview: pd.DataFrame) -> dict[str, str]:
    """participant -> the label the exclude picker shows: platform ID, stage, decision, flags."""
    out = {}
    for row in overview.itertuples(index=False):
        who = (
            visible_controls(row.platform_id)
            if isinstance(row.platform_id, str) and row.platform_id
            else row.participant
        )
        decision = row.decision if isinstance(row.decision, str) else "not assessed"
        out[row.participant] = f"{who} · {row.stage.replace('_', ' ')} · {decision} · {_flags_text(row.flags)}"
    return out


def comments(progress: Mapping[str, Progress]) -> pd.DataFrame:
    """The questionnaire's free-text comments, newest first; the participant's text with its hidden controls shown
    as code points (text/neutral.py: a right-to-left override reverses nothing, a zero-width space is seen)."""
    rows = [
        (p.last_activity, p.platform_id, p.participant, visible_controls(p.comment))
        for p in progress.values()
        if p.comment and p.person
    ]
    out = pd.DataFrame(rows, columns=["at", "platform_id", "participant", "comment"])
    return out.sort_values("at", ascending=False).reset_index(drop=True)


def situation_overview(ratings: pd.DataFrame, study, criterion: str) -> pd.DataFrame:
    """Per situation × system: the last user turn, the response, mean rating, n and the
    raters' disagreement (standard deviation and range), most disputed first."""
    cols = ["situation_id", "system", "last_user_turn", "response", "n", "mean", "sd", "range"]
    if ratings.empty:
        return pd.DataFrame(columns=cols)
    r = ratings[(ratings["criterion"] == criterion) & ~ratings["is_attention_check"].astype(bool)]
    agg = r.groupby(["situation_id", "system"])["rating"].agg(n="size", mean="mean", sd="std", lo="min", hi="max")
    agg = agg.reset_index()
    agg["range"] = agg["hi"] - agg["lo"]
    texts = {s.situation_id: s for s in study.situations}
    agg["last_user_turn"] = agg["situation_id"].map(lambda sid: texts[sid].context[-1].text if sid in texts else "")
    agg["response"] = [
        texts[sid].responses.get(system, "") if sid in texts else ""
        for sid, system in zip(agg["situation_id"], agg["system"])
    ]
    return agg.sort_values(["sd", "n"], ascending=[False, False])[cols].reset_index(drop=True)


def set_aside_notes(problems: list[dict]) -> list[str]:
    """What the dashboard says about each file the store set aside (`Storage.problems()`):
    which file, what is wrong with it, where it went and what to do (Markdown)."""
    out = []
    for p in problems:
        moved = str(p.get("moved_to") or "")
        when = _quarantine_time(p.get("at"))
        out.append(
            f"**A participant file could not be read and was set aside**{when}: {p.get('reason') or p.get('file')}. "
            f"It was moved to `{moved}`; the study goes on without its records (they are not in the numbers, "
            f"tables or exports). **What to do:** restore `{p.get('file')}` from a backup (or repair it) into the "
            f"store's `shards/` folder — the dashboard reads it at the next refresh — then delete "
            f"`{moved}.why.json` to clear this message."
        )
    return out


def _quarantine_time(stamp) -> str:
    try:
        return f" on {datetime.strptime(str(stamp), '%Y%m%dT%H%M%S%fZ'):%Y-%m-%d %H:%M} UTC"
    except ValueError:
        return ""


def bots_note(progress: Mapping[str, Progress]) -> tuple[str, str] | None:
    """(level, text) of the dashboard's note on bot participants (`infact bots`), None when there are none: in a
    store without people the figures are the bots' (a try-out); beside people they are left out of every figure."""
    bots = sum(1 for p in progress.values() if p.bot and not p.preview)
    if not bots:
        return None
    if bots_counted(progress):
        return (
            "info",
            f"🤖 Every participant in this store is a bot ({bots}, `infact bots`): the figures and tables below are "
            "the bots' — a try-out of the study, not people's answers; `analyze` and `datasheet` leave them out "
            "unless --include-bots. `infact bots --remove` deletes them.",
        )
    return (
        "warning",
        f"🤖 {bots} bot participant(s) (`infact bots`) share this store with people: they are counted apart and "
        "left out of every figure and table here. `infact bots --remove` deletes them (nobody else's records).",
    )


def flagged_vs_excluded(overview: pd.DataFrame, flagged: set[str]) -> str | None:
    """Why the analysis's number of flagged participants differs from the *Excluded* card, None when they agree:
    the card counts completed participants only, the analysis leaves out every flagged one who answered."""
    if not flagged or overview.empty:
        return None
    rows = overview[overview["participant"].isin(flagged)]
    stages = rows["stage"].astype(str)
    completed = int((stages == "completed").sum())
    if completed == len(flagged):
        return None
    others = stages[stages != "completed"].value_counts()
    unfinished = len(flagged) - completed
    why = ", ".join(f"{stage.replace('_', ' ')}: {n}" for stage, n in others.items())
    return (
        f"The analysis leaves out {len(flagged)} flagged participant(s); the *Excluded* card counts the {completed} "
        f"of them who completed. The other {unfinished} did not complete ({why or 'not counted here'}) but had "
        "answered, so their answers are left out too."
    )
