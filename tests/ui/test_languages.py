"""Studies in the participants' language (issue 41, item 1): every participant-facing string comes from the
message catalogue.

The pseudo-locale `en-XA` wraps every catalogue string in ⟦…⟧. Each bundled protocol demo is walked with it
from consent to the last page — every page read before it is answered, after an empty submit (its errors),
and the withdraw panel on every page — and no visible word may be left that is neither marked nor the
study's own text (its study.toml, its dialogs and responses). A string typed into the code without `_()`
fails here, whichever page shows it.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from infact.participation.flow import Flow
from infact.storage import TinyDBStorage
from infact.stores import outage as outage_store
from infact.text import catalogue
from infact.ui import outage
from tests.support.app import APP, TIMEOUT, give_consent, open_app, run, token_of
from tests.support.languages import MESSAGE, chatting, own_texts, unmarked, visible, walk
from tests.support.live_pages import say, stub_study
from tests.support.outages import FailingDisk
from tests.support.paths import REPO
from tests.support.studies import copy_study

# Every protocol with a bundled demo; the live demo (its chats) is walked by its own test below.
DEMOS = ["demo", "demo-pairwise", "demo-best-worst", "demo-acute", "demo-conversations"]


@pytest.fixture
def language():
    """The test's own thread formats scale options as the page did (`format_func=_`)."""

    def use(code: str) -> None:
        catalogue.use(code)

    yield use
    catalogue.use(catalogue.SOURCE)


def _study(tmp_path, monkeypatch, demo: str, code: str):
    folder = copy_study(REPO / "data" / demo, tmp_path / demo, {"[study]\n": f'[study]\nlanguage = "{code}"\n'})
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("demo", DEMOS)
def test_every_visible_string_of_a_protocol_comes_from_the_catalogue(tmp_path, monkeypatch, language, demo):
    folder = _study(tmp_path, monkeypatch, demo, catalogue.PSEUDO)
    language(catalogue.PSEUDO)
    seen: list[str] = []
    at = walk(open_app(), seen)
    last = visible(at)
    assert any(catalogue.OPEN in s for s in last), last  # the last page is drawn, in the pseudo-locale
    assert unmarked(seen, own_texts(folder)) == []


@pytest.mark.slow
def test_every_visible_string_of_a_live_study_comes_from_the_catalogue(tmp_path, monkeypatch, language):
    """The live demo from consent to the last page: situations, both chats (a message, its rating, the end), each
    rubric, the vote and the questionnaire. The chatbots' answers are data, like a study's dialogs."""
    folder = _study(tmp_path, monkeypatch, "demo-live", catalogue.PSEUDO)
    language(catalogue.PSEUDO)
    seen: list[str] = []
    at = walk(open_app(), seen)
    assert any(catalogue.OPEN in s for s in visible(at)) and not at.get("chat_input")
    chats = TinyDBStorage(tmp_path / "db").records(kind="chat_message")
    assert {r["slot"] for r in chats} == {"A", "B"}  # both chats were walked
    answers = [r["text"] for r in chats if r["role"] == "assistant"] + [MESSAGE]
    assert unmarked(seen, own_texts(folder) + answers) == []


@pytest.mark.slow
def test_a_live_chat_whose_chatbot_fails_comes_from_the_catalogue(tmp_path, monkeypatch, language, error_server):
    """The failure message, Try again and Skip of a chatbot that does not answer (stub server: HTTP 500)."""
    stub_study(tmp_path, monkeypatch, error_server.url, error_server.url)
    folder = copy_study(
        tmp_path / "study", tmp_path / "pseudo", {"[study]\n": f'[study]\nlanguage = "{catalogue.PSEUDO}"\n'}
    )
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    language(catalogue.PSEUDO)
    seen: list[str] = []
    at = say(walk(open_app(), seen, until=chatting), "A", MESSAGE)
    seen += visible(at)
    assert at.button(key="live-retry-A") and at.button(key="live-skip-A")
    at.button(key="live-retry-A").click()
    seen += visible(run(at))
    at.button(key="live-skip-A").click()
    seen += visible(run(at))
    assert any(c.key == "live-input-B" for c in at.get("chat_input"))  # on to chatbot B
    assert unmarked(seen, own_texts(folder) + [MESSAGE]) == []


@pytest.mark.slow
def test_the_outage_error_and_broken_link_pages_come_from_the_catalogue(tmp_path, monkeypatch, language):
    """A store outage (saving paused, Try again, saving works again), the calm page of an unexpected error, and a
    study link whose group names no condition."""
    folder = _study(tmp_path, monkeypatch, "demo", catalogue.PSEUDO)
    language(catalogue.PSEUDO)
    monkeypatch.setattr(outage, "OUTAGE", outage_store.Outage())  # this test's own tracker
    disk = FailingDisk(monkeypatch)
    token = token_of(give_consent(open_app()))
    disk.down = True
    at = run(open_app({"p": token}))
    seen = visible(at)
    assert f"{catalogue.OPEN}{outage.PAUSED}{catalogue.CLOSE}" in seen
    at.button(key="outage_retry").click()
    seen += visible(run(at))
    disk.down = False
    at.button(key="outage_retry").click()
    seen += visible(run(at))
    assert f"{catalogue.OPEN}{outage.BACK}{catalogue.CLOSE}" in seen
    with monkeypatch.context() as m:  # an unexpected error: the calm page (pages/participant.py, fail_safely)
        m.setattr(Flow, "admit", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
        broken = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
        broken.run()
    calm = visible(broken)
    assert any("something went wrong" in s for s in calm), calm
    conditions = _study(tmp_path, monkeypatch, "demo-conditions", catalogue.PSEUDO)
    link = run(open_app({"q": "nowhere"}))
    shown = visible(link)
    # The text block under the message is for the researcher, who reads English (issue 41: the researcher's side
    # may stay English); its label is the catalogue's, the reason itself is the link check's.
    reason = (
        "'nowhere' is not a condition of this study (definition, examples): leave it out to assign conditions at random"
    )
    assert any(reason in s for s in shown), shown
    assert unmarked(seen + calm + shown, own_texts(folder) + own_texts(conditions) + [reason]) == []


def test_the_withdraw_panel_and_the_withdrawn_page_come_from_the_catalogue(tmp_path, monkeypatch, language):
    folder = _study(tmp_path, monkeypatch, "demo", catalogue.PSEUDO)
    language(catalogue.PSEUDO)
    at = open_app()
    seen = visible(at)  # the panel before consent: nothing stored yet
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    run(at)
    seen += visible(at)  # the panel with its button
    at.button(key="withdraw").click()
    run(at)
    seen += visible(at)
    assert "⟦You have withdrawn from the study. Thank you for your time.⟧" in seen
    assert unmarked(seen, own_texts(folder)) == []


def test_a_string_typed_without_the_catalogue_is_found():
    """The check itself: an unmarked word is reported, marked ones, the study's own and letters are not."""
    own = ["Which chatbot response makes sense?"]
    shown = [
        "⟦Response A⟧",
        "⟦Response B: ⟦How meaningful is it?⟧⟧",
        "Which chatbot response makes sense?",
        "A",
        "3 / 10",
    ]
    assert unmarked(shown, own) == []
    assert unmarked(["⟦Situation 1 of 4⟧ Submit"], own) == ["'⟦Situation 1 of 4⟧ Submit' (left: 'Submit')"]
