"""The quality checks, one small function per flag.

Each check takes the same `Evidence` (what is known about every participant) and
returns {participant: reason} for the participants it flags. `CHECKS` lists them
in the order their flags appear in a report. `infact.results.quality.exclusion.assess`
runs them, adds the researcher's manual decisions and the Prolific action.

Evidence can be built from export tables (ratings.csv …) or, for the live
dashboard, from records one at a time (`situation_summary`): both give the same
`situations` table, so the flags agree wherever they are computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import pandas as pd

from infact.results.quality import typed as typed_checks
from infact.values import bool_column, parse_bool

DONE = ("completed", "screened_out")  # only finished sessions are judged on speed
MIN_PAGE_SECONDS = 0.5  # a 0 s page (refresh artefact) would make the RSI infinite
# `choice` is None for rated situations; for a comparison (pairwise / best–worst) step it is
# what the participant picked by *display position*, the same on every criterion (see
# `comparison_choice`), or "mixed".
# `unit`: "situation" (rated), "comparison" (pairwise / best–worst) or "conversation" (annotated; `straight`:
# every turn-level aspect got one value on every annotated turn, see `uniform_turns`).
SITUATION_COLUMNS = ["participant", "step_index", "n_systems", "straight", "seconds", "choice", "unit"]
COMPARISON_KINDS = ("pairwise", "best_worst")
COMPARISON_RECORDS = (*COMPARISON_KINDS, "pairwise_dialog")  # dialog-level votes share pairwise.csv
MIXED = "mixed"


@dataclass
class Evidence:
    participants: pd.DataFrame  # one row per participant (index: participant), status, total_seconds, …
    situations: pd.DataFrame  # SITUATION_COLUMNS: one row per rated (non-check) situation
    rsi: dict[str, float]  # relative speed index of finished participants
    median_total: float  # median total seconds of completed participants (NaN: none)
    cfg: object  # QualityConfig
    typed: pd.DataFrame | None = None  # typed answers with their counts (infact/results/quality/typed.py)


def _pct(x: float) -> str:
    return f"{x:.0%}"


# ---------------------------------------------------------------- evidence


def relative_speed_index(steps: pd.DataFrame, participants: Iterable[str]) -> dict[str, float]:
    """Leiner (2019): mean over a participant's pages of median page time / own page time."""
    who = set(participants)
    s = steps[steps["participant"].isin(who) & steps["seconds"].notna()].copy()
    if s.empty:
        return {}
    s["seconds"] = s["seconds"].astype(float).clip(lower=MIN_PAGE_SECONDS)
    median = s.groupby("step")["seconds"].median()
    s["factor"] = s["step"].map(median) / s["seconds"]
    return s.groupby("participant")["factor"].mean().to_dict()


