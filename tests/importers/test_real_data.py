"""The real files in ../shared/data (skipped when that folder is absent)."""

from pathlib import Path

import pytest

from infact.importers.infact_txt import import_infact_txt
from infact.importers.redial import import_redial
from infact.importers.responses import import_responses
from infact.study.situations import load_situations

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
INFACT = DATA / "infact_redial"
REDIAL = DATA / "redial_sample" / "test_data_head20.jsonl"


@pytest.fixture
def out(import_target):
    return import_target


@pytest.mark.skipif(not INFACT.is_dir(), reason="../shared/data/infact_redial not present")
def test_original_infact_files(out):
    systems = [("KBRD", INFACT / "KBRD.txt"), ("KGSF", INFACT / "KGSF.txt"), ("RB-CRS", INFACT / "RCRS_MLE.txt")]
    report = import_infact_txt(INFACT / "dialogue_data.txt", systems, out)
    sits = {s.situation_id: s for s in load_situations([out / "situations.jsonl"])}
    assert report.counts["dialogs"] == 70
    assert report.counts["cut_points_ending_with_USER"] == 429
    assert len(sits) == report.counts["situations"] == 372
    # every SEEKER line aligned; only the two extra trailing GROUND TRUTH lines did not
    unaligned = [p for p in report.problems if "could not be aligned" in p.message]
    assert [(Path(p.file).name, p.line) for p in unaligned] == [("KBRD.txt", 706), ("KBRD.txt", 1175)]
    # the conversation whose KBRD file has raw @ids still gets KBRD's responses
    assert sits["33-t1"].responses["KBRD"] == '"Black Panther (2018)" is a good one .'
    # title spacing from RCRS_MLE.txt is normalised like the rest
    assert sits["1-t3"].responses["RB-CRS"] == 'SUre. Have you seen "Forrest Gump (1994)" ?'
    # the last cut point of a dialog counts when every system answered it
    assert sits["1-t11"].responses["KBRD"] == "i hope you enjoy it ! have a great day !"
    assert not any("  (" in t.text for s in sits.values() for t in s.context)


@pytest.mark.skipif(not REDIAL.is_file(), reason="../shared/data/redial_sample not present")
def test_redial_sample_then_responses(out, tmp_path):
    report = import_redial(REDIAL, out)
    sits = load_situations([out / "situations.jsonl"])
    assert report.counts["dialogs"] == 20 and len(sits) == report.counts["situations"] == 97
    first = sits[0]
    assert first.context[0].text == 'Hi I am looking for a movie like "Super Troopers (2001)"'
    assert not any("@" in t.text for s in sits for t in s.context)  # every id had a title
    assert all(s.context[-1].role == "user" for s in sits)
    rows = tmp_path / "echo.csv"
    rows.write_text("dialog_id,turn,response\n" + "".join(f"{s.dialog_id},{s.meta['turn']},echo\n" for s in sits[::2]))
    rep = import_responses(out, "Echo", rows)
    assert rep.counts["matched"] == len(sits[::2]) and rep.counts["situations_lacking_Echo"] == len(sits) - len(
        sits[::2]
    )
