"""The dashboard's Situations section for comparison studies: each situation's texts beside
its votes and how much the raters disagree (the pairwise / best–worst counterpart of
running_study.situation_overview for ratings).

Pairwise (response or dialog level): one row per situation × pair of systems with the votes
for each side, the ties and the majority's share; 0.5 means the raters split evenly, 1.0
that they all agreed. Best–worst: one row per situation × system with how often it was
shown, chosen best and chosen worst. The most disputed come first.
"""

from __future__ import annotations

import pandas as pd

PAIR_COLUMNS = [
    "situation_id",
    "system_a",
    "system_b",
    "last_user_turn",
    "response_a",
    "response_b",
    "n",
    "wins_a",
    "wins_b",
    "ties",
    "majority_share",
]
BEST_WORST_COLUMNS = [
    "situation_id",
    "system",
    "last_user_turn",
    "response",
    "shown",
    "best",
    "worst",
    "best_minus_worst",
]


def _last_user_turn(situation) -> str:
    if situation is None:
        return ""
    if situation.context:
        return situation.context[-1].text
    return f"(whole conversations of dialog {situation.dialog_id})"  # dialog-level studies have no cut point


def _regular(df: pd.DataFrame, criterion: str) -> pd.DataFrame:
    out = df[df["criterion"].astype(str) == criterion]
    if "attention_check" in out.columns:
        out = out[~out["attention_check"].astype(bool)]
    return out


def pairwise_overview(votes: pd.DataFrame | None, study, criterion: str) -> pd.DataFrame:
    """Per situation × pair: votes for each side, ties and the majority's share, most disputed first."""
    if votes is None or votes.empty:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    v = _regular(votes, criterion)
    if v.empty:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    a = v[["system_a", "system_b"]].min(axis=1)
    b = v[["system_a", "system_b"]].max(axis=1)
    v = v.assign(
        a=a,
        b=b,
        win_a=(v["winner"] == a).astype(int),
        win_b=(v["winner"] == b).astype(int),
        tie=v["winner"].isin(("tie", "both_bad")).astype(int),  # both bad counts as a tie, as in the fit
    )
    g = (
        v.groupby(["situation_id", "a", "b"])
        .agg(n=("winner", "size"), wins_a=("win_a", "sum"), wins_b=("win_b", "sum"), ties=("tie", "sum"))
        .reset_index()
    )
    g["majority_share"] = g[["wins_a", "wins_b", "ties"]].max(axis=1) / g["n"]
    texts = {s.situation_id: s for s in study.situations}
    g["last_user_turn"] = [_last_user_turn(texts.get(sid)) for sid in g["situation_id"]]
    g["response_a"] = [
        texts[sid].responses.get(x, "") if sid in texts else "" for sid, x in zip(g["situation_id"], g["a"])
    ]
    g["response_b"] = [
        texts[sid].responses.get(x, "") if sid in texts else "" for sid, x in zip(g["situation_id"], g["b"])
    ]
    g = g.rename(columns={"a": "system_a", "b": "system_b"})
    return g.sort_values(["majority_share", "n"], ascending=[True, False])[PAIR_COLUMNS].reset_index(drop=True)


def best_worst_overview(choices: pd.DataFrame | None, study, criterion: str) -> pd.DataFrame:
    """Per situation × system: times shown, chosen best and worst, most disputed (closest to 0) first."""
    if choices is None or choices.empty:
        return pd.DataFrame(columns=BEST_WORST_COLUMNS)
    c = _regular(choices, criterion)
    rows = []
    for r in c.itertuples(index=False):
        for system in str(r.systems).split("|"):
            rows.append((r.situation_id, system, int(system == r.best), int(system == r.worst)))
    if not rows:
        return pd.DataFrame(columns=BEST_WORST_COLUMNS)
    g = (
        pd.DataFrame(rows, columns=["situation_id", "system", "best", "worst"])
        .groupby(["situation_id", "system"])
        .agg(shown=("best", "size"), best=("best", "sum"), worst=("worst", "sum"))
        .reset_index()
    )
    g["best_minus_worst"] = (g["best"] - g["worst"]) / g["shown"]
    texts = {s.situation_id: s for s in study.situations}
    g["last_user_turn"] = [_last_user_turn(texts.get(sid)) for sid in g["situation_id"]]
    g["response"] = [
        texts[sid].responses.get(x, "") if sid in texts else "" for sid, x in zip(g["situation_id"], g["system"])
    ]
    order = g.assign(_dispute=g["best_minus_worst"].abs()).sort_values(["_dispute", "shown"], ascending=[True, False])
    return order[BEST_WORST_COLUMNS].reset_index(drop=True)
