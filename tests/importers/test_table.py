"""`infact import table FILE` (issue 40 item 2): your own dialogs from CSV, XLSX or JSONL; the context in one
column with speaker labels, one column per turn, or the long form; columns detected and overridable; every bad
row `file:line: why, and the fix`; nothing overwritten without --force."""

from __future__ import annotations

import json

import pytest

from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.table import TableOptions, read_table
from infact.study.loader import load_study
from infact.study.situations import read_situations
from tests.support.paths import REPO

DIALOGS = REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv"


def roles(situation) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in situation.context]


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_context_column_with_speaker_labels_and_one_column_per_system():
    read = read_table(DIALOGS)
    assert read.problems == []
    assert [s.situation_id for s in read.situations] == ["m01-t3", "m02-t1", "m03-t3", "m04-t3", "m05-t1", "m06-t3"]
    first = read.situations[0]
    assert roles(first)[1] == ("bot", "sure! any comedies you already love?")
    assert first.responses["Baseline"] == "I like documentaries about trains."
    assert first.source == {"format": "table", "file": "movie_dialogs.csv", "line": 2}
    assert read.situations[1].source["line"] == 5  # the row after a three-line cell starts on line 5


def test_a_one_line_context_and_a_semicolon_csv_without_ids(tmp_path):
    path = write(
        tmp_path, "t.csv", 'context;A;B\n"User: hi there Bot: hello! what do you like? User: comedies";a1;b1\n'
    )
    [sit] = read_table(path).situations
    assert roles(sit) == [("user", "hi there"), ("bot", "hello! what do you like?"), ("user", "comedies")]
    assert sit.situation_id == "d01-t3" and sit.responses == {"A": "a1", "B": "b1"}


def test_one_column_per_turn_of_different_lengths(tmp_path):
    path = write(
        tmp_path, "t.csv", "id,turn_1,turn_2,turn_3,Sys1,Sys2\nx,hi,hello,a horror movie,r1,r2\ny,just one,,,r3,r4\n"
    )
    read = read_table(path)
    assert read.problems == []
    assert roles(read.situations[0]) == [("user", "hi"), ("bot", "hello"), ("user", "a horror movie")]
    assert roles(read.situations[1]) == [("user", "just one")]
    assert read.columns.turns == ("turn_1", "turn_2", "turn_3") and read.columns.systems == ("Sys1", "Sys2")


def test_user_and_bot_turn_columns(tmp_path):
    path = write(tmp_path, "t.csv", "user_1,bot_1,user_2,A,B\nhi,hello,thanks,r1,r2\n")
    [sit] = read_table(path).situations
    assert [r for r, _ in roles(sit)] == ["user", "bot", "user"]


def test_the_long_form_one_row_per_response(tmp_path):
    path = write(
        tmp_path,
        "long.csv",
        'dialog_id,context,system,response\nd1,"User: hi\nBot: hey\nUser: a comedy",KBRD,try X\nd1,,KGSF,try Y\n'
        'd2,"User: scary please",KBRD,try Z\nd2,,KGSF,try W\n',
    )
    read = read_table(path)
    assert read.problems == [] and read.columns.system == "system"
    assert [(s.situation_id, s.responses) for s in read.situations] == [
        ("d1-t3", {"KBRD": "try X", "KGSF": "try Y"}),
        ("d2-t1", {"KBRD": "try Z", "KGSF": "try W"}),
    ]


