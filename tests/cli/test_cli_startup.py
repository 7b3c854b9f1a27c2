"""`infact --help` imports nothing heavy: the command list is data (infact/cli/commands.py) and a
command's module is imported only when that command runs. Behaviour, not timing: the timing is
bench/cli_help.py's."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from infact.cli.commands import COMMANDS
from infact.cli.main import build_parser, main

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
HEAVY = ("pandas", "numpy", "streamlit", "scipy", "pydantic", "tinydb", "sqlalchemy", "httpx", "openai", "openpyxl")


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_importing_the_command_line_loads_no_pandas_numpy_or_streamlit():
    loaded = top_level(modules_after("import infact.cli.main"))
    assert not loaded & set(HEAVY), f"`import infact.cli.main` imported {sorted(loaded & set(HEAVY))}"


def test_the_help_imports_no_command_module():
    loaded = modules_after("from infact.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass")
    command_modules = {f"infact.cli.{c.module}" for c in COMMANDS.values()}
    assert not loaded & command_modules, sorted(loaded & command_modules)
    assert not top_level(loaded) & set(HEAVY)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_s_help_imports_nothing_heavy(command):
    """What makes `infact COMMAND --help` take over 0.3 s is an import (pandas alone is ~1 s of CPU):
    bench/cli_help.py times every command; this says which imports a command's help may not make."""
    loaded = modules_after(
        f"from infact.cli.main import main\ntry:\n    main([{command!r}, '--help'])\nexcept SystemExit:\n    pass"
    )
    assert not top_level(loaded) & set(HEAVY), f"{command} --help imports {sorted(top_level(loaded) & set(HEAVY))}"


def nested_commands() -> list[list[str]]:
    """Every command path below a top-level command: ["import", "redial"], ["prolific", "create"], …"""
    paths, todo = [], [([], build_parser())]
    while todo:
        path, parser = todo.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [([*path, name], sub) for name, sub in action.choices.items()]
        if len(path) > 1:
            paths.append(path)
    return sorted(paths)


def test_every_nested_command_s_help_imports_nothing_heavy():
    """`import crs-arena --help`, `prolific create --help`, …: one interpreter asks them all in turn."""
    paths = nested_commands()
    assert ["import", "crs-arena"] in paths and ["prolific", "create"] in paths
    loaded = modules_after(
        "import contextlib, io\nfrom infact.cli.main import main\n"
        f"for path in {paths!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        main([*path, '--help'])"
    )
    assert not top_level(loaded) & set(HEAVY), f"a nested --help imports {sorted(top_level(loaded) & set(HEAVY))}"


def test_chat_stub_offers_exactly_the_built_in_demo_systems():
    from infact.chat import demo_systems
    from infact.chat.http_server import DEMO_SYSTEMS
    from infact.cli import chat

    assert chat.DEMO_SYSTEMS == DEMO_SYSTEMS
    assert all(callable(getattr(demo_systems, name)) for name in DEMO_SYSTEMS)


def test_a_command_imports_its_own_module_and_no_other_command_module():
    loaded = modules_after(
        "from infact.cli.main import main\ntry:\n    main(['plan', '--help'])\nexcept SystemExit:\n    pass"
    )
    assert "infact.cli.results" in loaded
    assert not loaded & {f"infact.cli.{c.module}" for c in COMMANDS.values() if c.module != "results"}


def test_every_module_registers_exactly_the_commands_the_list_gives_it():
    for module in dict.fromkeys(c.module for c in COMMANDS.values()):
        parser = build_parser([name for name, c in COMMANDS.items() if c.module == module])
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        complete = {name for name, p in sub.choices.items() if p.description}  # the stand-ins have none
        assert complete == {name for name, c in COMMANDS.items() if c.module == module}, module


def test_the_whole_parser_lists_the_commands_in_the_order_and_words_of_the_list():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert [(a.dest, a.help) for a in sub._choices_actions] == [(n, c.summary) for n, c in COMMANDS.items()]


def test_the_help_lists_every_command_with_its_summary(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for name, command in COMMANDS.items():
        assert f"{name} {' '.join(command.summary.split())}" in out


def test_an_unknown_command_names_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["valdate", "data/demo"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'valdate'" in err and "'validate'" in err and "'chat-stub'" in err


def test_validate_runs_through_the_parser_built_for_it_alone(capsys):
    assert main(["validate", "--study", str(REPO / "data" / "demo")]) == 0
    assert capsys.readouterr().out.startswith("ok: study 'demo'")
