"""`python -m infact verify-codes`: MTurk codes checked against stored completions."""

from infact.cli.main import main
from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.paths import DEMO_STUDY


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
    assert lines[0].startswith("worker_id,submitted,matched,participant")
    assert [line.split(",")[2] for line in lines[1:]] == ["True", "True", "False"]
    assert results[0].token in lines[1] and results[1].token in lines[2]
    assert "2 of 3 codes match" in err


def test_verify_codes_missing_file_is_a_clear_error(tmp_path, capsys):
    rc = main(["verify-codes", str(tmp_path / "missing.txt"), "--study", str(DEMO_STUDY), "--db", str(tmp_path / "db")])
    assert rc == 2
    assert "missing.txt" in capsys.readouterr().err


def test_verify_codes_refuses_a_code_submitted_by_another_worker(tmp_path, capsys):
    """MTurk batch results name the worker: a stolen code (right code, wrong worker) does not verify."""
    from infact.participation.bots import Bot
    from tests.support.studies import make_study

    folder = make_study(tmp_path, name="mturk", per_participant=2, platform={"kind": "mturk"})
    study = load_study(folder)
    store = TinyDBStorage(tmp_path / "db")
    codes = {}
    for n, worker in enumerate(["A1WORKER", "B2WORKER"]):
        query = {"workerId": worker, "assignmentId": f"ASG{n}", "hitId": "HIT1"}
        token = Bot(study, store, "attentive", seed=n, query=query).run().token
        [done] = store.records(study=study.id, participant=token, kind="complete")
        codes[worker] = done["completion_code"]
    batch = tmp_path / "batch.csv"
    batch.write_text(
        f"WorkerId,Answer.surveycode\nA1WORKER,{codes['A1WORKER']}\nB2WORKER,{codes['A1WORKER']}\n"
    )  # B2 pasted A1's code
    rc = main(["verify-codes", str(batch), "--study", str(folder), "--db", str(tmp_path / "db")])
    out, err = capsys.readouterr()
    assert rc == 1
    rows = out.strip().splitlines()[1:]
    assert rows[0].split(",")[2] == "True" and rows[1].split(",")[2] == "False"
    assert "another worker ID" in rows[1]
    assert "1 of 2 codes match" in err
