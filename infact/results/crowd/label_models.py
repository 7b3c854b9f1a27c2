"""Crowd label models beside the median: Dawid–Skene and MACE through `crowd-kit` (optional extra `crowd`).

An item (a *task*) is a situation × system × criterion for ratings; every participant's answer is
a *label* (the rating's scale point, taken as a category: neither model knows the scale is
ordered). Both models estimate each item's true label jointly with each annotator's reliability:

- Dawid & Skene (1979), "Maximum likelihood estimation of observer error-rates using the EM
  algorithm": a full confusion matrix per annotator; reliability here = the annotator's expected
  accuracy, Σ_l prior(l) · P(answers l | true l).
- MACE, Hovy et al. (NAACL 2013), "Learning Whom to Trust with MACE": each annotator either knows
  the label or spams from a distribution of their own; reliability = P(knows) (crowd-kit's
  variational fit, seed 0, one restart: see `MACE_RESTARTS`).

Each gives soft labels (P(true label = l) per item) and a hard label (the most probable), reported
beside the median. `crowd-kit` pulls in transformers and nltk (≈ 180 MB measured on this project's
venv), hence the extra: `pip install 'infact[crowd]'`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from infact.errors import OptionError

MODELS = ("dawid_skene", "mace")
MIN_LABELS_PER_ANNOTATOR = 2  # one answer says nothing about a person's reliability


def available() -> bool:
    try:
        import crowdkit.aggregation  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    """The option `label_models` (analyze's and export's) needs crowd-kit: an OptionError naming it when missing."""
    if not available():
        raise OptionError(
            "label_models",
            "the crowd label models need the optional package crowd-kit, which is not installed; "
            "install it with `pip install 'infact[crowd]'` (or `pip install crowd-kit`), or leave this option out.",
        )


def task_table(ratings: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """crowd-kit's long table (task, worker, label) from prepared ratings, and the item key columns."""
    keys = ["situation_id", "system"] + (["criterion"] if "criterion" in ratings.columns else [])
    r = ratings.dropna(subset=["rating"])
    task = r[keys].astype(str).agg("\x1f".join, axis=1)
    return pd.DataFrame({"task": task, "worker": r["participant"].astype(str), "label": r["rating"].astype(int)}), keys


def _quietly(fit, data: pd.DataFrame) -> pd.DataFrame:
    with warnings.catch_warnings():  # crowd-kit 1.4.2 calls pandas' deprecated inplace= (not ours to fix)
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return fit(data)


def _dawid_skene(data: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    from crowdkit.aggregation import DawidSkene

    model = DawidSkene(n_iter=100)
    probas = _quietly(model.fit_predict_proba, data)
    errors, prior = model.errors_, model.priors_
    reliability = {}
    for worker in data["worker"].unique():
        e = errors.loc[worker]
        reliability[worker] = float(sum(prior[lab] * e.loc[lab, lab] for lab in prior.index if lab in e.index))
    return probas, pd.Series(reliability)


# crowd-kit 1.4.2 starts every restart from `random_state` itself (an int: the same draws each time), so its
# default 10 restarts are ten identical fits that cost ten times one (14 s against 1.4 s of CPU on 720 ratings):
# one gives the same result to the bit. tests/results/crowd/test_label_models.py checks that it still does.
MACE_RESTARTS = 1


def _mace(data: pd.DataFrame, restarts: int = MACE_RESTARTS, iterations: int = 50) -> tuple[pd.DataFrame, pd.Series]:
    from crowdkit.aggregation import MACE

    model = MACE(n_restarts=restarts, n_iter=iterations, random_state=0)
    probas = _quietly(model.fit_predict_proba, data)
    _, names = pd.factorize(data["worker"])  # MACE's worker order
    return probas, pd.Series(model.spamming_[:, 1], index=names.astype(str))


def fit(ratings: pd.DataFrame) -> dict:
    """{"soft_labels": long table, "reliability": per participant, "summary": per model} for prepared ratings."""
    require()
    data, keys = task_table(ratings)
    counts = data["worker"].value_counts()
    data = data[data["worker"].isin(counts[counts >= MIN_LABELS_PER_ANNOTATOR].index)]
    if data.empty or data["label"].nunique() < 2:
        return {"soft_labels": pd.DataFrame(), "reliability": pd.DataFrame(), "summary": {}}
    median = data.groupby("task")["label"].median()
    soft, reliability, summary = [], {}, {}
    for name, fitter in (("dawid_skene", _dawid_skene), ("mace", _mace)):
        probas, rel = fitter(data)
        hard = probas.idxmax(axis=1)
        long = probas.rename_axis(index="task", columns="label").stack().rename("probability").reset_index()
        soft.append(long.assign(model=name))
        reliability[f"reliability_{name}"] = rel
        summary[name] = {
            "items": int(len(probas)),
            "agreement_with_median": float(np.mean(hard.reindex(median.index).to_numpy() == median.to_numpy())),
            "mean_label": float(hard.astype(float).mean()),
        }
    soft_labels = pd.concat(soft, ignore_index=True)
    split = soft_labels["task"].str.split("\x1f", expand=True)
    for n, key in enumerate(keys):
        soft_labels.insert(n, key, split[n])
    soft_labels = soft_labels.drop(columns="task")[[*keys, "model", "label", "probability"]]
    rel_table = pd.DataFrame(reliability).rename_axis("participant").reset_index()
    return {"soft_labels": soft_labels, "reliability": rel_table, "summary": summary, "median_items": int(len(median))}


def lowest_reliability(reliability: pd.DataFrame, n: int = 5) -> list[dict]:
    """The n annotators Dawid–Skene trusts least, with both models' figures (for the report and the dashboard)."""
    if reliability.empty:
        return []
    low = reliability.sort_values("reliability_dawid_skene").head(n)
    return [{k: (v if k == "participant" else float(v)) for k, v in row.items()} for row in low.to_dict("records")]
