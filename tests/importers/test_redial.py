"""ReDial raw JSONL import: every quirk of the real test split, on a small fixture."""

from pathlib import Path

import pytest

from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.redial import import_redial
from infact.text.items import normalise_title, normalise_titles
from tests.support.importing import IMPORT_FIXTURES, situations_by_id

FIX = IMPORT_FIXTURES


@pytest.fixture
def study(import_target):
    return import_target


def by_id(out):
    return situations_by_id(out)


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("Police Academy  (1984)", "Police Academy (1984)"),
        ("Braveheart(1995)", "Braveheart (1995)"),
        ("American Pie ", "American Pie"),
        ("  It   (2017) ", "It (2017)"),
        ("Hot Tub Time Machine", "Hot Tub Time Machine"),
    ],
)
def test_normalise_title(raw, clean):
    assert normalise_title(raw) == clean


def test_normalise_titles_only_touches_quoted_text():
    assert normalise_titles('I liked "Pearl Harbor  (2001)"  a lot') == 'I liked "Pearl Harbor (2001)"  a lot'


def test_situations_from_quirky_dialogs(study):
    report = import_redial(FIX / "redial_quirks.jsonl", study, FIX / "movies.csv")
    s = by_id(study)
    assert list(s) == ["d1-t1", "d1-t3", "d2-t2", "d2-t4", "5-t1"]
    # two seeker messages in a row are one turn; @id -> quoted, normalised title
    assert [t.text for t in s["d1-t3"].context] == [
        'Hi there I like "Police Academy (1984)"',
        'Have you seen "American Pie" ?',
        'No. Anything like "Braveheart (1995)" ?',
    ]
    assert [t.role for t in s["d1-t3"].context] == ["user", "bot", "user"]
    # id missing from movieMentions: from the CSV, else left visible and reported
    assert s["d1-t3"].responses == {"Human (ReDial)": 'Try "Gladiator (2000)" or @999'}
    assert s["d2-t4"].responses["Human (ReDial)"] == 'Then "Up (2009)" is for you'
    assert s["d1-t3"].meta == {
        "turn": 3,
        "n_turns": 5,
        "relative_position": 0.6,
        "item_mentioned": True,
        "items": ["Police Academy (1984)", "American Pie", "Braveheart (1995)", "Gladiator (2000)"],
    }
    assert s["d2-t2"].meta["item_mentioned"] is False
    assert s["d1-t1"].source == {"format": "redial", "file": "redial_quirks.jsonl", "line": 1, "conversation_id": "d1"}
    assert s["5-t1"].source["line"] == 7  # numeric conversationId, blank line counted
    assert report.counts["situations"] == 5 and report.counts["dialogs_skipped"] == 3
    assert report.counts["seeker_turns_left_out_(last_turn,_no_reply)"] == 1
    where = {(p.line, p.message.split(" ")[0]) for p in report.problems if p.file.endswith(".jsonl")}
    assert {(1, "movie"), (3, "invalid"), (4, "conversationId"), (5, "missing"), (7, "messages[1]")} <= where
    assert (study / "study.toml").read_text() == "# researcher's config\n"  # kept


def test_without_movies_csv_ids_stay_visible_and_are_reported(study):
    report = import_redial(FIX / "redial_quirks.jsonl", study)
    assert by_id(study)["d2-t4"].responses["Human (ReDial)"] == "Then @555 is for you"
    assert any("@555" in p.message and "--movies" in p.message and p.line == 2 for p in report.problems)


def test_cli_prints_warnings_with_file_and_line(study, capsys):
    assert main(["import", "redial", str(FIX / "redial_quirks.jsonl"), "--out", str(study)]) == 0
    err = capsys.readouterr().err
    assert "warning: " + str(FIX / "redial_quirks.jsonl") + ":3: invalid JSON" in err


def test_nothing_valid_fails_without_touching_the_study(study, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "redial"}\nnot json\n')
    (study / "situations.jsonl").write_text("old\n")
    assert main(["import", "redial", str(bad), "--out", str(study)]) == 2
    err = capsys.readouterr().err
    assert f"error: {bad}:1: missing 'conversationId'" in err and f"{bad}:2: invalid JSON" in err
    assert (study / "situations.jsonl").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "study"]  # no staging left


def test_missing_file_is_an_error_not_a_traceback(tmp_path):
    with pytest.raises(DatasetError, match="file not found"):
        import_redial(tmp_path / "nope.jsonl", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_reimport_keeps_other_files(study):
    (study / "answers").mkdir()
    (study / "answers" / "a.json").write_text("{}")
    import_redial(FIX / "redial_quirks.jsonl", study)
    import_redial(FIX / "redial_quirks.jsonl", study)
    assert (study / "answers" / "a.json").read_text() == "{}"
    assert len(by_id(study)) == 5


def test_new_study_gets_a_study_toml(tmp_path):
    pytest.importorskip("infact.study.starter.template")
    out = tmp_path / "fresh"
    report = import_redial(FIX / "redial_quirks.jsonl", out)
    toml = (out / "study.toml").read_text()
    assert "fresh" in toml and "Human (ReDial)" in toml and "situations.jsonl" in toml
    assert "wrote study.toml" in report.notes


def test_html_entities_are_decoded_and_items_listed(study):
    """Raw ReDial holds &quot; &amp; &gt;: decoded at import (escaped again only when shown).
    The titles mentioned by @id are the dialog's items: only those (and titles with a year) are highlighted."""
    import_redial(FIX / "redial_entities.jsonl", study)
    [s] = by_id(study).values()
    assert s.context[0].text == 'I want something "cheeky" like "Tom & Jerry (1992)"'
    assert s.responses["Human (ReDial)"] == 'Rated > 7? Try "Up (2009)" & relax'
    assert s.meta["items"] == ["Tom & Jerry (1992)", "Up (2009)"]


def test_real_redial_sample_has_no_entities_left(tmp_path):
    sample = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "redial_sample" / "test_data_head20.jsonl"
    if not sample.exists():
        pytest.skip("shared real data not present")
    out = tmp_path / "real"
    import_redial(sample, out)
    text = (out / "situations.jsonl").read_text(encoding="utf-8")
    assert "&quot;" not in text and "&amp;" not in text and "&gt;" not in text
