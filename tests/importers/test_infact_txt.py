"""The original INFACT app's files: content alignment, both layouts, every quirk."""

from pathlib import Path

import pytest

from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.infact_txt import import_infact_txt
from tests.support.importing import IMPORT_FIXTURES, situations_by_id

FIX = IMPORT_FIXTURES
SYSTEMS = [("A", FIX / "sys_after_gt.txt"), ("B", FIX / "sys_after_seeker.txt")]


@pytest.fixture
def out(import_target):
    return import_target


def by_id(out):
    return situations_by_id(out)


def test_alignment_of_both_layouts(out):
    report = import_infact_txt(FIX / "dialogue.txt", SYSTEMS, out)
    s = by_id(out)
    # 1-t5: A has a '**' placeholder; 2-t4: A has no line after the last SEEKER; 3-t3: empty USER line
    assert list(s) == ["1-t1", "1-t3", "1-t7", "2-t2", "3-t1", "3-t5"]
    assert s["1-t1"].responses == {"A": "A1 hi", "B": "B1"}  # trailing spaces trimmed
    assert s["1-t3"].responses == {"A": 'A3 have you seen "Troy (2004)" ?', "B": 'B3 "Gladiator (2000)"'}
    # the last cut point counts; A's line follows an extra GROUND TRUTH line that is not in the dialog
    assert s["1-t7"].responses == {"A": "A7 goodbye", "B": "B7"}
    assert s["2-t2"].responses["A"] == 'A2 "Click (2006)" ?'
    assert s["1-t3"].context[-1].text == 'Something like "Braveheart (1995)" please'
    assert s["1-t7"].meta == {"turn": 7, "n_turns": 7, "relative_position": 1.0, "item_mentioned": True}
    assert s["2-t2"].source["responses_from"] == {"A": "sys_after_gt.txt:19", "B": "sys_after_seeker.txt:16"}
    assert s["2-t2"].source["line"] == 11 and s["2-t2"].source["conversation_id"] == "2"
    assert report.counts["cut_points_ending_with_USER"] == 8
    assert report.counts["left_out_(a_system_lacks_a_response)"] == 2
    assert any("1 placeholder(s), 1 without a A line" in n for n in report.notes)


def test_problems_name_file_and_line(out):
    report = import_infact_txt(FIX / "dialogue.txt", SYSTEMS, out)
    found = {(Path(p.file).name, p.line): p.message for p in report.problems}
    assert "placeholder '**'" in found[("sys_after_gt.txt", 10)]
    assert "GROUND TRUTH line of CONVERSATION:1 could not be aligned" in found[("sys_after_gt.txt", 12)]
    assert "CONVERSATION:9 is not in dialogue.txt" in found[("sys_after_gt.txt", 30)]
    assert "second B line" in found[("sys_after_seeker.txt", 20)]
    assert "empty USER line" in found[("dialogue.txt", 17)]
    assert len(report.problems) == 5  # the opening '**' of a bot-first dialog is not a problem


def test_ground_truth_option_adds_the_next_bot_turn(out):
    import_infact_txt(FIX / "dialogue.txt", [SYSTEMS[1]], out, ground_truth="Human")
    s = by_id(out)
    assert s["1-t1"].responses == {"B": "B1", "Human": "What kind of movies do you like?"}
    assert "1-t7" not in s  # no human reply after the last turn


def test_unaligned_seeker_line_is_reported(out, tmp_path):
    sysf = tmp_path / "s.txt"
    sysf.write_text("CONVERSATION:1\nSEEKER: <s> Hello, </s>\nx1\nSEEKER: <s> totally different words here </s>\nx2\n")
    report = import_infact_txt(FIX / "dialogue.txt", [("X", sysf)], out)
    assert list(by_id(out)) == ["1-t1"]
    assert any(p.line == 4 and "could not be aligned" in p.message for p in report.problems)
    assert any("no CONVERSATION:2 block" in p.message for p in report.problems)


def test_wrong_files_fail_cleanly(out, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("just some text\n")
    before = (out / "study.toml").read_text()
    assert (
        main(
            ["import", "infact-txt", "--dialogs", str(FIX / "dialogue.txt"), "--system", f"X={bad}", "--out", str(out)]
        )
        == 2
    )
    assert "no 'CONVERSATION:n' line" in capsys.readouterr().err
    assert (out / "study.toml").read_text() == before and not (out / "situations.jsonl").exists()
    with pytest.raises(DatasetError, match="unique"):
        import_infact_txt(FIX / "dialogue.txt", [SYSTEMS[0], ("A", SYSTEMS[1][1])], out)


def test_system_argument_needs_name_and_file(capsys):
    with pytest.raises(SystemExit):
        main(["import", "infact-txt", "--dialogs", "d.txt", "--system", "KBRD", "--out", "o"])
    assert "NAME=FILE" in capsys.readouterr().err
