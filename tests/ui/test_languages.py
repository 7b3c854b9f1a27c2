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

from infact.text import catalogue
from tests.support.app import open_app, run
from tests.support.languages import own_texts, unmarked, visible, walk
from tests.support.paths import REPO
from tests.support.studies import copy_study

# Every protocol with a bundled demo that runs without a live system (demo-live: tests/ui/test_live_app.py).
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
