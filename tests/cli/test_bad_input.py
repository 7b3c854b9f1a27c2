"""Bad input never gives a traceback: every command, fed damaged or hostile input, exits non-zero
with `file[:line]: message` naming the file (issue 12). Runs `python3 -m infact` as a user would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import DEMO_STUDY, REPO

DEEP = "[" * 100_000 + "\n"


def study(tmp: Path, situations: str | None = None, toml: str | None = None) -> Path:
    """A copy of the demo study, optionally with another `situations = …` line or study.toml.

    Hand-written on purpose: these tests feed damaged and hostile files, which make_study never writes."""
    folder = tmp / "study"
    shutil.copytree(DEMO_STUDY, folder)
    text = (folder / "study.toml").read_text(encoding="utf-8")
    if situations is not None:
        text = text.replace('situations = ["situations.jsonl"]', f"situations = {situations}")
    (folder / "study.toml").write_text(toml if toml is not None else text, encoding="utf-8")
    return folder


def write(tmp: Path, name: str, content: str | bytes) -> Path:
    path = tmp / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def deep_situations(tmp):
    folder = study(tmp)
    write(folder, "situations.jsonl", DEEP)
    return ["validate", "--study", folder], "situations.jsonl:1"


def link_to_dev_zero(tmp):
    folder = study(tmp, '["zero.jsonl"]')
    os.symlink("/dev/zero", folder / "zero.jsonl")
    return ["validate", "--study", folder], "study.toml"


def fifo_inside(tmp):
    folder = study(tmp, '["pipe.jsonl"]')
    os.mkfifo(folder / "pipe.jsonl")
    return ["bots", "--study", folder, "-n", "1", "--db", tmp / "db"], "pipe.jsonl"


def ratings_csv(tmp):
    rows = "participant,situation_id,system,rating\np1,s1,A,1e30\np1,s1,B,2\np2,s1,A,3\np2,s1,B,4\n"
    return ["analyze", write(tmp, "ratings.csv", rows), "--no-mixed-model"], "ratings.csv:2"


def out_under_a_file(tmp):
    write(tmp, "afile", "x")
    return ["export", "--study", DEMO_STUDY, "--db", tmp / "db", "--out", tmp / "afile" / "exports"], "afile"


DAMAGES = {
    "not UTF-8": '{"_default": {"1": {"x": "caf\xe9"}}}'.encode("latin-1"),
    "a top-level list": b"[1, 2]",
    "wrong structure": b'{"_default": {"a": 5}}',
}


def damaged_store(tmp: Path, damage: str) -> Path:
    """A TinyDB store of two bot participants, one of whose files is then damaged."""
    from infact.cli.main import main

    db = tmp / "db"
    assert main(["bots", "--study", str(DEMO_STUDY), "-n", "2", "--db", str(db), "--strategy", "attentive"]) == 0
    sorted((db / "shards").glob("*.json"))[0].write_bytes(DAMAGES[damage])
    return db


HOSTILE_VOTES = "session_id,user_id,crs1,crs2,vote,feedback\ns1,u1,a,b,a,ok\ns2,u2,a,b,a," + "x" * 140_000 + "\n"

CASES = {
    # issue 29 F6: the importers of CRS Arena's files, fed 200,000 `[` or a cell over csv's 131,072 characters
    "import crs-arena: 200,000 [": lambda tmp: (
        ["import", "crs-arena", write(tmp, "dial.json", "[" * 200_000), "--out", tmp / "o"],
        "dial.json:1: not valid JSON (nested too deeply",
    ),
    "import annotated: 200,000 [": lambda tmp: (
        ["import", "annotated", write(tmp, "agg.json", "[" * 200_000), "--out", tmp / "o"],
        "agg.json:1: not valid JSON (nested too deeply",
    ),
    "import crs-arena: a votes cell over 131,072 characters": lambda tmp: (
        ["import", "crs-arena", write(tmp, "votes.csv", HOSTILE_VOTES), "--out", tmp / "o"],
        "votes.csv:3: unreadable CSV",
    ),
    "import responses: a CSV cell over 131,072 characters": lambda tmp: (
        [
            "import",
            "responses",
            write(tmp, "r.csv", "dialog_id,turn,response\nd1,1," + "x" * 140_000 + "\n"),
            "--study",
            study(tmp),
            "--system",
            "X",
        ],
        "r.csv:2: unreadable CSV",
    ),
    "validate: deeply nested situations": deep_situations,
    "validate: deeply nested study.toml": lambda tmp: (
        ["validate", study(tmp, toml="a = " + "[" * 100_000)],
        "study.toml",
    ),
    "validate: situations = ['.']": lambda tmp: (["validate", study(tmp, '["."]')], "study"),
    "validate: situations = ['/dev/zero']": lambda tmp: (["validate", study(tmp, '["/dev/zero"]')], "study.toml"),
    "validate: situations climb out": lambda tmp: (
        ["validate", study(tmp, '["../../../../etc/passwd"]')],
        "study.toml",
    ),
    "validate: situations = ['/etc/shadow']": lambda tmp: (["validate", study(tmp, '["/etc/shadow"]')], "study.toml"),
    "validate: a symlink to /dev/zero": link_to_dev_zero,
    "bots: a FIFO as situations file": fifo_inside,
    "validate FILE": lambda tmp: (["validate", write(tmp, "study.json", "{}")], "study.json"),
    "import redial: deeply nested": lambda tmp: (
        ["import", "redial", write(tmp, "deep.jsonl", DEEP), "--study", tmp / "o"],
        "deep.jsonl",
    ),
    "import redial: /dev/zero": lambda tmp: (["import", "redial", "/dev/zero", "--study", tmp / "o"], "/dev/zero"),
    "import responses: deeply nested": lambda tmp: (
        ["import", "responses", write(tmp, "deep.jsonl", DEEP), "--study", study(tmp), "--system", "X"],
        "deep.jsonl:1",
    ),
    "import infact-export: deeply nested": lambda tmp: (
        ["import", "infact-export", write(tmp, "deep.json", DEEP), "--out", tmp / "o"],
        "deep.json",
    ),
    "import transcripts: deeply nested": lambda tmp: (
        ["import", "transcripts", write(tmp, "transcripts.jsonl", DEEP), "--study", tmp / "o"],
        "transcripts.jsonl",
    ),
    "import conversations: deeply nested": lambda tmp: (
        ["import", "conversations", write(tmp, "deep.jsonl", DEEP), "--study", tmp / "o", "--system", "X"],
        "deep.jsonl:1",
    ),
    "import conversations: /dev/zero": lambda tmp: (
        ["import", "conversations", "/dev/zero", "--study", tmp / "o", "--system", "X"],
        "/dev/zero",
    ),
    "analyze: a rating of 1e30": ratings_csv,
    "analyze: deeply nested transcripts": lambda tmp: (
        ["analyze", write(tmp, "transcripts.jsonl", DEEP)],
        "transcripts.jsonl:1",
    ),
    "verify-codes: not UTF-8": lambda tmp: (
        [
            "verify-codes",
            write(tmp, "codes.txt", "caf\xe9\n".encode("latin-1")),
            "--study",
            DEMO_STUDY,
            "--db",
            tmp / "db",
        ],
        "codes.txt",
    ),
    "export --out under a file": out_under_a_file,
    "export --db names a file": lambda tmp: (
        ["export", "--study", DEMO_STUDY, "--db", tmp / "answers.json", "--out", tmp / "o"],
        "answers.json",
    ),
    **{
        f"export: a store file {d}": (
            lambda damage: (
                lambda tmp: (
                    ["export", "--study", DEMO_STUDY, "--db", damaged_store(tmp, damage), "--out", tmp / "o"],
                    "quarantine",
                )
            )
        )(d)
        for d in DAMAGES
    },
    **{
        f"migrate: a store file {d}": (
            lambda damage: (
                lambda tmp: (
                    ["migrate", "--from", damaged_store(tmp, damage), "--to", tmp / "copy"],
                    "quarantine",
                )
            )
        )(d)
        for d in DAMAGES
    },
    "import table: /dev/zero": lambda tmp: (["import", "table", "/dev/zero", "--study", tmp / "o"], "/dev/zero"),
    "import table: an .xlsx that is not a workbook": lambda tmp: (
        ["import", "table", write(tmp, "t.xlsx", "not a zip"), "--study", tmp / "o"],
        "t.xlsx",
    ),
    "new --from: deeply nested JSONL": lambda tmp: (
        ["new", tmp / "o", "--from", write(tmp, "t.jsonl", DEEP)],
        "t.jsonl",
    ),
    "new: DIR is a file": lambda tmp: (["new", write(tmp, "taken", "x")], "taken"),
    "hash-password --write a folder": lambda tmp: (
        ["hash-password", "--password", "long-enough-pw", "--write", tmp],
        str(tmp),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.slow  # 1.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_bad_input_gets_a_message_not_a_traceback(case, tmp_path):
    argv, names = CASES[case](tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INFACT_")}
    env.update(PYTHONPATH=str(REPO), HOME=str(tmp_path))  # no secrets.toml of this machine
    proc = subprocess.run(
        [sys.executable, "-m", "infact", *map(str, argv)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    assert names in proc.stderr, proc.stderr