def situations_from_ratings(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per participant × rated (non-check) situation, from a ratings table."""
    r = ratings
    if "is_attention_check" in r:
        r = r[~bool_column(r["is_attention_check"])]
    if r.empty:
        return pd.DataFrame(columns=SITUATION_COLUMNS)
    keys = ["participant", "step_index"]
    per_crit = r.groupby(keys + ["criterion"])["rating"].nunique().eq(1).groupby(level=[0, 1]).all()
    return pd.DataFrame(
        {
            "n_systems": r.groupby(keys)["system"].nunique(),
            "straight": per_crit,
            "seconds": r.groupby(keys)["seconds"].first(),
            "choice": None,
            "unit": "situation",
        }
    ).reset_index()[SITUATION_COLUMNS]


def situations_from_comparisons(compare: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per participant × compared (non-check) step, from pairwise.csv / best_worst.csv
    (keys with or without `.csv`); the same rows `situation_summary` gives from the records."""
    frames = []
    for name, df in compare.items():
        kind = name.removesuffix(".csv")
        if kind == "annotations" and df is not None and not df.empty:  # conversation steps: their timing counts
            frames.append(_annotated_steps(df))
            continue
        if kind not in COMPARISON_KINDS or df is None or df.empty or "step_index" not in df:
            continue
        if kind == "pairwise":
            picked = [_pairwise_position(left, winner) for left, winner in zip(df["shown_left"], df["winner"])]
            n = 2
        else:
            shown = df["systems"].astype(str).str.split("|")
            picked = [_best_position(s, b) for s, b in zip(shown, df["best"])]
            n = shown.map(len)
        rows = pd.DataFrame(
            {
                "participant": df["participant"],
                "step_index": df["step_index"],
                "n_systems": n,
                "seconds": df["seconds"] if "seconds" in df else None,
                "picked": picked,
            }
        )
        keys = ["participant", "step_index"]
        per = rows.groupby(keys, sort=False).agg(
            n_systems=("n_systems", "first"), seconds=("seconds", "first"), choice=("picked", lambda v: _same(list(v)))
        )
        frames.append(per.reset_index().assign(straight=False, unit="comparison"))
    if not frames:
        return pd.DataFrame(columns=SITUATION_COLUMNS)
    return pd.concat(frames, ignore_index=True)[SITUATION_COLUMNS]


def _annotated_steps(df: pd.DataFrame) -> pd.DataFrame:
    """One row per participant × annotated (non-gold) conversation of annotations.csv: one system, so no
    straight-lining across systems, but `straight` when every turn was given the same values; its seconds
    count for the speed checks."""
    d = df[~df["is_gold"].map(lambda v: parse_bool(v) is True)] if "is_gold" in df else df
    keys = ["participant", "step_index"]
    per = d.groupby(keys, sort=False)["seconds"].first().reset_index()
    turns = d[d["level"].astype(str) == "turn"] if "level" in d else d.iloc[0:0]
    if len(turns):
        by_aspect = turns.groupby(keys + ["aspect"], sort=False).agg(
            values=("value", "nunique"), turns=("turn", "nunique")
        )
        uniform = by_aspect.groupby(level=[0, 1]).agg(
            same=("values", lambda v: bool((v == 1).all())), turns=("turns", "min")
        )
        straight = uniform["same"] & (uniform["turns"] >= 2)
        per["straight"] = [bool(straight.get((p, i), False)) for p, i in zip(per["participant"], per["step_index"])]
    else:
        per["straight"] = False
    return per.assign(n_systems=1, choice=None, unit="conversation")[SITUATION_COLUMNS]


def uniform_turns(turns: Mapping) -> bool:
    """Two or more annotated turns, and every turn-level aspect got the same value on all of them
    ({turn: {aspect: value}}, a conversation record's `annotations.turns`)."""
    answers = [t for t in turns.values() if isinstance(t, Mapping)]
    aspects = {a for t in answers for a in t}
    return len(answers) >= 2 and bool(aspects) and all(len({t.get(a) for t in answers}) == 1 for a in aspects)


def _pairwise_position(left: str, winner: str) -> str:
    return winner if winner in ("tie", "both_bad") else "left" if winner == left else "right"


def _best_position(shown: list[str], best: str) -> str:
    return f"best {shown.index(best) + 1}" if best in shown else MIXED


def _same(picks: list[str]) -> str:
    return picks[0] if len(set(picks)) == 1 else MIXED


def comparison_choice(record: Mapping) -> str:
    """What a comparison record's participant picked, by display position, on every criterion:
    pairwise "left" / "right" / "tie"; best–worst "best N" (N-th shown as best); else "mixed"."""
    shown = [r["system"] for r in record.get("responses") or record.get("conversations") or []]
    if record.get("kind") != "best_worst":
        picks = [_pairwise_position(shown[0], c) for c in (record.get("choices") or {}).values()]
    else:
        picks = [_best_position(shown, b) for b in (record.get("best") or {}).values()]
    return _same(picks) if picks else MIXED


def situation_summary(record: Mapping) -> dict | None:
    """The same row as `situations_from_ratings` (or `situations_from_comparisons`) gives,
    from one stored situation (or comparison) record."""
    if record.get("attention_check"):
        return None
    if record.get("kind") in COMPARISON_RECORDS:
        return {
            "participant": record["participant"],
            "step_index": record.get("index"),
            "n_systems": len(record.get("responses") or record.get("conversations") or []),
            "straight": False,
            "seconds": record.get("seconds"),
            "choice": comparison_choice(record),
            "unit": "comparison",
        }
    if record.get("kind") == "conversation":  # one system's whole conversation (see _annotated_steps)
        return {
            "participant": record["participant"],
            "step_index": record.get("index"),
            "n_systems": 1,
            "straight": uniform_turns((record.get("annotations") or {}).get("turns") or {}),
            "seconds": record.get("seconds"),
            "choice": None,
            "unit": "conversation",
        }
    if record.get("kind") != "situation":
        return None
    responses = record.get("responses") or []
    criteria = {c for resp in responses for c in resp.get("ratings", {})}
    straight = all(len({resp["ratings"].get(c) for resp in responses}) == 1 for c in criteria)
    return {
        "participant": record["participant"],
        "step_index": record.get("index"),
        "n_systems": len({resp["system"] for resp in responses}),
        "straight": straight,
        "seconds": record.get("seconds"),
        "choice": None,
        "unit": "situation",
    }


def prepared_participants(participants: pd.DataFrame) -> pd.DataFrame:
    """Non-preview participants, optional columns added, indexed by participant."""
    p = participants.copy()
    for col in (
        "total_seconds",
        "attention_passed",
        "questionnaire_attention_passed",
        "preview",
        "situations_answered",
    ):
        if col not in p:
            p[col] = None  # optional columns: older exports, studies without a questionnaire check
    p["total_seconds"] = pd.to_numeric(p["total_seconds"], errors="coerce")
    p = p[~bool_column(p["preview"])]
    return p.set_index("participant", drop=False)


def _failed(column: pd.Series) -> pd.Series:
    return column.map(lambda v: parse_bool(v) is False)


# ---------------------------------------------------------------- one function per flag


def withdrawn(ev: Evidence) -> dict[str, str]:
    p = ev.participants
    return dict.fromkeys(p.index[p["status"] == "withdrawn"], "withdrew from the study")


def incomplete(ev: Evidence) -> dict[str, str]:
    if ev.cfg.include_incomplete:
        return {}
    p = ev.participants
    out = {}
    for pid, n in p.loc[p["status"] == "in_progress", "situations_answered"].items():
        done = f" ({int(n)} situations answered)" if n is not None and pd.notna(n) else ""
        out[pid] = f"has not finished the study{done}"
    return out


def attention_failed(ev: Evidence) -> dict[str, str]:
    p = ev.participants
    out = {}
    for pid in p.index[_failed(p["attention_passed"])]:
        misses = p.at[pid, "gold_misses"] if "gold_misses" in p else None
        out[pid] = (
            f"failed the gold conversation (attention check): {misses}"
            if isinstance(misses, str) and misses
            else "failed the instructed-response situation (attention check)"
        )
    return out


def questionnaire_attention_failed(ev: Evidence) -> dict[str, str]:
    p = ev.participants
    return dict.fromkeys(
        p.index[_failed(p["questionnaire_attention_passed"])], "failed the instructed-response questionnaire item"
    )


def straightliner(ev: Evidence) -> dict[str, str]:
    cfg = ev.cfg
    judged = ev.situations[
        (ev.situations["n_systems"] >= 2)
        & (ev.situations["unit"] == "situation")
        & ev.situations["choice"].isna()
        & ev.situations["participant"].isin(ev.participants.index)
    ]
    per = judged.groupby("participant")["straight"].agg(["sum", "size"])
    per = per[(per["size"] >= cfg.straightline_min_situations) & (per["sum"] / per["size"] >= cfg.straightline_share)]
    return {
        pid: f"rated all responses identically in {int(n)} of {int(of)} situations "
        f"(threshold {_pct(cfg.straightline_share)})"
        for pid, n, of in zip(per.index, per["sum"], per["size"])
    }


def annotation_straightliner(ev: Evidence) -> dict[str, str]:
    """Conversation annotation: the same value on every turn (per turn-level aspect) in at least
    `annotation_straightline_share` of at least `annotation_straightline_min` annotated conversations
    (the gold conversation not counted)."""
    cfg = ev.cfg
    s = ev.situations
    judged = s[(s["unit"] == "conversation") & s["participant"].isin(ev.participants.index)]
    per = judged.groupby("participant")["straight"].agg(["sum", "size"])
    per = per[
        (per["size"] >= cfg.annotation_straightline_min)
        & (per["sum"] >= cfg.annotation_straightline_share * per["size"])
    ]
    return {
        pid: f"gave every turn the same answers in {int(n)} of {int(of)} conversations "
        f"(threshold {_pct(cfg.annotation_straightline_share)} of at least {cfg.annotation_straightline_min})"
        for pid, n, of in zip(per.index, per["sum"], per["size"])
    }


CHOICE_WORDS = {"left": "the left response (A)", "right": "the right response (B)", "tie": "“about the same”"}


def comparison_straightliner(ev: Evidence) -> dict[str, str]:
    """The pairwise analogue of `straightliner`: the same display position (always the left
    response, always the right, always "about the same"; in best–worst always the N-th shown
    as best) in at least `comparison_straightline_share` of at least
    `comparison_straightline_min` compared steps. Sides are shuffled per step, so an honest
    participant's picks fall on both sides whatever systems they prefer."""
    cfg = ev.cfg
    s = ev.situations
    judged = s[s["choice"].notna() & s["participant"].isin(ev.participants.index)]
    if judged.empty:
        return {}
    counts = judged.groupby(["participant", "choice"]).size().unstack(fill_value=0)
    top = counts.drop(columns=MIXED, errors="ignore")
    if top.empty:
        return {}
    n, best, of = top.max(axis=1), top.idxmax(axis=1), counts.sum(axis=1)
    hit = (of >= cfg.comparison_straightline_min) & (n >= cfg.comparison_straightline_share * of)
    return {
        pid: f"chose {_choice_words(best[pid])} in {int(n[pid])} of {int(of[pid])} comparisons "
        f"(threshold {_pct(cfg.comparison_straightline_share)} of at least {cfg.comparison_straightline_min})"
        for pid in hit.index[hit]
    }


def _choice_words(choice: str) -> str:
    if choice.startswith("best "):
        return f"the response shown {_ordinal(int(choice.split()[1]))} as the best"
    return CHOICE_WORDS.get(choice, choice)


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")


def speeder_rsi(ev: Evidence) -> dict[str, str]:
    cfg = ev.cfg
    done = set(ev.participants.index[ev.participants["status"].isin(DONE)])
    return {
        pid: f"relative speed index {r:.2f}: {r:.1f} times faster than the median participant "
        f"(threshold {cfg.rsi_threshold:g})"
        for pid, r in ev.rsi.items()
        if pid in done and pd.notna(r) and r > cfg.rsi_threshold
    }


def speeder_total_time(ev: Evidence) -> dict[str, str]:
    cfg, median = ev.cfg, ev.median_total
    if cfg.min_total_fraction_of_median <= 0 or pd.isna(median):
        return {}
    p = ev.participants
    fast = p[(p["status"] == "completed") & (p["total_seconds"] < cfg.min_total_fraction_of_median * median)]
    return {
        pid: f"finished in {total / 60:.1f} min, under {_pct(cfg.min_total_fraction_of_median)} "
        f"of the median {median / 60:.1f} min"
        for pid, total in fast["total_seconds"].items()
    }


def fast_situations(ev: Evidence) -> dict[str, str]:
    cfg = ev.cfg
    done = ev.participants.index[ev.participants["status"].isin(DONE)]
    timed = ev.situations[ev.situations["participant"].isin(done) & ev.situations["seconds"].notna()]
    fast = timed["seconds"].astype(float) < cfg.min_situation_seconds
    per = fast.groupby(timed["participant"]).agg(["sum", "size"])
    per = per[per["sum"] / per["size"] > cfg.max_fast_situations_share]
    return {
        pid: f"answered {int(n)} of {int(of)} situations in under "
        f"{cfg.min_situation_seconds:g} s (threshold {_pct(cfg.max_fast_situations_share)})"
        for pid, n, of in zip(per.index, per["sum"], per["size"])
    }


CHECKS: tuple[tuple[str, Callable[[Evidence], dict[str, str]]], ...] = (
    ("withdrawn", withdrawn),
    ("incomplete", incomplete),
    ("attention_failed", attention_failed),
    ("questionnaire_attention_failed", questionnaire_attention_failed),
    ("straightliner", straightliner),
    ("comparison_straightliner", comparison_straightliner),
    ("annotation_straightliner", annotation_straightliner),
    ("speeder_rsi", speeder_rsi),
    ("speeder_total_time", speeder_total_time),
    ("fast_situations", fast_situations),
    ("pasted_text", typed_checks.pasted_text),  # review only (typed_checks.REVIEW_ONLY)
    ("typed_too_fast", typed_checks.typed_too_fast),
)
REVIEW_ONLY = typed_checks.REVIEW_ONLY  # listed for a person to review: never exclude, never count towards rejection
EXPLICIT_CHECKS = ("attention_failed", "questionnaire_attention_failed")  # count towards Prolific rejection
