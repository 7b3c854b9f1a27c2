"""`python -m infact verify-codes`: MTurk codes checked against stored completions."""

from infact.participation.bots import run_bots
from infact.cli.main import main
from infact.storage import TinyDBStorage
from infact.study.loader import load_study

from conftest import DEMO_STUDY


def test_verify_codes_matches_stored_completions(tmp_path, capsys):
    store = TinyDBStorage(tmp_path / "db")
    results = run_bots(load_study(DEMO_STUDY), store, 3, strategy="attentive", seed=3)
    codes = [r.completion_code for r in results]
    submitted = tmp_path / "codes.txt"
    submitted.write_text("\n".join([codes[0].lower(), codes[1].replace("-", ""), "NOPE-NOPE-NO"]) + "\n")
    rc = main(["verify-codes", str(submitted), "--study", str(DEMO_STUDY), "--db", str(tmp_path / "db")])
    out, err = capsys.readouterr()
    assert rc == 1  # one code does not match
    lines = out.strip().splitlines()
    assert lines[0].startswith("submitted,matched,participant")
    assert [l.split(",")[1] for l in lines[1:]] == ["True", "True", "False"]
    assert results[0].token in lines[1] and results[1].token in lines[2]
    assert "2 of 3 codes match" in err


def test_verify_codes_missing_file_is_a_clear_error(tmp_path, capsys):
    rc = main(["verify-codes", str(tmp_path / "missing.txt"), "--study", str(DEMO_STUDY), "--db", str(tmp_path / "db")])
    assert rc == 2
    assert "missing.txt" in capsys.readouterr().err
