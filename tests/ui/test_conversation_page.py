"""The conversation page under AppTest: the whole conversation, each system turn's scales right after
it, the dialogue aspects after the last turn; an unanswered turn is refused with the turn named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.storage import TinyDBStorage

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo-conversations"


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO))
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    return run(at), tmp_path / "db"


def run(at):
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [e for e in at.error if "something went wrong" in e.value]
    return at


def page_order(at) -> list[str]:
    """The main area's elements in order: `turn:<ind>` for a turn, the key of a radio group."""
    out = []
    for node in _walk(at.main):
        if node.type == "html" and 'data-turn="' in node.proto.body:
            out.append("turn:" + re.search(r'data-turn="(\d+)"', node.proto.body).group(1))
        elif node.type == "radio":
            out.append(node.key)
    return out


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def test_turns_and_their_scales_in_reading_order_and_a_missing_turn_named(app):
    at, db = app
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    run(at)
    order = page_order(at)
    step = next(k for k in order if not k.startswith("turn:")).split("-t")[0]
    turns = [k for k in order if k.startswith("turn:")]
    assert turns == [f"turn:{i}" for i in range(6)]  # the whole conversation
    for ind in (1, 3, 5):  # a system turn, then its two scales
        at_turn = order.index(f"turn:{ind}")
        assert order[at_turn + 1 : at_turn + 3] == [f"{step}-t{ind}-relevance", f"{step}-t{ind}-interestingness"]
    assert order[-3:] == [f"{step}-d-understanding", f"{step}-d-task_completion", f"{step}-d-overall_impression"]
    assert at.radio(key=f"{step}-t1-relevance").options == [
        "0 Not relevant",
        "1 Partly",
        "2 Relevant",
        "3 Very relevant",
    ]
    assert at.radio(key=f"{step}-t1-relevance").value is None  # scales start empty
    for key in order:
        if not key.startswith("turn:") and key != f"{step}-t3-relevance":
            r = at.radio(key=key)
            r.set_value(r.options[-1])
    at.button(key=f"submit-{step}").click()
    run(at)
    assert [e.value for e in at.error] == ["Please rate chatbot message 2: relevance."]
    assert not [r for r in TinyDBStorage(db).records() if r["kind"] == "conversation"]
    at.radio(key=f"{step}-t3-relevance").set_value("2 Relevant")
    at.button(key=f"submit-{step}").click()
    run(at)
    rec = next(r for r in TinyDBStorage(db).records() if r["kind"] == "conversation")
    assert rec["annotations"]["turns"]["3"] == {"relevance": 2, "interestingness": 2}
    assert rec["annotations"]["dialogue"] == {"understanding": 4, "task_completion": 4, "overall_impression": 4}
    assert "Conversation 2 of 4" in " ".join(h.proto.body for h in at.get("html"))


@pytest.mark.slow  # 2.1 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_dashboard_shows_each_aspect_s_ranking_alpha_and_halo(tmp_path, monkeypatch):
    from infact.access.auth import hash_password
    from infact.participation.bots import run_bots
    from infact.study.loader import load_study

    study = load_study(DEMO)
    run_bots(study, TinyDBStorage(tmp_path / "db"), 9, strategy="attentive", seed=3)
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO))
    at = AppTest.from_file(str(REPO / "pages" / "dashboard.py"), default_timeout=120)
    at.session_state["researcher_signed_in"] = True
    at.secrets["researcher"] = {"password_hash": hash_password("pw")}
    run(at)
    assert "Ranking" not in at.segmented_control(key="section").options  # per aspect, under Results
    at.segmented_control(key="section").set_value("Results")
    run(at)
    heads = [m.value for m in at.markdown if "Krippendorff" in m.value]
    assert len(heads) == len(study.config.aspects) and any(h.startswith("**relevance** (turn level)") for h in heads)
    at_overall = next(i for i, h in enumerate(heads) if h.startswith("**overall_impression**"))
    overall = at.dataframe[at_overall].value  # one table per aspect, in order
    assert list(overall["system"]) == ["Marquee", "Popcorn", "Reel"] and list(overall["rank"]) == [1, 2, 3]
    assert any("Halo check (dialogue level)" in c.value for c in at.caption)
    assert any("9 annotators · 18 conversations" in c.value for c in at.caption)
