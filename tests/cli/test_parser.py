"""The command line's shape: argparse only in infact/cli, every command and option explained,
shared arguments (study folder, store) behaving the same in every command."""

from __future__ import annotations

import argparse
import ast
import tomllib

import pytest

from infact.access.auth import verify_password
from infact.cli.args import HelpFormatter
from infact.cli.main import build_parser, main
from tests.support.paths import DEMO_STUDY, REPO


def subcommands(parser: argparse.ArgumentParser, path: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path}{name}", sub
                yield from subcommands(sub, f"{path}{name} ")


COMMANDS = dict(subcommands(build_parser()))


def test_the_walk_sees_every_command():
    assert {
        "validate",
        "bots",
        "export",
        "verify-codes",
        "plan",
        "analyze",
        "migrate",
        "hash-password",
        "settings-doc",
        "import",
        "import redial",
        "import responses",
        "import infact-txt",
        "import infact-export",
    } <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_a_description_and_every_option_help_with_its_default(name):
    parser = COMMANDS[name]
    assert parser.description and parser.description.rstrip().endswith((".", ")")), (
        f"{name}: description missing or cut off"
    )
    formatter = HelpFormatter(name)
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        text = formatter._get_help_string(action)
        assert action.help and action.help.strip(), f"{name} {action.dest}: no help text"
        unset = (
            action.default is None
            or action.default is False
            or action.default == []
            or action.default == argparse.SUPPRESS
        )
        assert unset or "default" in text, f"{name} {action.dest}: help does not show the default {action.default!r}"


def test_argparse_is_imported_only_in_the_cli_package():
    offenders = []
    for path in (REPO / "infact").rglob("*.py"):
        if path.parent.name == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if "argparse" in names:
                offenders.append(str(path.relative_to(REPO)))
    assert offenders == []


def test_the_study_folder_is_given_the_same_way_everywhere():
    for name in (
        "validate",
        "bots",
        "export",
        "verify-codes",
        "analyze",
        "import responses",
        "import redial",
        "import infact-txt",
    ):
        options = {o for a in COMMANDS[name]._actions for o in a.option_strings}
        assert "--study" in options, name
    migrate = {o for a in COMMANDS["migrate"]._actions for o in a.option_strings}
    assert "--study" not in migrate and "--study-id" in migrate  # a study id, not a folder


@pytest.mark.parametrize(
    "argv",
    [
        ["bots", "--study", str(DEMO_STUDY), "-n", "1", "--db", "{tmp}/answers.json"],
        ["export", "--study", str(DEMO_STUDY), "--db", "{tmp}/answers.json", "--out", "{tmp}/out"],
        ["verify-codes", "{tmp}/codes.txt", "--study", str(DEMO_STUDY), "--db", "{tmp}/answers.json"],
        ["migrate", "--from", "{tmp}/answers.json", "--to", "{tmp}/copy"],
        ["migrate", "--from", "{tmp}/store", "--to", "{tmp}/copy.db"],
    ],
)
def test_a_store_path_that_looks_like_a_file_is_refused(tmp_path, capsys, argv):
    (tmp_path / "codes.txt").write_text("ABC\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "looks like a file" in err and "TinyDB directory" in err
    assert not (tmp_path / "answers.json").exists() and not (tmp_path / "copy.db").exists()


def test_the_store_falls_back_to_infact_db_then_secrets(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("INFACT_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('[connections.infact]\nurl = "bad.json"\n')
    assert main(["bots", "--study", str(DEMO_STUDY), "-n", "1"]) == 2  # the secrets' store was used...
    assert "bad.json" in capsys.readouterr().err  # ...and refused: it names a file
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "env-db"))  # the variable wins over secrets
    assert main(["bots", "--study", str(DEMO_STUDY), "-n", "1", "--strategy", "attentive"]) == 0
    assert (tmp_path / "env-db" / "shards").is_dir()


def test_two_different_study_folders_are_refused(tmp_path, capsys):
    assert main(["validate", str(DEMO_STUDY), "--study", str(tmp_path)]) == 2
    assert "two different study folders" in capsys.readouterr().err
    assert main(["validate", str(DEMO_STUDY), "--study", str(DEMO_STUDY)]) == 0


def test_validate_explains_why_the_demo_has_38_of_its_40_situations(capsys):
    assert main(["validate", "--study", str(DEMO_STUDY)]) == 0
    out = capsys.readouterr().out
    assert "38 situations (the files hold 40; 2 belong to dialog demo-05" in out
    assert "attention check" in out and "never rated as a regular situation" in out


@pytest.mark.slow  # 1.8 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_hash_password_write_twice_leaves_one_valid_researcher_section(tmp_path, capsys):
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    secrets.parent.mkdir()
    secrets.write_text(
        '[connections.infact]\nurl = "postgresql://u:p@h/db"\n\n[researcher]\n'
        'password_hash = "old"\nallowed_emails = ["a@uni.edu"]\n\n[study]\ndir = "data/x"\n'
    )
    for password in ("first-password-1", "second-password-2"):
        assert main(["hash-password", "--password", password, "--write", str(secrets)]) == 0
    text = secrets.read_text()
    data = tomllib.loads(text)
    assert text.count("[researcher]") == 1 and text.count("password_hash") == 1
    assert verify_password("second-password-2", data["researcher"]["password_hash"])
    assert data["researcher"]["allowed_emails"] == ["a@uni.edu"]
    assert data["connections"]["infact"]["url"] == "postgresql://u:p@h/db" and data["study"]["dir"] == "data/x"


def test_hash_password_write_repairs_a_file_appended_to_twice(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('[researcher]\npassword_hash = "a"\n[researcher]\npassword_hash = "b"\n')  # invalid TOML
    assert main(["hash-password", "--password", "third-password-3", "--write", str(secrets)]) == 0
    assert verify_password("third-password-3", tomllib.loads(secrets.read_text())["researcher"]["password_hash"])


def test_hash_password_write_creates_a_private_file(tmp_path, capsys):
    secrets = tmp_path / "new-secrets.toml"
    assert main(["hash-password", "--password", "fourth-password-4", "--write", str(secrets)]) == 0
    assert secrets.stat().st_mode & 0o077 == 0
    assert list(tomllib.loads(secrets.read_text())) == ["researcher"]
    assert main(["hash-password", "--password", "short"]) == 2


def test_hash_password_refuses_to_write_into_a_broken_file(tmp_path, capsys):
    secrets = tmp_path / "secrets.toml"
    broken = '[connections.infact\nurl = "x"\n'
    secrets.write_text(broken)
    assert main(["hash-password", "--password", "fifth-password-5", "--write", str(secrets)]) == 2
    assert "not valid TOML" in capsys.readouterr().err and secrets.read_text() == broken
