"""`import crs-arena` (CRSArena-Dial dialogues JSON and votes CSV) and `import annotated` (CRSArena-Eval's
aggregated shape), on small fixtures written in those shapes (tests/importers/data/)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.crs_arena import import_crs_arena
from infact.study.loader import load_study

DATA = Path(__file__).parent / "data"


def test_dialogs_become_one_conversations_file_per_system_with_the_user_as_dialog_id(tmp_path, capsys):
    assert main(["import", "crs-arena", str(DATA / "crs_arena_dial.json"), "--out", str(tmp_path / "out")]) == 0
    files = sorted(p.name for p in (tmp_path / "out" / "conversations").iterdir())
    assert files == ["barcor_redial.jsonl", "kbrd_redial.jsonl", "unicrs_opendialkg.jsonl"]
    lines = [json.loads(x) for x in (tmp_path / "out/conversations/barcor_redial.jsonl").read_text().splitlines()]
    assert [c["dialog_id"] for c in lines] == ["user-1", "user-2"]
    assert lines[0]["dataset"] == "redial" and lines[0]["system"] == "barcor_redial"
    assert lines[0]["turns"][:2] == [
        {"role": "user", "text": "Hi, I want a scary movie."},
        {"role": "bot", "text": 'Try "The Others (2001)".'},
    ]
    err = capsys.readouterr().err
    assert "entry 5 (broken_entry): missing agent.id" in err  # the broken entry: a warning, skipped
    assert not (tmp_path / "out" / "study.toml").exists()  # --out: files only


def test_into_a_study_folder_a_starter_study_loads_with_the_imported_conversations(tmp_path):
    assert main(["import", "crs-arena", str(DATA / "crs_arena_dial.json"), "--study", str(tmp_path / "st")]) == 0
    study = load_study(tmp_path / "st")
    assert study.config.protocol.kind == "conversation"
    assert sorted(study.systems) == ["barcor_redial", "kbrd_redial", "unicrs_opendialkg"]
    assert len(study.situations) == 4 and {c.meta["dataset"] for c in study.situations} == {"redial", "opendialkg"}


def test_votes_become_pairwise_csv_that_analyze_ranks(tmp_path, capsys):
    out = tmp_path / "votes"
    assert main(["import", "crs-arena", str(DATA / "crs_arena_votes.csv"), "--out", str(out)]) == 0
    assert "crs_arena_votes.csv:7: [vote] vote 'nobody' is neither" in capsys.readouterr().err
    df = pd.read_csv(out / "pairwise.csv", dtype=str, keep_default_na=False)
    assert len(df) == 5  # 'nobody' is skipped
    first = df.iloc[0]
    assert (first["system_a"], first["shown_left"], first["winner"]) == ("barcor_redial",) * 3
    assert first["justification"] == "The first one understood me" and first["dataset"] == "redial"
    assert df.iloc[2]["winner"] == "tie"
    capsys.readouterr()
    assert main(["analyze", str(out / "pairwise.csv"), "--json", "--n-boot", "200"]) == 0
    result = json.loads(capsys.readouterr().out)
    text = json.dumps(result)
    assert all(s in text for s in ("barcor_redial", "kbrd_redial", "unicrs_opendialkg"))


def test_bad_files_are_named_with_what_to_do(tmp_path):
    bad = tmp_path / "v.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(DatasetError, match="missing column"):
        import_crs_arena(bad, tmp_path / "o")
    notlist = tmp_path / "d.json"
    notlist.write_text("{}")
    with pytest.raises(DatasetError, match="expected a JSON list"):
        import_crs_arena(notlist, tmp_path / "o")


def test_aggregated_annotations_become_annotations_csv_with_participant_aggregated(tmp_path):
    assert main(["import", "annotated", str(DATA / "crs_arena_eval_aggregated.json"), "--out", str(tmp_path)]) == 0
    df = pd.read_csv(tmp_path / "annotations.csv")
    assert set(df["participant"]) == {"aggregated"}
    assert list(df.columns[:8]) == ["participant", "dialog_id", "system", "turn", "aspect", "level", "value", "seconds"]
    assert df.loc[df["level"] == "dialogue", "turn"].isna().all()
    src = json.loads((DATA / "crs_arena_eval_aggregated.json").read_text())
    assert len(df) == sum(len(t.get("turn_level_aggregated", {})) for e in src for t in e["dialogue"]) + sum(
        len(e["dial_level_aggregated"]) for e in src
    )
    row = df[(df["conversation_id"] == "barcor_redial_0001") & (df["aspect"] == "relevance") & (df["turn"] == 1)]
    assert row["value"].item() == src[0]["dialogue"][1]["turn_level_aggregated"]["relevance"]
    assert row["system"].item() == "barcor_redial" and row["dataset"].item() == "redial"
