"""Exports are written as a set: all files or none, never a mix of old and new."""

from __future__ import annotations

import errno

import pytest

import infact.fileio
from infact.cli.main import main
from infact.results.tables.export import FILES
from tests.support.paths import DEMO_STUDY


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "db"
    assert main(["bots", "--study", str(DEMO_STUDY), "-n", "3", "--db", str(db), "--strategy", "attentive"]) == 0
    return db


def export(store, out, *extra) -> int:
    return main(["export", "--study", str(DEMO_STUDY), "--db", str(store), "--out", str(out), *extra])


def snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_full_disk_leaves_the_previous_export_intact(store, tmp_path, monkeypatch, capsys):
    out = tmp_path / "exports"
    assert export(store, out) == 0
    before = snapshot(out)
    assert set(before) == set(FILES)
    main(["bots", "--study", str(DEMO_STUDY), "-n", "2", "--db", str(store), "--strategy", "attentive", "--seed", "9"])
    real, calls = infact.fileio.atomic_write_bytes, []

    def fills_up(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(infact.fileio, "atomic_write_bytes", fills_up)
    capsys.readouterr()
    assert export(store, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out}: nothing written (No space left on device)") and "unchanged" in err
    assert snapshot(out) == before  # not one new file beside the old ones
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left behind
    monkeypatch.setattr(infact.fileio, "atomic_write_bytes", real)
    assert export(store, out) == 0 and snapshot(out)["participants.csv"] != before["participants.csv"]


def test_an_export_never_deletes_files_it_did_not_write(store, tmp_path, capsys):
    out = tmp_path / "results"
    out.mkdir()
    (out / "my-notes.txt").write_text("keep me")
    assert export(store, out) == 2
    assert "holds other files (my-notes.txt)" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["my-notes.txt"]


def test_a_new_export_replaces_every_file_of_the_old_one(store, tmp_path):
    out = tmp_path / "exports"
    assert export(store, out) == 0
    (out / "ratings_wide.csv").write_text("stale")
    assert export(store, out) == 0
    assert (out / "ratings_wide.csv").read_text() != "stale" and set(snapshot(out)) == set(FILES)
