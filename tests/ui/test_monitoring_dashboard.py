"""The dashboard's Statistics section for ratings (AppTest): the rating differences' anytime-valid verdict and the
declared stopping rule, met once the maximum of participants is reached."""

from __future__ import annotations

import shutil

import pytest

from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard
from tests.support.paths import REPO


@pytest.mark.slow  # a dashboard section under AppTest with a ratings analysis: a few seconds
def test_rating_statistics_say_whether_the_differences_are_settled_and_the_rule_is_met(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    shutil.copytree(REPO / "data" / "demo", folder)
    toml = folder / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[monitoring]\nmax_participants = 3\n", encoding="utf-8")
    db = tmp_path / "db"
    run_bots(load_study(folder), TinyDBStorage(db), 3, strategy="attentive", seed=1)
    at = open_dashboard(folder, db, monkeypatch, "Statistics")
    assert not [e.value for e in at.error]
    text = [m.value for m in at.markdown]
    # a declared maximum: the finite-horizon boundary, said in plain words (issue 37 item 5)
    verdict = "Rating differences: **Not settled yet** at 95% (within the declared maximum of 3 participants)"
    assert any(t.startswith(verdict) for t in text)
    assert any("The stopping rule is met:** 3 participants (rule: at most 3)" in s.value for s in at.success)
