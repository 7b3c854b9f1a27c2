"""`infact prolific …` prints what it will do before doing it, and turns Prolific's faults into `error:` lines."""

from __future__ import annotations

import pytest

from infact.cli.main import main
from simulations.prolific_stub import ProlificStub
from tests.support.prolific import TOKEN, prolific_study_folder


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    folder = prolific_study_folder(tmp_path)
    with ProlificStub(TOKEN) as stub:

        def cli(action: str, *more: str) -> int:
            return main(
                [
                    "prolific",
                    action,
                    "--study",
                    str(folder),
                    "--db",
                    str(tmp_path / "db"),
                    "--base-url",
                    stub.url,
                    *more,
                ]
            )

        cli.stub = stub
        yield cli


def test_create_prints_the_draft_before_creating_it_once(run, capsys):
    assert run("create", "--dry-run") == 0
    out = capsys.readouterr().out
    for shown in ("PROLIFIC_PID={{%PROLIFIC_PID%}}", "COMPLETED=C1ABCD23", "places:        6", "desktop"):
        assert shown in out
    assert "dry run" in out and not run.stub.studies
    assert run("create") == 0 and run("create") == 0
    assert "already created" in capsys.readouterr().out and len(run.stub.studies) == 1


def test_publish_without_yes_is_refused_with_the_reason(run, capsys):
    assert run("create") == 0
    assert run("publish") == 2
    assert "--yes" in capsys.readouterr().err
    (study,) = run.stub.studies.values()
    assert study["status"] == "UNPUBLISHED"


def test_faults_become_error_lines(run, capsys):
    assert run("sync") == 2
    assert "infact prolific create" in capsys.readouterr().err  # nothing recorded yet
    assert run("sync", "--prolific-id", "0" * 24) == 2
    assert "404" in capsys.readouterr().err
    run.stub.fail("POST", "/studies/$", 401)
    assert run("create") == 2
    err = capsys.readouterr().err
    assert "token was refused" in err and TOKEN not in err
