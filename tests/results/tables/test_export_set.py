"""Exports are written as a set: all files or none, never a mix of old and new."""

from __future__ import annotations

import errno

import pytest

import infact.fileio
from infact.cli.main import main
from infact.fileio import MANIFEST
from infact.results.export import files_of
from infact.study.loader import load_study
from tests.support.paths import DEMO_STUDY

FILES = files_of(load_study(DEMO_STUDY).config)  # what an export of the demo holds


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "db"
    assert main(["bots", "--study", str(DEMO_STUDY), "-n", "3", "--db", str(db), "--strategy", "attentive"]) == 0
    return db


def export(store, out, *extra) -> int:
    return main(["export", "--study", str(DEMO_STUDY), "--db", str(store), "--out", str(out), *extra])


def snapshot(folder):
    """The export's files (its manifest, .infact-export.json, aside)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name != MANIFEST}


def test_a_full_disk_leaves_the_previous_export_intact(store, tmp_path, monkeypatch, capsys):
    out = tmp_path / "exports"
    assert export(store, out) == 0
    before = snapshot(out)
    assert set(before) == set(files_of(load_study(DEMO_STUDY).config))
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
    assert "holds 1 file(s) an export did not write (my-notes.txt)" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["my-notes.txt"]


def test_a_new_export_replaces_every_file_of_the_old_one(store, tmp_path):
    out = tmp_path / "exports"
    assert export(store, out) == 0
    (out / "ratings_wide.csv").write_text("stale")
    assert export(store, out) == 0
    assert (out / "ratings_wide.csv").read_text() != "stale" and set(snapshot(out)) == set(FILES)


def test_hidden_files_are_never_deleted_and_refused_without_force(store, tmp_path, capsys):
    """F8: a folder holding only .git/ and .env: refused by name; with --force written beside them, both kept."""
    out = tmp_path / "results"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (out / ".env").write_text("SECRET=1\n")
    assert export(store, out) == 2
    err = capsys.readouterr().err
    assert f"error: {out}: holds 2 file(s) an export did not write (.env, .git)" in err and "--force" in err
    assert sorted(p.name for p in out.iterdir()) == [".env", ".git"]
    assert export(store, out, "--force") == 0
    assert (out / ".env").read_text() == "SECRET=1\n" and (out / ".git" / "HEAD").exists()
    assert {p.name for p in out.iterdir()} == set(FILES) | {".env", ".git", MANIFEST}
    assert export(store, out) == 2  # still not the export's own: refused again without --force
    assert (out / ".env").exists()


def test_force_replaces_only_files_with_an_exports_name_and_says_so(store, tmp_path, capsys):
    out = tmp_path / "results"
    out.mkdir()
    (out / "ratings.csv").write_text("my own ratings")
    (out / "notes.txt").write_text("keep")
    assert export(store, out) == 2 and (out / "ratings.csv").read_text() == "my own ratings"
    capsys.readouterr()
    assert export(store, out, "--force") == 0
    assert f"warning: {out / 'ratings.csv'}: replaced (--force)" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "keep" and (out / "ratings.csv").read_text() != "my own ratings"


def test_the_default_folders_gitkeep_survives(store, tmp_path):
    """F8: the repository's exports/ holds a tracked .gitkeep; an export keeps it, and so does the next one."""
    out = tmp_path / "exports"
    out.mkdir()
    (out / ".gitkeep").write_text("")
    assert export(store, out) == 0 and export(store, out) == 0
    assert (out / ".gitkeep").exists() and set(snapshot(out)) == set(FILES) | {".gitkeep"}


def test_the_manifest_lists_the_export_and_an_old_export_without_one_is_still_replaced(store, tmp_path):
    import json

    out = tmp_path / "exports"
    assert export(store, out) == 0
    assert json.loads((out / MANIFEST).read_text())["files"] == sorted(FILES)
    (out / MANIFEST).unlink()  # as an export before manifests left it
    (out / "pairwise.csv").write_text("an older export's table")
    assert export(store, out) == 0 and set(snapshot(out)) == set(FILES)  # the stale table of the set is gone


def test_a_manifest_naming_a_hidden_file_does_not_make_it_the_exports(store, tmp_path, capsys):
    import json

    out = tmp_path / "exports"
    assert export(store, out) == 0
    (out / ".env").write_text("SECRET=1\n")
    (out / MANIFEST).write_text(json.dumps({"files": [*FILES, ".env"]}))
    assert export(store, out) == 2 and "(.env)" in capsys.readouterr().err
    assert (out / ".env").read_text() == "SECRET=1\n"
