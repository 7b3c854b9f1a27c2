"""The dialog-level (ACUTE-style) pages under AppTest: conversation gold pairs, then two whole
conversations labelled A and B with one question per criterion; what is stored is what was shown."""

from __future__ import annotations

import json
import re

import pytest

from infact.storage import TinyDBStorage
from tests.support.app import errors, give_consent, html_bodies, open_app, open_dashboard, progress_text, run, token_of
from tests.support.paths import REPO

DEMO_ACUTE = REPO / "data" / "demo-acute"


@pytest.fixture
def acute_store(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_ACUTE))
    return tmp_path / "db"


def conversations_shown(at) -> dict[str, str]:
    """Letter -> the conversation's HTML, for every conversation on the page."""
    out = {}
    for body in html_bodies(at):
        for part in body.split('<div class="infact-conversation">')[1:]:
            m = re.match(r'<span class="infact-letter"[^>]*>Conversation ([A-Z])</span>', part)
            out[m.group(1)] = part
    return out


def test_gold_pairs_then_a_pair_of_conversations_is_answered_and_stored(acute_store):
    at = give_consent(open_app())
    gold = [json.loads(x)["answer"] for x in (DEMO_ACUTE / "onboarding.jsonl").read_text().splitlines()]
    assert len(conversations_shown(at)) == 2  # every example: two labelled conversations
    assert sum("Conversation A" in b for b in html_bodies(at)) == len(gold)
    intro = next(m.value for m in at.markdown if "practice examples" in m.value)
    assert "one conversation's chatbot is clearly the better one" in intro and "response" not in intro
    for i, answer in enumerate(gold, start=1):
        at.radio(key=f"onboarding-{i}").set_value(answer)
    at.button(key="submit-onboarding").click()
    run(at)

    shown = conversations_shown(at)
    assert set(shown) == {"A", "B"} and "USER:" in shown["A"] and "CHAT-BOT:" in shown["B"]
    step = next(r.key for r in at.radio).rsplit("-", 1)[0]  # "pairwise-dialog-N"
    assert re.fullmatch(r"pairwise-dialog-\d", step)
    assert progress_text(at) == f"Pair of conversations {step.rsplit('-', 1)[1]} of 5"
    assert [r.key for r in at.radio] == [f"{step}-engaging", f"{step}-helpful"]
    assert at.radio(key=f"{step}-engaging").options == ["Conversation A", "Conversation B", "About the same"]
    at.button(key=f"submit-{step}").click()  # nothing chosen: refused, nothing stored
    run(at)
    assert any("(engaging)" in e for e in " ".join(errors(at)).split("\n"))
    check = any("please choose THIS conversation" in b for b in shown.values())
    pick = next((k for k, b in shown.items() if "please choose THIS conversation" in b), "B")
    at.radio(key=f"{step}-engaging").set_value(pick)
    at.radio(key=f"{step}-helpful").set_value(pick)
    at.text_area(key=f"{step}-why").input("B keeps to what the user asked for")
    at.button(key=f"submit-{step}").click()
    run(at)
    rec = next(
        r for r in TinyDBStorage(acute_store).records(participant=token_of(at)) if r["kind"] == "pairwise_dialog"
    )
    assert rec["step"] == step and rec["attention_check"] is check
    chosen = rec["conversations"]["AB".index(pick)]["system"]
    assert rec["choices"] == {"engaging": chosen, "helpful": chosen}
    assert rec["justification"] == "B keeps to what the user asked for"
    assert [c["system"] for c in rec["conversations"]] == [c["system"] for c in rec["responses"]]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from infact.participation.bots import run_bots
    from infact.study.loader import load_study

    db = tmp_path_factory.mktemp("acute-dash") / "db"
    run_bots(load_study(DEMO_ACUTE), TinyDBStorage(db), 12, strategy="attentive", seed=6)
    return db


@pytest.mark.parametrize("section", ["Progress", "Results", "Situations", "Exports"])
def test_every_dashboard_section_opens_on_a_dialog_study(played, monkeypatch, section):
    at = open_dashboard(DEMO_ACUTE, played, monkeypatch, section)
    assert not [e.value for e in at.error if "went wrong" in e.value.lower() or "traceback" in e.value.lower()]


@pytest.mark.slow  # 1.8 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_dashboard_ranks_a_dialog_study_from_its_votes(played, monkeypatch):
    at = open_dashboard(DEMO_ACUTE, played, monkeypatch, "Ranking")
    assert not [e.value for e in at.error]
    table = at.dataframe[0].value
    assert list(table["system"]) == ["Compass", "Chatterbox", "Echo"] and "rank range" in table.columns
    # ranking table and win-rate matrix, then the fragility of each adjacent order (provisional systems, if
    # any, in a table of their own after the ranking), then the ledger of the versions compared
    tables = [d.value for d in at.dataframe]
    assert len(tables) in (4, 5) and list(tables[-2].columns[:2]) == ["higher", "lower"]
    assert list(tables[-1].columns[:2]) == ["system", "version"] and set(tables[-1]["system"]) == set(table["system"])


def test_the_situations_caption_speaks_of_whole_conversations(played, monkeypatch):
    at = open_dashboard(DEMO_ACUTE, played, monkeypatch, "Situations")
    captions = " ".join(c.value for c in at.caption)
    assert "whole conversations" in captions and "last user turn" not in captions, captions
