"""The dashboard's Results for votes and best–worst choices: counts per system and their charts.

The counterpart of the rating charts (charts.py) for comparison protocols: how often each
system won, lost or tied its votes (pairwise, ACUTE-style and the live arena alike: the same
pairwise.csv columns), or was chosen best and worst among the responses shown with it. The
ranking with intervals and tests is the Ranking and Statistics sections' (ranking_analysis).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from infact.results.tables.comparisons import BOTH_BAD, NO_WINNER, SEP, TIE

VOTE_COLUMNS = ["system", "votes", "won", "lost", "tied", "win_share"]
BEST_WORST_COLUMNS = ["system", "shown", "best", "worst", "score"]


def kept(df: pd.DataFrame | None, criterion: str | None = None, include_flagged: bool = False) -> pd.DataFrame:
    """The rows of one criterion (when the table has several), without excluded participants unless asked."""
    if df is None:
        return pd.DataFrame()
    if criterion is not None and "criterion" in df.columns and criterion in set(df["criterion"].astype(str)):
        df = df[df["criterion"].astype(str) == criterion]
    if not include_flagged and "excluded" in df.columns:
        df = df[~df["excluded"].astype(bool)]
    return df


def vote_counts(votes: pd.DataFrame) -> pd.DataFrame:
    """Per system: votes it was in, won, lost, tied, and its win share (ties count ½), best first; with a
    `both_bad` column (votes found both bad, counted ½ like ties) when there are any."""
    rows = []
    if len(votes):
        for system in sorted(set(votes["system_a"]) | set(votes["system_b"])):
            mine = votes[(votes["system_a"] == system) | (votes["system_b"] == system)]
            won = int((mine["winner"] == system).sum())
            tied, bad = int((mine["winner"] == TIE).sum()), int((mine["winner"] == BOTH_BAD).sum())
            n = len(mine)
            rows.append(
                {
                    "system": system,
                    "votes": n,
                    "won": won,
                    "lost": n - won - tied - bad,
                    "tied": tied,
                    "both_bad": bad,
                    "win_share": (won + (tied + bad) / 2) / n if n else None,
                }
            )
    columns = [*VOTE_COLUMNS[:-1], "both_bad", VOTE_COLUMNS[-1]]
    out = pd.DataFrame(rows, columns=columns)
    if not (out["both_bad"] > 0).any():
        out = out.drop(columns="both_bad")
    return out.sort_values("win_share", ascending=False, kind="stable").reset_index(drop=True)


def best_worst_counts(choices: pd.DataFrame) -> pd.DataFrame:
    """Per system: how often shown, chosen best and worst, and best − worst per showing, best first."""
    rows = []
    if len(choices):
        shown = choices["systems"].astype(str).str.split(SEP).explode().value_counts()
        best, worst = choices["best"].value_counts(), choices["worst"].value_counts()
        for system, n in shown.items():
            b, w = int(best.get(system, 0)), int(worst.get(system, 0))
            rows.append({"system": system, "shown": int(n), "best": b, "worst": w, "score": (b - w) / n})
    out = pd.DataFrame(rows, columns=BEST_WORST_COLUMNS)
    return out.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)


def left_share(votes: pd.DataFrame) -> dict | None:
    """The position effect: share of decisive votes won by the side shown left (None without any)."""
    if not len(votes) or "shown_left" not in votes.columns:
        return None
    decisive = votes[~votes["winner"].isin(NO_WINNER)]
    if not len(decisive):
        return None
    return {"n": len(decisive), "left_share": float((decisive["winner"] == decisive["shown_left"]).mean())}


def win_share_chart(counts: pd.DataFrame) -> alt.Chart:
    """Each system's win share (ties ½) as a bar, best on top, with a line at an even 50%."""
    order = list(counts["system"])
    bars = (
        alt.Chart(counts)
        .mark_bar()
        .encode(
            x=alt.X(
                "win_share:Q",
                title="share of votes won (ties count ½)",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%", tickCount=5),
            ),
            y=alt.Y("system:N", sort=order, title=None),
            tooltip=["system", "votes", "won", "lost", "tied", alt.Tooltip("win_share:Q", format=".0%")],
        )
    )
    even = alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 3], color="#5f6368").encode(x="x:Q")
    return (bars + even).properties(height=36 * len(counts) + 30)


def best_worst_chart(counts: pd.DataFrame) -> alt.Chart:
    """Best and worst choices per system, as shares of its showings (worst to the left of zero)."""
    long = pd.concat(
        [
            counts.assign(choice="best", share=counts["best"] / counts["shown"]),
            counts.assign(choice="worst", share=-counts["worst"] / counts["shown"]),
        ]
    )
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X(
                "share:Q",
                title="share of showings chosen worst (left) and best (right)",
                axis=alt.Axis(format="%", tickCount=5),
            ),
            y=alt.Y("system:N", sort=list(counts["system"]), title=None),
            color=alt.Color(
                "choice:N", scale=alt.Scale(domain=["best", "worst"], range=["#1a56c4", "#c5221f"]), title=None
            ),
            tooltip=["system", "choice", "shown", "best", "worst", alt.Tooltip("score:Q", format=".2f")],
        )
        .properties(height=36 * len(counts) + 30)
    )
