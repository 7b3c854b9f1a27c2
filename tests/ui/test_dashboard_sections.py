"""The dashboard's frame and sections (AppTest, issue 29 item 9): every section follows the "Include flagged
participants" switch, a degenerate ranking fit says what is wrong instead of showing numbers, clicking the chosen
section again keeps it, and the dashboard has a Sign out. A step kind no section claims gets a section."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact.participation.bots import run_bots
from infact.results.quality.exclusion import manual_event
from infact.results.ranking.analysis import analyze_votes
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard

REPO = Path(__file__).resolve().parents[2]
DEMO_LIVE = REPO / "data" / "demo-live"


def texts(at) -> str:
    return "\n".join(
        e.value for kind in (at.markdown, at.caption, at.info, at.warning, at.subheader) for e in kind if e.value
    )


@pytest.fixture(scope="module")
def live_played(tmp_path_factory):
    """The live demo after 6 attentive bots, 2 of them excluded by the researcher."""
    db = tmp_path_factory.mktemp("live-switch") / "db"
    study = load_study(DEMO_LIVE)
    storage = TinyDBStorage(db)
    results = run_bots(study, storage, 6, strategy="attentive", seed=3)
    for r in results[:2]:
        storage.append(manual_event(r.token, "exclude", "test", study=study.id, dataset_version=study.dataset_version))
    return db


def switched(at, on: bool):
    at.toggle(key="include_flagged").set_value(on).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow  # 3.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_live_chats_follow_the_include_flagged_switch(live_played, monkeypatch):
    at = open_dashboard(DEMO_LIVE, live_played, monkeypatch, "Live chats")
    off = int(re.search(r"(\d+) conversations\.", texts(at)).group(1))
    on = int(re.search(r"(\d+) conversations\.", texts(switched(at, True))).group(1))
    assert on > off > 0, (off, on)  # 2 of 6 participants are excluded: their chats count only when switched on


@pytest.mark.slow  # 4.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_ranking_follows_the_include_flagged_switch(live_played, monkeypatch):
    at = open_dashboard(DEMO_LIVE, live_played, monkeypatch, "Ranking")

    def votes(at) -> int:
        return int(re.search(r"from (\d+) votes|(\d+) votes by", texts(at)).group(1) or 0) or int(
            re.search(r"(\d+) votes by", texts(at)).group(1)
        )

    off = votes(at)
    assert votes(switched(at, True)) > off > 0


def degenerate_votes(kind: str) -> pd.DataFrame:
    rows = []
    for i in range(20):
        if kind == "ties":  # one decisive vote in 20
            rows.append(("A", "B", "A" if i == 0 else "tie"))
        else:  # A beats B every time; B and C overlap
            rows += [("A", "B", "A"), ("B", "C", ["B", "C", "tie"][i % 3])]
    return pd.DataFrame(
        [
            {
                "participant": f"p{i % 4}",
                "situation_id": f"s{i}",
                "criterion": "c",
                "system_a": a,
                "system_b": b,
                "winner": w,
                "seconds": 5,
            }
            for i, (a, b, w) in enumerate(rows)
        ]
    )


@pytest.mark.slow  # 4.2 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_degenerate_fit_says_what_is_wrong():
    from infact.ui.rankings import fit_problem

    ties = fit_problem(analyze_votes(degenerate_votes("ties"), n_boot=20))
    assert ties is not None and "Too few decisive votes" in ties and "1 of 20" in ties
    separated = fit_problem(analyze_votes(degenerate_votes("separation"), n_boot=20))
    assert separated is not None and "separate" in separated and "A won every decisive vote" in separated
    healthy = degenerate_votes("separation")
    healthy.loc[::4, "winner"] = "B"  # B wins some against A: the votes overlap
    assert fit_problem(analyze_votes(healthy, n_boot=20)) is None


def _draw_degenerate():
    import pandas as pd

    from infact.results.ranking.analysis import analyze_votes
    from infact.ui.rankings import show_ranking

    votes = pd.DataFrame(
        [
            {
                "participant": f"p{i % 4}",
                "situation_id": f"s{i}",
                "criterion": "c",
                "system_a": "A",
                "system_b": "B",
                "winner": "A" if i == 0 else "tie",
                "seconds": 5,
            }
            for i in range(20)
        ]
    )
    show_ranking(analyze_votes(votes, n_boot=20), 0.95)


def test_the_ranking_of_a_degenerate_fit_shows_no_strengths_nor_tie_parameter():
    at = AppTest.from_function(_draw_degenerate, default_timeout=60).run()
    assert not at.exception
    assert any("Too few decisive votes" in w.value for w in at.warning)
    shown = texts(at)
    assert "tie parameter" not in shown and "still overlap" not in shown
    assert "strength" not in at.dataframe[0].value.columns


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    from tests.support.studies import make_study

    tmp = tmp_path_factory.mktemp("dash-frame")
    study_dir = make_study(tmp, n_situations=6, per_participant=3)
    run_bots(load_study(study_dir), TinyDBStorage(tmp / "db"), 3, strategy="attentive", seed=1)
    return study_dir, tmp / "db"


@pytest.mark.slow  # 2.4 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_clicking_the_chosen_section_again_keeps_it(rated, monkeypatch):
    at = open_dashboard(*rated, monkeypatch, "Participants")
    assert at.multiselect(key="stage_filter") is not None
    at.segmented_control(key="section").set_value(None).run()  # what a second click on the chosen one sends
    assert not at.exception
    assert at.segmented_control(key="section").value == "Participants"
    assert at.multiselect(key="stage_filter") is not None, "the section's body is drawn, not blank"


def test_the_dashboard_signs_out(rated, monkeypatch):
    at = open_dashboard(*rated, monkeypatch, "Progress")
    at.button(key="sign_out").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Please sign in first."]


DEMO = REPO / "data" / "demo"


@pytest.mark.slow  # crowd-kit's MACE takes tens of seconds on a busy machine
def test_the_participants_section_lists_the_least_reliable_annotators_or_says_why_not(tmp_path, monkeypatch):
    pytest.importorskip("crowdkit")
    from infact.results.crowd import label_models

    db = tmp_path / "db"
    run_bots(load_study(DEMO), TinyDBStorage(db), 3, strategy="attentive", seed=2)
    at = open_dashboard(DEMO, db, monkeypatch, "Participants")
    assert "Least reliable annotators" not in texts(at)  # fitted on request only: it takes a while
    at.toggle(key="reliability_on").set_value(True).run(timeout=900)  # MACE: minutes on a loaded machine
    assert not at.exception, [e.value for e in at.exception]
    [table] = [d.value for d in at.dataframe if "Dawid–Skene expected accuracy" in d.value.columns]
    assert 0 < len(table) <= 5 and table["Dawid–Skene expected accuracy"].between(0, 1).all()
    assert table["Dawid–Skene expected accuracy"].is_monotonic_increasing  # the least reliable first
    assert "Least reliable annotators" in texts(at)

    monkeypatch.setattr(label_models, "available", lambda: False)  # crowd-kit not installed: one line says so
    other = tmp_path / "db2"
    run_bots(load_study(DEMO), TinyDBStorage(other), 3, strategy="attentive", seed=3)
    at = open_dashboard(DEMO, other, monkeypatch, "Participants")
    assert "infact[crowd]" in texts(at) and not [t for t in at.toggle if t.key == "reliability_on"]
