"""The API token reaches Prolific in its header and nowhere else: a whole cycle through the CLI (create,
publish, sync, review --apply, bonus --apply, message, export, and a refused token), then every file the run
wrote and everything it printed is searched for it."""

from __future__ import annotations

from pathlib import Path

from infact.cli.main import main
from tests.support.prolific import TOKEN, play, prolific_study_folder, submissions


def test_no_file_the_run_writes_holds_the_token(tmp_path, stub, monkeypatch, capsys):
    from infact.storage import open_storage
    from infact.study.loader import load_study

    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    folder = prolific_study_folder(tmp_path)
    db = tmp_path / "db"
    storage = open_storage(db)
    play(load_study(folder), storage, ["attentive", "fails-attention", "abandons"])
    storage.close()
    common = ["--study", str(folder), "--db", str(db), "--base-url", stub.url]

    def cli(action: str, *more: str) -> int:
        return main(["prolific", action, *common, *more])

    assert cli("create") == 0
    assert cli("publish", "--yes") == 0
    (prolific_id,) = stub.studies
    submissions(stub, prolific_id, ["AWAITING REVIEW", "AWAITING REVIEW", "RETURNED"])
    assert cli("sync") == 0
    assert cli("review", "--apply") == 0
    bonus_csv = tmp_path / "bonus.csv"
    bonus_csv.write_text("000000000000000000000000,0.50\n")
    assert cli("bonus", "--csv", str(bonus_csv), "--apply") == 0
    assert cli("message", "--to", "000000000000000000000000", "--text", "Thank you for taking part.") == 0
    assert main(["export", "--study", str(folder), "--db", str(db), "--out", str(tmp_path / "exports")]) == 0
    stub.fail("GET", "/submissions/", 401)
    assert cli("sync") == 2  # refused: the error is printed
    printed = capsys.readouterr()
    assert "401" in printed.err
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "participants.csv" for p in files) and len(files) > 10
    holding = [str(p) for p in files if TOKEN.encode() in Path(p).read_bytes()]
    assert not holding, f"the token was written to {holding}"
    assert TOKEN not in printed.out and TOKEN not in printed.err
    assert "RETURNED" in (tmp_path / "exports" / "participants.csv").read_text()
