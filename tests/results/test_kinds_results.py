"""A kind carries what the core once branched on (its KindResults, infact/results/kinds.py): the Situations caption of a
dialog-level study, the analyze options only pairwise votes take, how its answers are compared with a judge's
or the simulated participants' and the rows per step its answers give the quality checks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from infact.errors import InfactError, OptionError
from infact.participation import steps
from infact.results import kinds
from infact.results.analyze import Options, analyze_table
from infact.study.loader import load_study
from tests.support.paths import REPO
from tests.support.stars_kind import register_stars


@pytest.mark.parametrize(
    ("demo", "says", "not_said"),
    [("demo-acute", "whole conversations", "last user turn"), ("demo-pairwise", "last user turn", "whole")],
)
def test_the_votes_caption_is_the_kind_s_own_for_the_study_s_step_kind(demo, says, not_said):
    caption = kinds.for_table("pairwise").caption_for(load_study(REPO / "data" / demo).config)
    assert says in caption and not_said not in caption


def test_a_kind_without_a_caption_says_nothing():
    assert kinds.for_table("best_worst").caption_for(load_study(REPO / "data" / "demo-pairwise").config) == ""


@pytest.mark.parametrize(
    "option", [{"covariates": ("length",)}, {"reweight": True}]
)  # the CLI names them by their flags (--covariates, --reweight): tests/cli/test_analyze.py
def test_an_option_only_pairwise_votes_take_is_refused_for_another_kind_naming_the_tables_that_take_it(option):
    assert set(option) <= set(kinds.for_table("pairwise").options)
    with pytest.raises(OptionError) as err:
        analyze_table(pd.DataFrame(), Options(**option), "best_worst.csv")
    [problem] = err.value.problems
    assert err.value.option == problem.file == next(iter(option)) and "pairwise.csv" in problem.message


# ---------------------------------------------------------------- a test-only kind opting in to a judge by its hooks


@pytest.fixture
def stars():
    kind = register_stars()  # the one-file test kind (tests/support/stars_kind.py): its results compare as ratings
    yield kind
    steps.unregister("stars")


def star_table(seed=0, people=6, n_items=30) -> pd.DataFrame:
    """Items of known quality: each participant gives quality + N(0, 1) stars."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(1.5, 4.5, n_items)
    rows = []
    for p in [f"h{i}" for i in range(people)]:
        given = np.clip(np.rint(quality + rng.normal(0, 1.0, n_items)), 1, 5)
        rows += [
            {"participant": p, "step_index": i // 3, "situation_id": f"x{i // 3}", "system": f"s{i % 3}"}
            | {"stars": int(v), "seconds": 10.0}
            for i, v in enumerate(given)
        ]
    return pd.DataFrame(rows)


def test_a_new_kind_is_compared_with_a_judge_by_its_hooks(stars):
    from infact.results.analyze import judge_humans

    table = star_table()
    humans = judge_humans(table, "stars", None, False)
    assert humans["rating"].tolist() == table["stars"].tolist() and set(humans["criterion"]) == {"stars"}
    found = kinds.compared_tables(SimpleNamespace(compare={"stars.csv": table}, ratings=pd.DataFrame()), judged=True)
    assert [(k.name, len(frame)) for k, frame in found] == [("stars", len(table))]
    steps.unregister("stars")
    with pytest.raises(InfactError, match="judges are compared with"):
        judge_humans(table, "stars", None, False)


def test_a_kind_without_the_judged_hook_is_refused_a_judge_naming_the_tables_that_take_one():
    from infact.results.analyze import judge_humans

    with pytest.raises(OptionError) as err:  # the option `judges`; the CLI names it --judge
        judge_humans(pd.DataFrame(), "best_worst", None, False)
    [problem] = err.value.problems
    assert problem.file == "judges" and "ratings.csv or pairwise.csv" in problem.message
    assert "best_worst" in problem.message
