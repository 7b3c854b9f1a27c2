"""The study builder page under AppTest: only a signed-in researcher reaches it; the form is generated from the
settings models; problems show all at once and go when fixed; the preview draws the participant's page; Save
asks before replacing a file; the zip holds the folder."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.study.loader import load_study

BUILDER = Path(__file__).resolve().parents[2] / "pages" / "builder.py"


def _open(tmp_path, monkeypatch, signed_in=True) -> AppTest:
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.chdir(tmp_path)  # "Save" writes relative folders here
    at = AppTest.from_file(str(BUILDER), default_timeout=60)
    if signed_in:
        at.session_state["researcher_signed_in"] = True
    return at.run()


def _by_key(elements, key):
    return next(e for e in elements if e.key == key)


def test_the_builder_refuses_anyone_not_signed_in(tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch, signed_in=False)
    assert not at.exception
    assert [e.value for e in at.error] == ["Please sign in first."]
    assert not at.selectbox and not at.button and not at.text_area


@pytest.mark.slow
def test_fill_see_a_problem_fix_it_preview_save_and_run(tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch)
    assert not at.exception
    assert any("ready to run" in s.value for s in at.success)
    # the preview is the participant's page: the welcome text of the ratings protocol, drawn by its page
    assert any("Welcome" in m.value for m in at.markdown)
    # a problem: the attention check asks for a label the scale no longer has
    _by_key(at.text_area, "builder:ratings:scale.labels").set_value("Bad\nOkay\nGood").run()
    assert not at.exception
    problems = " ".join(e.value for e in at.error)
    assert "attention_check.expected" in problems and "Bad" in problems
    assert not any(b.key == "builder:save" for b in at.button)  # nothing to save while it cannot run
    # fixed: the check asks for a label that exists
    _by_key(at.text_area, "builder:ratings:attention_check.expected").set_value("Bad").run()
    _by_key(at.text_input, "builder:ratings:attention_check.text").set_value("Please choose Bad here.").run()
    assert not at.error, [e.value for e in at.error]
    # preview another page: a rated situation
    _by_key(at.selectbox, "builder:preview-step").set_value("situation-1").run()
    assert not at.exception
    _by_key(at.button, "builder:save").click().run()
    saved = tmp_path / "studies" / "my-ratings-study"  # the default id and folder say what the study is
    study = load_study(saved)
    assert study.config.scale.labels == ["Bad", "Okay", "Good"]
    assert study.config.attention_check.expected == ["Bad"]
    assert "instructions" not in (saved / "study.toml").read_text()  # the protocol's own text is not frozen in
    # saving again would replace study.toml: the button waits for the researcher's yes
    at.run()
    assert _by_key(at.button, "builder:save").disabled
    _by_key(at.checkbox, "builder:replace").check().run()
    _by_key(at.button, "builder:save").click().run()
    assert list(saved.glob("study.toml.bak-*")), "the replaced study.toml is kept"


@pytest.mark.slow
def test_a_pairwise_variant_and_its_zip(tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch)
    _by_key(at.selectbox, "builder:protocol").set_value("pairwise").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    _by_key(at.text_input, "builder:pairwise:study.id").set_value("movies-pairwise").run()
    _by_key(at.selectbox, "builder:preview-step").set_value("pairwise-1").run()
    assert not at.exception
    zipped = _by_key(at.get("download_button"), "builder:zip")
    data = zipped.proto.url  # the media URL: the zip's bytes are checked through the library below
    assert data
    from infact.builder import folder as build

    draft = build.start("pairwise", None, "movies-pairwise")
    files = build.build(draft, build.prefill(draft))
    with zipfile.ZipFile(io.BytesIO(build.zip_bytes(files, "movies-pairwise"))) as zf:
        assert "movies-pairwise/study.toml" in zf.namelist()


@pytest.mark.slow
def test_take_part_in_the_preview_moves_on_as_a_participant_and_starts_over(tmp_path, monkeypatch):
    from tests.support.app import progress_text

    at = _open(tmp_path, monkeypatch)
    assert progress_text(at) is None  # the consent page
    at.checkbox(key="consent").check().run()
    at.button(key="consent_submit").click().run()
    assert not at.exception
    assert progress_text(at) == "Situation 1 of 10"
    _by_key(at.button, "builder:preview-restart").click().run()
    assert progress_text(at) is None and at.button(key="consent_submit")
    assert not (tmp_path / "db").exists() or not any((tmp_path / "db").iterdir())  # nothing stored anywhere


@pytest.mark.parametrize("cloud", [True, False])
def test_where_the_disk_does_not_last_the_builder_says_so_and_offers_the_zip(tmp_path, monkeypatch, cloud):
    import infact.ui.builder.page as page

    monkeypatch.setattr(page, "on_community_cloud", lambda: cloud)
    at = _open(tmp_path, monkeypatch)
    assert any("does not last" in w.value and "commit" in w.value for w in at.warning) is cloud
    assert _by_key(at.get("download_button"), "builder:zip")