def test_xlsx_rows_are_named_by_their_sheet_row(tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Dialog", "A", "B"])
    sheet.append(["User: hi\nBot: hello\nUser: a thriller", "r1", "r2"])
    sheet.append(["User: hi\nBot: hello", "r3", "r4"])
    book.save(tmp_path / "t.xlsx")
    read = read_table(tmp_path / "t.xlsx")
    assert [s.situation_id for s in read.situations] == ["d01-t3"]
    [problem] = read.problems
    assert (problem.file, problem.line) == (str(tmp_path / "t.xlsx"), 3) and "ends with a bot turn" in problem.message


def test_jsonl_rows_with_a_list_context(tmp_path):
    rows = [{"id": "j1", "context": [{"role": "user", "text": "hi"}], "A": "a", "B": "b"}]
    path = write(tmp_path, "t.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    [sit] = read_table(path).situations
    assert sit.situation_id == "j1-t1" and roles(sit) == [("user", "hi")]


def test_columns_and_labels_given_by_flags(tmp_path):
    path = write(tmp_path, "t.csv", 'Chat so far,Ours,Theirs,Notes2\n"Seeker: hi\nAgent: hey\nSeeker: sci-fi",o,t,n\n')
    options = TableOptions(
        context="Chat so far", systems=["Ours", "Theirs"], user_labels=["Seeker"], bot_labels=["Agent"]
    )
    [sit] = read_table(path, options).situations
    assert roles(sit) == [("user", "hi"), ("bot", "hey"), ("user", "sci-fi")] and list(sit.responses) == [
        "Ours",
        "Theirs",
    ]


BAD = (
    "dialog_id,context,A,B\n"
    'ok,"User: hi",a,b\n'
    'botlast,"User: hi\nBot: hello",a,b\n'
    'noresp,"User: hi",,b\n'
    'who,"Alice: hi\nBob: hello",a,b\n'
    'pre,"hello there User: hi",a,b\n'
    'ok,"User: hi",c,d\n'
)


def test_every_bad_row_is_named_by_file_and_line_with_the_fix(tmp_path):
    path = write(tmp_path, "bad.csv", BAD)
    read = read_table(path)
    got = {p.line: p.message for p in read.problems}
    assert "ends with a bot turn" in got[3] and "end the context with the user's message" in got[3]
    assert "no response from system 'A'" in got[5] and "fill in the cell" in got[5]
    assert "unknown speaker label 'Alice'" in got[6] and "--user-label" in got[6]
    assert "text before the first speaker label" in got[8]
    assert "already at line 2" in got[9] and "own dialog id" in got[9]
    assert all(p.file == str(path) for p in read.problems)
    assert [s.situation_id for s in read.situations] == ["ok-t1", "noresp-t1"]  # noresp keeps system B


def test_an_unreadable_row_is_one_problem_not_the_end_of_the_import(tmp_path):
    path = write(tmp_path, "t.csv", 'context,A,B\n"User: hi",a,b\n"User: yo",a,b,c\n"User: hey",a,b\n')
    read = read_table(path)
    [problem] = read.problems
    assert problem.line == 3 and "4 cells but the header names 3 columns" in problem.message
    assert len(read.situations) == 2
    jsonl = write(tmp_path, "t.jsonl", '{"context": "User: hi", "A": "a"}\n{broken\n')
    read = read_table(jsonl)
    assert [p.line for p in read.problems] == [2] and len(read.situations) == 1


def test_the_long_form_names_a_second_response_and_a_dialog_without_context(tmp_path):
    path = write(
        tmp_path,
        "long.csv",
        'dialog_id,context,system,response\nd1,"User: hi",A,x\nd1,,A,y\nd2,,A,z\n',
    )
    read = read_table(path)
    assert {p.line: p.message for p in read.problems} == {
        3: "a second response of 'A' for dialog 'd1' (first at line 2); kept the first: delete one of them",
        4: "dialog 'd2' has no usable context on any of its rows",
    }


def test_the_cli_prints_each_bad_row_and_the_columns_it_chose(tmp_path, capsys):
    path = write(tmp_path, "bad.csv", BAD)
    assert main(["import", "table", str(path), "--study", str(tmp_path / "s")]) == 0
    out, err = capsys.readouterr()
    assert f"warning: {path}:3: [context] the dialog ends with a bot turn" in err
    assert "systems: A, B (one column each; --systems)" in out
    assert (tmp_path / "s" / "study.toml").exists()


def test_no_usable_row_is_an_error_listing_every_row(tmp_path, capsys):
    path = write(tmp_path, "t.csv", 'context,A\n"User: a\nBot: b",x\n"Bot: only",y\n')
    with pytest.raises(DatasetError) as exc:
        from infact.importers.table import import_table

        import_table(path, tmp_path / "s")
    assert [p.line for p in exc.value.problems] == [2, 4, None]
    assert not (tmp_path / "s").exists()


def test_no_context_column_names_the_flags(tmp_path):
    path = write(tmp_path, "t.csv", "foo,A,B\nx,a,b\n")
    with pytest.raises(DatasetError, match="--context COLUMN"):
        read_table(path)


def test_import_table_never_replaces_the_situations_without_force(tmp_path, capsys):
    study = tmp_path / "s"
    assert main(["new", str(study)]) == 0  # the sample situations of the ratings demo
    before = (study / "situations.jsonl").read_bytes()
    toml = (study / "study.toml").read_bytes()
    assert main(["import", "table", str(DIALOGS), "--study", str(study)]) == 2
    assert "--force" in capsys.readouterr().err
    assert (study / "situations.jsonl").read_bytes() == before
    assert main(["import", "table", str(DIALOGS), "--study", str(study), "--force"]) == 0
    [backup] = study.glob("situations.jsonl.bak-*")
    assert backup.read_bytes() == before and (study / "study.toml").read_bytes() == toml
    situations, problems = read_situations([study / "situations.jsonl"])
    assert problems == [] and len(situations) == 6


def test_the_starter_study_runs_at_once(tmp_path):
    assert main(["import", "table", str(DIALOGS), "--study", str(tmp_path / "s"), "--protocol", "pairwise"]) == 0
    study = load_study(tmp_path / "s")
    assert study.config.protocol.kind == "pairwise" and len(study.situations) == 5
