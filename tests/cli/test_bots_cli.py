"""`infact bots` (issue 40, item 6): its own default store, no mixing with people unless asked, `--remove`, and
the planted quality said in --help and in its output."""

from __future__ import annotations

import pytest

from infact.cli.main import main
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.participants import people
from tests.support.studies import make_study


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_configured_store(tmp_path, monkeypatch):
    """No --db, no INFACT_DB, no secrets: the app's default store would be db/<study id>/ (here under tmp)."""
    from infact.stores import config

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("INFACT_DB", raising=False)
    monkeypatch.setattr(config, "default_tinydb_path", lambda study_id: tmp_path / "db" / study_id)
    return tmp_path / "db"


def test_bots_play_into_a_store_of_their_own_by_default(tmp_path, capsys, no_configured_store):
    folder = make_study(tmp_path / "s", per_participant=2)
    study_id = load_study(folder).id
    code, out, _ = run(capsys, "bots", folder, "-n", 2, "--strategy", "attentive")
    assert code == 0
    assert not (no_configured_store / study_id).exists()  # the app's default store is not touched
    own = no_configured_store / f"{study_id}-bots"
    store = TinyDBStorage(own)
    try:
        assert len(store.records(kind="complete")) == 2
    finally:
        store.close()
    assert f"stored in {own}, the bots' own store" in out


def test_a_store_holding_people_is_refused_without_mix_with_real(tmp_path, capsys):
    folder = make_study(tmp_path / "s", per_participant=2)
    db = tmp_path / "db"
    store = TinyDBStorage(db)
    try:
        people(load_study(folder), store, 1)
    finally:
        store.close()
    code, out, err = run(capsys, "bots", folder, "-n", 1, "--db", db)
    assert code == 2 and "holds 1 real participant(s)" in err and "--mix-with-real" in err
    assert "Traceback" not in err and out == ""
    code, out, _ = run(capsys, "bots", folder, "-n", 2, "--db", db, "--mix-with-real", "--strategy", "attentive")
    assert code == 0 and out.startswith("2 bots played (attentive: 2); 2 completed")
    code, out, _ = run(capsys, "bots", folder, "--db", db, "--remove")
    assert code == 0
    assert "removed 2 bot participant(s)" in out and "1 other participant(s) untouched" in out
    store = TinyDBStorage(db)
    try:
        assert len(store.records(kind="arrival")) == 1 and not any(r.get("bot") for r in store.records())
    finally:
        store.close()


def test_help_and_output_say_what_quality_is_planted(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["bots", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--quality" in text and "alike: every system the same mean" in text and "(the default)" in text
    assert "ordered: the systems in study.toml's order, the first best" in text
    assert "speeder: 1-2.5 s a page, random answers (no planted quality)" in text
    folder = make_study(tmp_path / "s", per_participant=2)
    code, out, _ = run(capsys, "bots", folder, "-n", 2, "--db", tmp_path / "db", "--strategy", "attentive")
    assert code == 0 and "planted quality: every system alike (mean 3.0)" in out
    assert "  attentive: reads each page" in out
    code, out, _ = run(
        capsys, "bots", folder, "-n", 1, "--db", tmp_path / "db2", "--strategy", "speeder", "--quality", "ordered"
    )
    assert code == 0 and "planted quality: Alpha 4.1 > Beta 1.9 (--quality ordered)" in out
    code, _, err = run(capsys, "bots", folder, "-n", 1, "--db", tmp_path / "db3", "--quality", "Alpha=9")
    assert code == 2 and "--quality" in err
