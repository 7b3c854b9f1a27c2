"""Importers fed hostile files (issue 29, F4-F6): nothing merged, dropped or half-written without a word.

Each test names the finding it covers; every one fails on the code before that issue."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pandas as pd
import pytest

import infact.fileio
from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.annotated import import_annotated
from infact.importers.common import MAX_NAME
from infact.importers.crs_arena import import_crs_arena

CLASHING = ["a/b", "a_b", "a b", "a:b", "café", "cafè", "x/y"]


def dialogue(system: str, n: int = 1, cid: str | None = None) -> dict:
    return {
        "conversation ID": cid or f"{system}_redial_{n:04d}",
        "agent": {"id": system},
        "user": {"id": f"user-{n}"},
        "conversation": [
            {"participant": "USER", "utterance": f"Hi {n}"},
            {"participant": "AGENT", "utterance": f"I am {system}"},
        ],
    }


def write_json(path, entries, indent=1):
    path.write_text(json.dumps(entries, ensure_ascii=False, indent=indent), encoding="utf-8")
    return path


def conversations(folder):
    """system -> its conversations, over every file the import wrote."""
    out: dict[str, list[dict]] = {}
    for path in sorted((folder / "conversations").iterdir()):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            out.setdefault(entry["system"], []).append(entry)
    return out


def errors(capsys) -> str:
    return capsys.readouterr().err


# F4: file names made from ids are unique and safe


def test_f4_ids_that_map_to_one_file_name_are_kept_apart_and_each_clash_names_both(tmp_path, capsys):
    entries = [dialogue(s, i) for i, s in enumerate(CLASHING, 1)] + [dialogue("x\0y", 8, cid="xy_redial_8")]
    src = write_json(tmp_path / "dial.json", entries)
    starts = [n for n, line in enumerate(src.read_text().splitlines(), 1) if line == " {"]
    out = tmp_path / "out"
    assert main(["import", "crs-arena", str(src), "--out", str(out)]) == 0
    got = conversations(out)
    assert sorted(got) == sorted(CLASHING)  # every system its own file; none overwritten by another
    assert all(len(v) == 1 and v[0]["turns"][1]["text"] == f"I am {s}" for s, v in got.items())
    assert len(list((out / "conversations").iterdir())) == len(CLASHING)
    printed = capsys.readouterr()
    assert "systems: 7" in printed.out
    err = printed.err
    for other in ("a/b", "a b", "a:b"):
        assert f"systems 'a_b' and '{other}' would share the file name a_b.jsonl" in err
    assert "'café'" in err and "'cafè'" in err and "caf_.jsonl" in err
    assert f"{src}:{starts[7]}: [agent.id] entry 8: agent.id 'x\\x00y' holds a control character" in err


def test_f4_an_over_long_system_id_is_shortened_with_a_hash_and_its_study_loads(tmp_path, capsys):
    long_id = "s" * 300
    src = write_json(tmp_path / "dial.json", [dialogue(s, n) for n, s in enumerate([long_id, long_id, "kbrd", "kbrd"])])
    out = tmp_path / "study"
    assert main(["import", "crs-arena", str(src), "--study", str(out)]) == 0
    names = sorted(p.name for p in (out / "conversations").iterdir())
    assert len(names) == 2 and max(map(len, names)) <= MAX_NAME + len(".jsonl")
    assert f"system id of 300 characters: its file name is cut to {names[1]}" in errors(capsys)
    from infact.study.loader import load_study

    assert sorted(load_study(out).systems) == sorted([long_id, "kbrd"])


# F5: all or nothing


def sixteen_systems(tmp_path, long_at: int | None = None):
    systems = [f"sys{i:02d}" for i in range(16)]
    if long_at is not None:
        systems[long_at] = f"sys{long_at:02d}" + "L" * 300
    return write_json(tmp_path / "dial.json", [dialogue(s, i) for i, s in enumerate(systems)])


def test_f5_a_300_character_system_id_no_longer_stops_the_import_half_way(tmp_path):
    out = tmp_path / "out"
    assert main(["import", "crs-arena", str(sixteen_systems(tmp_path, long_at=6)), "--out", str(out)]) == 0
    assert len(conversations(out)) == 16


def test_f5_a_failure_part_way_writes_no_file_and_keeps_the_earlier_import(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert main(["import", "crs-arena", str(sixteen_systems(tmp_path)), "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in (out / "conversations").iterdir()}
    src = write_json(tmp_path / "dial2.json", [dialogue(f"sys{i:02d}", i + 100) for i in range(16)])
    real, calls = infact.fileio.atomic_write_bytes, []

    def fails_at_the_seventh(path, data):
        calls.append(path)
        if len(calls) == 7:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(infact.fileio, "atomic_write_bytes", fails_at_the_seventh)
    assert main(["import", "crs-arena", str(src), "--out", str(out)]) == 2
    assert "nothing written (No space left on device)" in errors(capsys)
    assert {p.name: p.read_bytes() for p in (out / "conversations").iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left


def test_f5_infact_export_writes_its_tables_all_or_nothing(tmp_path, monkeypatch, capsys):
    export = Path(__file__).parents[1] / "fixtures" / "infact_export" / "crsframework-export.json"
    real, calls = infact.fileio.atomic_write_bytes, []

    def fails_at_the_third(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(infact.fileio, "atomic_write_bytes", fails_at_the_third)
    out = tmp_path / "tables"
    argv = [
        "import",
        "infact-export",
        str(export),
        "--systems",
        "Our=RB-CRS,Deep_crs=KGSF,Kbrd=KBRD",
        "--out",
        str(out),
    ]
    assert main(argv) == 2
    assert not out.exists() or list(out.iterdir()) == []


# F6: duplicates, non-objects, non-finite numbers, hostile cells


def test_f6_a_repeated_conversation_id_is_a_warning_at_its_line_and_kept_once(tmp_path, capsys):
    entries = [dialogue("kbrd", 1), dialogue("kbrd", 2), dialogue("kbrd", 1)]
    src = write_json(tmp_path / "dial.json", entries)
    assert main(["import", "crs-arena", str(src), "--out", str(tmp_path / "o")]) == 0
    assert len(conversations(tmp_path / "o")["kbrd"]) == 2
    starts = [n for n, line in enumerate(src.read_text().splitlines(), 1) if line == " {"]  # each entry's line
    expected = f"{src}:{starts[2]}: [conversation ID] entry 3: conversation ID 'kbrd_redial_0001' repeats the entry "
    assert expected + f"at line {starts[0]}" in errors(capsys)


def test_f6_crs_arena_non_objects_and_non_finite_numbers_are_refused_at_their_line(tmp_path, capsys):
    good = json.dumps(dialogue("kbrd", 1))
    src = tmp_path / "dial.json"
    src.write_text(f"[\n{good},\n42,\n{good.replace(chr(34) + 'user-1' + chr(34), 'NaN')}\n]\n")
    assert main(["import", "crs-arena", str(src), "--out", str(tmp_path / "o")]) == 0
    err = errors(capsys)
    assert f"{src}:3: entry 2: expected an object" in err
    assert f"{src}:4: entry 3: user.id = NaN is not a finite number" in err


def votes_file(tmp_path, rows: list[str]):
    path = tmp_path / "votes.csv"
    path.write_text("session_id,user_id,crs1,crs2,vote,feedback\n" + "".join(r + "\n" for r in rows))
    return path


def test_f6_a_repeated_vote_row_and_a_nul_in_a_cell_are_refused_at_their_line(tmp_path, capsys):
    src = votes_file(
        tmp_path,
        [
            "s1,u1,kbrd_redial,barcor_redial,kbrd_redial,ok",
            "s1,u1,kbrd_redial,barcor_redial,kbrd_redial,ok",  # the same row again
            "s1,u1,barcor_redial,kbrd_redial,tie,changed my mind",  # the same battle, sides swapped
            "s2,u2,a\0,barcor_redial,barcor_redial,",
            "s3,u3,kbrd_redial,barcor_redial,tie,",
        ],
    )
    out = tmp_path / "o"
    assert main(["import", "crs-arena", str(src), "--out", str(out)]) == 0
    df = pd.read_csv(out / "pairwise.csv", dtype=str, keep_default_na=False)
    assert list(df["situation_id"]) == ["s1", "s3"]
    assert not any("\0" in v for v in df.to_numpy().ravel())
    err = errors(capsys)
    assert f"{src}:3: [session_id] a second vote of user 'u1' on kbrd_redial vs barcor_redial" in err
    assert f"{src}:4: [session_id]" in err and "(first at line 2)" in err
    assert f"{src}:5: [crs1] crs1 'a\\x00' holds a control character" in err


def test_f6_a_huge_csv_cell_is_one_error_line_naming_the_file_and_line(tmp_path):
    src = votes_file(tmp_path, ["s1,u1,kbrd_redial,barcor_redial,tie,ok", "s2,u2,a,b,a," + "x" * 140_000])
    with pytest.raises(DatasetError, match="unreadable CSV") as info:
        import_crs_arena(src, tmp_path / "o")
    assert info.value.problems[0].line == 3 and info.value.problems[0].file == str(src)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("importer", ["crs-arena", "annotated"])
def test_f6_deep_nesting_is_one_error_line_not_a_recursion_error(importer, tmp_path, capsys):
    src = tmp_path / "deep.json"
    src.write_text("[" * 200_000)
    assert main(["import", importer, str(src), "--out", str(tmp_path / "o")]) == 2
    err = errors(capsys)
    assert err.startswith(f"error: {src}:1: not valid JSON (nested too deeply") and len(err.splitlines()) == 1


def annotated_entry(cid: str, relevance=2.0, turn_ind=1) -> dict:
    return {
        "conv_id": cid,
        "dialogue": [
            {"turn_ind": 0, "role": "USER", "utterance": "hi"},
            {"turn_ind": turn_ind, "role": "ASST", "utterance": "hello", "turn_level_aggregated": {"relevance": 1.5}},
        ],
        "dial_level_aggregated": {"satisfaction": relevance},
    }


def test_f6_annotated_non_objects_are_warned_about_at_their_line(tmp_path, capsys):
    src = write_json(
        tmp_path / "a.json", [annotated_entry("kbrd_redial_1"), 1, "two", None, [], annotated_entry("kbrd_redial_2")]
    )
    report = import_annotated(src, tmp_path / "o")
    assert report.counts["conversations"] == 2
    lines = src.read_text().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line[:1] == " " and line[1:2] not in (" ", "}")]
    assert len(starts) == 6  # each top-level entry's first line
    assert [p.line for p in report.problems if "expected an object" in p.message] == starts[1:5]


def test_f6_annotated_repeated_conv_ids_are_kept_once_with_a_warning_each(tmp_path):
    src = write_json(tmp_path / "a.json", [annotated_entry("kbrd_redial_1")] * 3, indent=None)
    report = import_annotated(src, tmp_path / "o")
    df = pd.read_csv(tmp_path / "o" / "annotations.csv")
    assert len(df) == 2 and report.counts["conversations"] == 1
    assert [p.message for p in report.problems] == [
        f"entry {i}: conv_id 'kbrd_redial_1' repeats the entry at line 1; skipped" for i in (2, 3)
    ]


def test_f6_annotated_non_finite_numbers_and_a_boolean_turn_ind_are_refused(tmp_path):
    entries = [annotated_entry(f"kbrd_redial_{i}", relevance=i) for i in range(4)]
    entries[3]["dialogue"][1]["turn_ind"] = True
    text = json.dumps(entries, indent=1)
    for i, literal in enumerate(("NaN", "Infinity", "1e999"), start=0):
        text = text.replace(f'"satisfaction": {i}', f'"satisfaction": {literal}', 1)
    src = tmp_path / "a.json"
    src.write_text(text)
    report = import_annotated(src, tmp_path / "o")
    df = pd.read_csv(tmp_path / "o" / "annotations.csv")
    dialogue_values = df.loc[df["level"] == "dialogue", "value"]
    assert list(dialogue_values) == [3.0]  # NaN, Infinity and 1e999 are not values
    assert 1 not in set(df.loc[(df["conversation_id"] == "kbrd_redial_3") & (df["level"] == "turn"), "turn"])
    messages = [p.message for p in report.problems]
    assert all(any(f"satisfaction = {lit} is not a finite number" in m for m in messages) for lit in ("NaN", "1e999"))
    assert any("Infinity is not a finite number" in m for m in messages)
    assert any("turn_ind True is not an integer" in m for m in messages)
    assert all(p.line for p in report.problems)


# No import overwrites a file it did not write (an earlier import's own files are replaced)


def test_an_import_replaces_its_own_files_but_not_a_file_of_the_same_name_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "o"
    dial = write_json(tmp_path / "dial.json", [dialogue("kbrd", 1)])
    votes = votes_file(tmp_path, ["s1,u1,kbrd_redial,barcor_redial,tie,"])
    agg = write_json(tmp_path / "a.json", [annotated_entry("kbrd_redial_1")])
    for src in (dial, votes):
        assert main(["import", "crs-arena", str(src), "--out", str(out)]) == 0
        assert main(["import", "crs-arena", str(src), "--out", str(out)]) == 0  # again: its own files
    assert main(["import", "annotated", str(agg), "--out", str(out)]) == 0
    assert main(["import", "annotated", str(agg), "--out", str(out)]) == 0
    mine = {
        out / "pairwise.csv": "winner,notes\n",
        out / "annotations.csv": "mine\n",
        out / "conversations/kbrd.jsonl": "x",
    }
    for path, text in mine.items():
        path.write_text(text)
    for command, src, path in (
        ("crs-arena", votes, out / "pairwise.csv"),
        ("annotated", agg, out / "annotations.csv"),
        ("crs-arena", dial, out / "conversations/kbrd.jsonl"),
    ):
        capsys.readouterr()
        assert main(["import", command, str(src), "--out", str(out)]) == 2
        assert f"error: {path}: exists and was not written by `python -m infact import {command}`" in errors(capsys)
    assert all(path.read_text() == text for path, text in mine.items())
