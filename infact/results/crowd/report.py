"""The label models in an export (soft_labels.csv, reliability columns) and in `analyze --label-models`."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from infact.results.crowd import label_models


def _prepared(ratings: pd.DataFrame) -> pd.DataFrame:
    from infact.results.ratings.analysis import prepare_ratings

    return prepare_ratings(ratings, False)[0]  # flagged participants left out, as the analysis does


def export_files(ratings: pd.DataFrame, participants: pd.DataFrame, csv: Callable) -> dict[str, bytes]:
    """soft_labels.csv and participants.csv with the reliability columns; csv(df, name) types and encodes a table."""
    label_models.require()
    fitted = label_models.fit(_prepared(ratings)) if len(ratings) else {"reliability": pd.DataFrame()}
    rel = fitted["reliability"]
    merged = participants.drop(columns=[c for c in rel.columns if c != "participant"], errors="ignore")
    if len(rel):
        merged = merged.merge(rel, on="participant", how="left")
    else:
        merged = merged.assign(reliability_dawid_skene=None, reliability_mace=None)
    soft = fitted.get("soft_labels")
    if soft is None or soft.empty:
        soft = pd.DataFrame(columns=["situation_id", "system", "criterion", "model", "label", "probability"])
    return {"participants.csv": csv(merged, "participants.csv"), "soft_labels.csv": csv(soft, "soft_labels.csv")}


def analysis(ratings: pd.DataFrame, include_flagged: bool = False) -> dict:
    """`analyze --label-models`: each model's agreement with the median and the least reliable annotators."""
    from infact.results.ratings.analysis import prepare_ratings

    label_models.require()
    fitted = label_models.fit(prepare_ratings(ratings, include_flagged)[0])
    return {
        "models": fitted["summary"],
        "items": fitted.get("median_items", 0),
        "annotators": int(len(fitted["reliability"])),
        "lowest_reliability": label_models.lowest_reliability(fitted["reliability"]),
    }


def render_markdown(result: dict) -> str:
    lines = [
        "## Crowd label models",
        "",
        f"Dawid–Skene and MACE (crowd-kit) over {result['items']} items and {result['annotators']} annotators, "
        "each rating taken as a category (docs/llm.md).",
        "",
        "| model | items | hard label = median | mean hard label |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {name} | {m['items']} | {m['agreement_with_median']:.0%} | {m['mean_label']:.2f} |"
        for name, m in result["models"].items()
    ]
    if result["lowest_reliability"]:
        lines += ["", "Least reliable annotators (Dawid–Skene expected accuracy; MACE P(knows)):", ""]
        lines += [
            f"- {r['participant']}: {r['reliability_dawid_skene']:.2f}; {r['reliability_mace']:.2f}"
            for r in result["lowest_reliability"]
        ]
    return "\n".join(lines) + "\n"


LEAST_RELIABLE = 5  # annotators the dashboard lists
# crowd-kit's MACE takes seconds of CPU per thousand ratings (its pandas E-step, 50 of them per fit):
# above this the dashboard leaves the fit to `analyze --label-models` instead of refitting as ratings arrive
DASHBOARD_MAX_RATINGS = 5_000
NOT_INSTALLED = (
    "Annotator reliability (Dawid–Skene, MACE) needs the optional package crowd-kit: `pip install 'infact[crowd]'`."
)


def least_reliable(
    ratings: pd.DataFrame, include_flagged: bool = False, n: int = LEAST_RELIABLE, max_ratings: int | None = None
) -> dict:
    """The dashboard's few least reliable annotators: {"rows", "annotators", "note"}; without crowd-kit (the
    optional extra `crowd`), without enough ratings or above `max_ratings`, no rows and a note saying why."""
    from infact.results.ratings.analysis import prepare_ratings

    if not label_models.available():
        return {"rows": [], "annotators": 0, "note": NOT_INSTALLED}
    if max_ratings is not None and len(ratings) > max_ratings:
        return {
            "rows": [],
            "annotators": 0,
            "note": f"Annotator reliability: skipped here at {len(ratings)} ratings (over {max_ratings}, the models "
            "take minutes); `python -m infact analyze ratings.csv --label-models` lists the least reliable.",
        }
    from infact.errors import InfactError

    try:
        fitted = label_models.fit(prepare_ratings(ratings, include_flagged)[0]) if len(ratings) else None
    except InfactError as exc:  # ratings the analysis refuses: the page says why, as the Statistics section does
        return {"rows": [], "annotators": 0, "note": "Annotator reliability: " + str(exc)}
    rel = fitted["reliability"] if fitted else pd.DataFrame()
    if rel.empty:
        return {
            "rows": [],
            "annotators": 0,
            "note": f"Annotator reliability: not yet — it needs annotators with {label_models.MIN_LABELS_PER_ANNOTATOR}"
            " or more ratings and more than one rating value.",
        }
    rows = [
        {
            "participant": r["participant"],
            "Dawid–Skene expected accuracy": round(r["reliability_dawid_skene"], 3),
            "MACE P(knows)": round(r["reliability_mace"], 3),
        }
        for r in label_models.lowest_reliability(rel, n)
    ]
    return {"rows": rows, "annotators": int(len(rel)), "note": None}
