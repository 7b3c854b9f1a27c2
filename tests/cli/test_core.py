"""`python -m infact validate | bots | export`: a thin CLI over the core."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from infact.cli.main import main
from infact.fileio import MANIFEST
from infact.results.export import files_of
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.studies import make_study


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_demo_as_a_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "infact", "validate", str(DEMO_STUDY)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: study 'demo'")
    assert "38 situations" in proc.stdout and proc.stderr == ""


def test_validate_lists_every_problem_and_fails(tmp_path, capsys):
    folder = make_study(tmp_path)
    toml = folder / "study.toml"  # misspelt by hand: the messages name its lines
    toml.write_text(toml.read_text().replace("lease_minutes", "lease_minuts").replace('title = "Test study"\n', ""))
    with open(folder / "situations.jsonl", "a") as f:
        f.write('{"situation_id": "x", "context": [{"role": "bot", "text": "hi"}], "responses": {"Alpha": "a"}}\n')
    code, out, err = run(capsys, "validate", folder)
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[-1] == f"3 problem(s) in {folder}"
    assert any(
        f"{toml}:9: [assignment.lease_minuts]" in line and "did you mean 'lease_minutes'" in line for line in lines
    )
    assert any(f"{toml}:1: [study.title]" in line for line in lines)
    assert any(f"{folder / 'situations.jsonl'}:14: [context]" in line for line in lines)
    assert "ok" not in out


def test_validate_study_level_problem(tmp_path, capsys):
    folder = make_study(tmp_path, attention_check={"situation": "missing-t1"})
    code, _, err = run(capsys, "validate", folder)
    assert code == 1
    assert "[attention_check.situation]" in err and "missing-t1" in err


def test_validate_shows_notes_but_passes(tmp_path, capsys):
    from tests.support.studies import CHECK_ID, situation

    sits = [situation(f"s{i}", f"d{i}", ("Alpha", "Beta")) for i in range(6)] + [
        situation(CHECK_ID, "c", ("Alpha", "Beta"))
    ]
    del sits[0]["responses"]["Beta"]
    code, out, err = run(capsys, "validate", make_study(tmp_path, situations=sits))
    assert code == 0
    assert "note:" in out and "'Beta'" in out and "ok: study 't' — 5 situations" in out


def test_validate_missing_folder(tmp_path, capsys):
    code, _, err = run(capsys, "validate", tmp_path / "nowhere")
    assert code == 1 and "study.toml" in err and "not found" in err


def test_bots_then_export(tmp_path, capsys):
    folder = make_study(tmp_path, per_participant=4)
    db = tmp_path / "db"
    code, out, _ = run(
        capsys, "bots", folder, "-n", 6, "--db", db, "--strategy", "attentive", "--concurrency", 3, "--seed", 4
    )
    assert code == 0
    assert out.splitlines()[0] == "6 bots played (attentive: 6); 6 completed"  # then the planted quality, …
    store = TinyDBStorage(db)
    try:
        assert len(store.records(kind="complete")) == 6
    finally:
        store.close()
    out_dir = tmp_path / "exports"
    code, out, _ = run(capsys, "export", "--study", folder, "--db", db, "--out", out_dir)
    assert code == 0
    files = files_of(load_study(folder).config)
    assert {p.name for p in out_dir.iterdir()} == set(files) | {MANIFEST}  # the manifest: what the export wrote
    for name in files:
        assert str(out_dir / name) in out
    ratings = pd.read_csv(out_dir / "ratings.csv")
    assert len(ratings) == 6 * 4 * 2 and ratings["participant"].nunique() == 6
    p = pd.read_csv(out_dir / "participants.csv")
    assert list(p["status"]) == ["completed"] * 6 and p["completion_code"].notna().all()
    assert p["bot"].all() and ratings["bot"].all()  # exported, and marked as bots
    store = TinyDBStorage(db)
    try:
        assert len(json.loads((out_dir / "records.json").read_text())) == len(store.records())
    finally:
        store.close()


@pytest.mark.slow  # 1.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_bots_mix_and_include_withdrawn(tmp_path, capsys):
    folder = make_study(tmp_path, per_participant=4)
    db = tmp_path / "db"
    code, out, _ = run(capsys, "bots", folder, "-n", 12, "--db", db, "--seed", 1)
    assert code == 0 and out.startswith("12 bots played (")
    from infact.participation.flow import Flow
    from infact.study.loader import load_study

    store = TinyDBStorage(db)
    try:
        token = store.records(kind="complete")[0]["participant"]
        Flow(load_study(folder), store).withdraw(token)
    finally:
        store.close()
    run(capsys, "export", "--study", folder, "--db", db, "--out", tmp_path / "a")
    run(capsys, "export", "--study", folder, "--db", db, "--out", tmp_path / "b", "--include-withdrawn")
    a = pd.read_csv(tmp_path / "a" / "participants.csv")
    b = pd.read_csv(tmp_path / "b" / "participants.csv")
    assert token not in set(a["participant"]) and len(b) == len(a) + 1
    assert b.set_index("participant").loc[token, "status"] == "withdrawn"


def test_bots_use_the_infact_db_variable(tmp_path, capsys, monkeypatch):
    folder = make_study(tmp_path, per_participant=4)
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "envdb"))
    code, _, _ = run(capsys, "bots", folder, "-n", 2, "--strategy", "attentive")
    assert code == 0
    store = TinyDBStorage(tmp_path / "envdb")
    try:
        assert len(store.records(kind="complete")) == 2
    finally:
        store.close()


def test_domain_errors_exit_2_without_traceback(tmp_path, capsys):
    folder = make_study(tmp_path, attention_check={"positions": [0, 9]})
    code, _, err = run(capsys, "bots", folder, "-n", 1, "--db", tmp_path / "db")
    assert code == 2
    assert err.startswith("error: ") and "[attention_check.positions]" in err and "Traceback" not in err
    code, _, err = run(
        capsys, "export", "--study", tmp_path / "nowhere", "--db", tmp_path / "db", "--out", tmp_path / "x"
    )
    assert code == 2 and "not found" in err
