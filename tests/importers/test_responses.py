"""Merging one system's outputs into a study: by turn, by context, iEvaLM-CRS records."""

import pytest

from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.redial import import_redial
from infact.importers.responses import import_responses
from infact.study.situations import load_situations
from tests.support.importing import IMPORT_FIXTURES
from tests.support.studies import study_config, to_toml, write_toml

FIX = IMPORT_FIXTURES


@pytest.fixture
def study(import_target):
    import_redial(FIX / "redial_quirks.jsonl", import_target, FIX / "movies.csv")
    return import_target


def responses(out, system):
    return {s.situation_id: s.responses.get(system) for s in load_situations([out / "situations.jsonl"])}


def test_by_turn_reports_unmatched_and_duplicates_with_lines(study):
    report = import_responses(study, "KBRD", FIX / "kbrd_turns.jsonl", movies_csv=FIX / "movies.csv")
    got = responses(study, "KBRD")
    assert got == {
        "d1-t1": "hello there",
        "d1-t3": 'have you seen "Gladiator (2000)" ?',
        "d2-t2": None,
        "d2-t4": None,
        "5-t1": None,
    }
    lines = {p.line: p.message for p in report.problems if p.file.endswith("kbrd_turns.jsonl")}
    assert "duplicate" in lines[3] and "first at line 2" in lines[3]
    assert "invalid JSON" in lines[4]
    assert "turn=2" in lines[5] and "turns there: 1, 3" in lines[5]
    assert "'zz' is not in the study" in lines[6]
    assert "empty 'response'" in lines[7]
    c = report.counts
    assert (
        c["matched"],
        c["duplicate_rows"],
        c["unmatched_rows"],
        c["invalid_rows"],
        c["situations_lacking_KBRD"],
    ) == (2, 1, 3, 1, 3)
    # other systems are kept
    assert responses(study, "Human (ReDial)")["d1-t1"] == 'Have you seen "American Pie" ?'


def test_by_context_in_csv_ignores_case_and_title_spacing(study):
    report = import_responses(study, "KGSF", FIX / "kgsf_context.csv")
    got = responses(study, "KGSF")
    assert got["d1-t1"] == "csv one" and got["d2-t4"] == 'try "Click (2006)"'
    lines = {p.line: p.message for p in report.problems}
    assert "unmatched" in lines[4] and "JSON list" in lines[5]


def test_ievalm_records_match_on_unquoted_titles(study):
    import_responses(study, "ChatGPT", FIX / "ievalm.jsonl")
    got = responses(study, "ChatGPT")
    assert got["d1-t3"] == "ievalm says hi" and got["5-t1"] == "ievalm to d5"


def test_reimport_replaces_the_systems_responses(study, tmp_path):
    import_responses(study, "KBRD", FIX / "kbrd_turns.jsonl")
    newer = tmp_path / "new.csv"
    newer.write_text("dialog_id,turn,response\nd1,1,updated\n")
    report = import_responses(study, "KBRD", newer)
    assert responses(study, "KBRD")["d1-t1"] == "updated"
    assert report.counts["replaced_earlier_responses"] == 1


def test_no_match_at_all_fails_and_leaves_the_file(study, tmp_path, capsys):
    before = (study / "situations.jsonl").read_text()
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"dialog_id": "nope", "turn": 1, "response": "x"}\n')
    assert main(["import", "responses", "--study", str(study), "--system", "X", str(rows)]) == 2
    assert f"{rows}:1: unmatched: dialog_id 'nope'" in capsys.readouterr().err
    assert (study / "situations.jsonl").read_text() == before


def test_study_without_situations(tmp_path):
    with pytest.raises(DatasetError, match="import redial"):
        import_responses(tmp_path, "X", FIX / "kbrd_turns.jsonl")


def test_csv_without_dialog_id_header(study, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,text\n1,hi\n")
    with pytest.raises(DatasetError, match="dialog_id"):
        import_responses(study, "X", bad)


def test_hint_when_system_not_listed_in_study_toml(study):
    write_toml(study, to_toml(study_config(systems=["Human (ReDial)"])))
    report = import_responses(study, "KBRD", FIX / "kbrd_turns.jsonl")
    assert any("'KBRD' is not in [study] systems" in n for n in report.notes)
    write_toml(study, to_toml(study_config(systems=["KBRD"])))
    report = import_responses(study, "KBRD", FIX / "kbrd_turns.jsonl")
    assert not any("is not in [study] systems" in n for n in report.notes)


def test_ievalm_recommender_first_dialogs_match_with_the_empty_opening_utterance(study):
    """iEvaLM-CRS makes turns alternate: a dialog the recommender opens starts its context with ""
    and turn_id counts it. Such rows match the same situations (d2 is opened by the recommender)."""
    report = import_responses(study, "ChatGPT", FIX / "ievalm.jsonl")
    got = responses(study, "ChatGPT")
    assert got["d2-t2"] == 'ievalm "d2" opened by the recommender & more'  # entities decoded
    assert got["d2-t4"] == "ievalm d2 later"
    assert report.counts["unmatched_rows"] == 0 and report.counts["matched"] == 4


def test_ievalm_turn_id_alone_counts_the_empty_opening_utterance(study, tmp_path):
    rows = tmp_path / "turn_ids.jsonl"
    rows.write_text(
        '{"dialog_id": "d2", "turn_id": 3, "resp": "opened by bot"}\n'
        '{"dialog_id": "d1", "turn_id": 3, "resp": "opened by user"}\n'
        '{"dialog_id": "d2", "turn": 4, "response": "plain turn is not shifted"}\n'
    )
    report = import_responses(study, "X", rows)
    got = responses(study, "X")
    assert (got["d2-t2"], got["d1-t3"], got["d2-t4"]) == (
        "opened by bot",
        "opened by user",
        "plain turn is not shifted",
    )
    assert report.counts["unmatched_rows"] == 0


def test_entities_in_contexts_and_responses_are_decoded(study, tmp_path):
    rows = tmp_path / "ent.jsonl"
    rows.write_text(
        '{"dialog_id": "d1", "context": ["Hi there I like &quot;Police Academy (1984)&quot;"], '
        '"response": "&lt;b&gt; is text, Tom &amp; Jerry"}\n'
    )
    import_responses(study, "X", rows)
    assert responses(study, "X")["d1-t1"] == "<b> is text, Tom & Jerry"
