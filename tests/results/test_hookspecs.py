"""A kind carries what the core once branched on (infact/results/hookspecs.py): the Situations caption of a
dialog-level study and the analyze options only pairwise votes take."""

from __future__ import annotations

import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results import kinds
from infact.results.analyze import Options, analyze_table
from infact.study.loader import load_study
from tests.support.paths import REPO


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
    ("option", "flag"), [({"covariates": ("length",)}, "--covariates"), ({"reweight": True}, "--reweight")]
)
def test_an_option_only_pairwise_votes_take_is_refused_for_another_kind_naming_the_tables_that_take_it(option, flag):
    assert set(option) <= set(kinds.for_table("pairwise").options)
    with pytest.raises(InfactError) as err:
        analyze_table(pd.DataFrame(), Options(**option), "best_worst.csv")
    [problem] = err.value.problems
    assert problem.file == flag and "pairwise.csv" in problem.message
