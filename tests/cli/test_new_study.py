"""`infact new DIR [--protocol …] [--from FILE]` (issue 40 item 1): a working, commented study for every protocol,
from sample data or your own table; never overwriting a file without --force; the library the in-app builder uses."""

from __future__ import annotations

import tomllib

import pytest

from infact.cli.main import main
from infact.study.loader import load_study, validate_study
from infact.study.protocol_config import OWN_INSTRUCTIONS
from infact.study.starter import PROTOCOLS, draft_study, render_toml, study_files, write_study_folder
from tests.support.paths import REPO

DIALOGS = REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv"  # six movie dialogs, three systems


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_new_writes_a_commented_study_that_validates_for_every_protocol(tmp_path, capsys, protocol):
    folder = tmp_path / f"my-{protocol}"
    assert main(["new", str(folder), "--protocol", protocol]) == 0
    study, errors, _ = validate_study(folder)
    assert errors == [] and study is not None
    text = (folder / "study.toml").read_text(encoding="utf-8")
    assert text.startswith("# ") and "infact validate" in text  # commented: what to do next
    assert study.id == f"my-{protocol}"
    assert study.config.protocol.kind == PROTOCOLS[protocol]
    assert "wrote a" in capsys.readouterr().out


def test_a_study_from_six_dialogs_and_its_pairwise_variant_without_writing_toml(tmp_path, capsys):
    """The issue's walk: a CSV of six dialogs ending with a user turn and three systems, to a ratings study and a
    pairwise one, no TOML and no code written."""
    assert main(["new", str(tmp_path / "ratings"), "--from", str(DIALOGS)]) == 0
    assert main(["new", str(tmp_path / "pairwise"), "--protocol", "pairwise", "--from", str(DIALOGS)]) == 0
    out = capsys.readouterr().out
    assert "6 situations from 6 rows" in out and "systems: MovieBot, CineLLM, Baseline" in out
    ratings, pairwise = load_study(tmp_path / "ratings"), load_study(tmp_path / "pairwise")
    for study in (ratings, pairwise):
        assert study.systems == ["MovieBot", "CineLLM", "Baseline"]
        assert len(study.situations) + 1 == 6  # one dialog is the attention check's
        assert study.config.study.situations_per_participant == 6
        lo, hi = study.config.attention_check.positions
        assert 1 <= lo <= hi <= 6
    assert ratings.config.texts.instructions == OWN_INSTRUCTIONS["rating"]
    assert pairwise.config.texts.instructions == OWN_INSTRUCTIONS["pairwise"]
    first = ratings.situation("m03-t3")
    assert [t.role for t in first.context] == ["user", "bot", "user"]
    assert first.context[-1].text == 'thoughtful, something like "Arrival (2016)"'


def test_new_never_replaces_a_file_without_force_and_keeps_it_with_force(tmp_path, capsys):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.toml").write_text("# my own work\n", encoding="utf-8")
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["new", str(folder), "--from", str(DIALOGS)]) == 2
    err = capsys.readouterr().err
    assert "already holds study.toml" in err and "--force" in err
    assert (folder / "study.toml").read_text(encoding="utf-8") == "# my own work\n"
    assert not (folder / "situations.jsonl").exists()

    assert main(["new", str(folder), "--from", str(DIALOGS), "--force"]) == 0
    [backup] = folder.glob("study.toml.bak-*")
    assert backup.read_text(encoding="utf-8") == "# my own work\n"  # nothing the researcher had is lost
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert validate_study(folder)[1] == []


def test_new_into_a_folder_of_other_files_writes_beside_them(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "dialogs.csv").write_bytes(DIALOGS.read_bytes())
    assert main(["new", str(folder), "--from", str(folder / "dialogs.csv")]) == 0
    assert (folder / "dialogs.csv").read_bytes() == DIALOGS.read_bytes()


@pytest.mark.parametrize("protocol", ["acute", "conversations"])
def test_from_a_table_for_a_whole_conversation_protocol_says_what_to_do(tmp_path, capsys, protocol):
    assert main(["new", str(tmp_path / "s"), "--protocol", protocol, "--from", str(DIALOGS)]) == 2
    err = capsys.readouterr().err
    assert "import conversations" in err and f"--protocol {protocol}" in err
    assert not (tmp_path / "s").exists()


def test_a_live_study_from_a_table_is_refused_with_the_way(tmp_path, capsys):
    assert main(["new", str(tmp_path / "s"), "--protocol", "live", "--from", str(DIALOGS)]) == 2
    err = capsys.readouterr().err
    assert "--protocol live` (the built-in demo chatbots)" in err and "[live.systems]" in err
    assert not (tmp_path / "s").exists()


def test_a_draft_that_would_not_load_is_refused_before_anything_is_written(tmp_path):
    from infact.errors import InfactError
    from infact.importers.table import read_table
    from infact.study.starter import checked_files

    draft = draft_study(situations=read_table(DIALOGS).situations)
    draft.systems = ["MovieBot", "NoSuchSystem"]  # e.g. a builder's typo: no situation has its responses
    with pytest.raises(InfactError, match="NoSuchSystem"):
        checked_files(draft)
    assert list(tmp_path.iterdir()) == []


def test_from_a_situations_file_keeps_it_as_it_is(tmp_path):
    source = REPO / "data" / "demo" / "situations.jsonl"
    assert main(["new", str(tmp_path / "s"), "--from", str(source)]) == 0
    assert (tmp_path / "s" / "situations.jsonl").read_text(encoding="utf-8").count("\n") == 40
    assert load_study(tmp_path / "s").systems == ["CineMate", "FlickBot", "ReelTalk"]


def test_best_worst_from_a_table_of_two_systems_is_refused_with_the_fix(tmp_path, capsys):
    table = tmp_path / "two.csv"
    table.write_text('id,context,A,B\nd1,"User: hi",a,b\n', encoding="utf-8")
    assert main(["new", str(tmp_path / "s"), "--protocol", "best-worst", "--from", str(table)]) == 2
    assert "at least 3 systems" in capsys.readouterr().err


def test_new_without_a_folder_says_so(capsys):
    assert main(["new"]) == 2
    assert "give the folder" in capsys.readouterr().err


def test_the_builder_s_library_takes_and_returns_objects(tmp_path):
    """The in-app builder calls these without the CLI: a draft object, its TOML text, its files as bytes."""
    from infact.importers.table import read_table

    read = read_table(DIALOGS)
    draft = draft_study("pairwise", study_id="from-app", title="Mine", situations=read.situations)
    draft.systems = ["MovieBot", "CineLLM"]  # a builder may drop a system before writing
    text = render_toml(draft)
    assert tomllib.loads(text)["study"]["systems"] == ["MovieBot", "CineLLM"]
    files = study_files(draft)
    assert set(files) == {"study.toml", "situations.jsonl"}
    written = write_study_folder(tmp_path / "app", files)
    assert sorted(p.name for p in written) == ["situations.jsonl", "study.toml"]
    assert load_study(tmp_path / "app").systems == ["MovieBot", "CineLLM"]


def test_too_few_situations_for_an_attention_check_turn_it_off_and_say_so(tmp_path):
    from infact.importers.table import read_table

    table = tmp_path / "t.csv"
    table.write_text('id,context,A,B\nd1,"User: hi",a,b\nd2,"User: yo",c,d\n', encoding="utf-8")
    draft = draft_study(situations=read_table(table).situations)
    assert draft.attention is None and any("too few" in n for n in draft.notes)
    write_study_folder(tmp_path / "s", study_files(draft))
    assert load_study(tmp_path / "s").config.study.situations_per_participant == 2
