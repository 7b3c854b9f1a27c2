"""The quality checks, one small function per flag.

Each check takes the same `Evidence` (what is known about every participant) and
returns {participant: reason} for the participants it flags. `CHECKS` lists them
in the order their flags appear in a report. `infact.results.quality.assess`
runs them, adds the researcher's manual decisions and the Prolific action.

Evidence can be built from export tables (ratings.csv …) or, for the live
dashboard, from records one at a time (`situation_summary`): both give the same
`situations` table, so the flags agree wherever they are computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

import pandas as pd

from infact.values import bool_column, parse_bool

DONE = ("completed", "screened_out")  # only finished sessions are judged on speed
MIN_PAGE_SECONDS = 0.5  # a 0 s page (refresh artefact) would make the RSI infinite
SITUATION_COLUMNS = ["participant", "step_index", "n_systems", "straight", "seconds"]


@dataclass
class Evidence:
    participants: pd.DataFrame   # one row per participant (index: participant), status, total_seconds, …
    situations: pd.DataFrame     # SITUATION_COLUMNS: one row per rated (non-check) situation
    rsi: dict[str, float]        # relative speed index of finished participants
    median_total: float          # median total seconds of completed participants (NaN: none)
    cfg: object                  # QualityConfig


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
    return pd.DataFrame({
        "n_systems": r.groupby(keys)["system"].nunique(),
        "straight": per_crit,
        "seconds": r.groupby(keys)["seconds"].first(),
    }).reset_index()[SITUATION_COLUMNS]


def situation_summary(record: Mapping) -> dict | None:
    """The same row as `situations_from_ratings` gives, from one stored situation record."""
    if record.get("kind") != "situation" or record.get("attention_check"):
        return None
    responses = record.get("responses") or []
    criteria = {c for resp in responses for c in resp.get("ratings", {})}
    straight = all(len({resp["ratings"].get(c) for resp in responses}) == 1 for c in criteria)
    return {"participant": record["participant"], "step_index": record.get("index"),
            "n_systems": len({resp["system"] for resp in responses}), "straight": straight,
            "seconds": record.get("seconds")}


def prepared_participants(participants: pd.DataFrame) -> pd.DataFrame:
    """Non-preview participants, optional columns added, indexed by participant."""
    p = participants.copy()
    for col in ("total_seconds", "attention_passed", "questionnaire_attention_passed", "preview",
                "situations_answered"):
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
    return dict.fromkeys(p.index[_failed(p["attention_passed"])],
                         "failed the instructed-response situation (attention check)")


def questionnaire_attention_failed(ev: Evidence) -> dict[str, str]:
    p = ev.participants
    return dict.fromkeys(p.index[_failed(p["questionnaire_attention_passed"])],
                         "failed the instructed-response questionnaire item")


def straightliner(ev: Evidence) -> dict[str, str]:
    cfg = ev.cfg
    judged = ev.situations[(ev.situations["n_systems"] >= 2)
                           & ev.situations["participant"].isin(ev.participants.index)]
    per = judged.groupby("participant")["straight"].agg(["sum", "size"])
    per = per[(per["size"] >= cfg.straightline_min_situations) & (per["sum"] / per["size"] >= cfg.straightline_share)]
    return {pid: f"rated all responses identically in {int(n)} of {int(of)} situations "
                 f"(threshold {_pct(cfg.straightline_share)})" for pid, n, of in zip(per.index, per["sum"], per["size"])}


def speeder_rsi(ev: Evidence) -> dict[str, str]:
    cfg = ev.cfg
    done = set(ev.participants.index[ev.participants["status"].isin(DONE)])
    return {pid: f"relative speed index {r:.2f}: {r:.1f} times faster than the median participant "
                 f"(threshold {cfg.rsi_threshold:g})"
            for pid, r in ev.rsi.items() if pid in done and pd.notna(r) and r > cfg.rsi_threshold}


def speeder_total_time(ev: Evidence) -> dict[str, str]:
    cfg, median = ev.cfg, ev.median_total
    if cfg.min_total_fraction_of_median <= 0 or pd.isna(median):
        return {}
    p = ev.participants
    fast = p[(p["status"] == "completed") & (p["total_seconds"] < cfg.min_total_fraction_of_median * median)]
    return {pid: f"finished in {total / 60:.1f} min, under {_pct(cfg.min_total_fraction_of_median)} "
                 f"of the median {median / 60:.1f} min" for pid, total in fast["total_seconds"].items()}


def fast_situations(ev: Evidence) -> dict[str, str]:
    cfg = ev.cfg
    done = ev.participants.index[ev.participants["status"].isin(DONE)]
    timed = ev.situations[ev.situations["participant"].isin(done) & ev.situations["seconds"].notna()]
    fast = timed["seconds"].astype(float) < cfg.min_situation_seconds
    per = fast.groupby(timed["participant"]).agg(["sum", "size"])
    per = per[per["sum"] / per["size"] > cfg.max_fast_situations_share]
    return {pid: f"answered {int(n)} of {int(of)} situations in under "
                 f"{cfg.min_situation_seconds:g} s (threshold {_pct(cfg.max_fast_situations_share)})"
            for pid, n, of in zip(per.index, per["sum"], per["size"])}


CHECKS: tuple[tuple[str, Callable[[Evidence], dict[str, str]]], ...] = (
    ("withdrawn", withdrawn),
    ("incomplete", incomplete),
    ("attention_failed", attention_failed),
    ("questionnaire_attention_failed", questionnaire_attention_failed),
    ("straightliner", straightliner),
    ("speeder_rsi", speeder_rsi),
    ("speeder_total_time", speeder_total_time),
    ("fast_situations", fast_situations),
)
EXPLICIT_CHECKS = ("attention_failed", "questionnaire_attention_failed")  # count towards Prolific rejection
