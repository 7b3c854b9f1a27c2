"""`python -m infact analyze`: CSV and store input, JSON/text output, reports, errors."""

import json
from pathlib import Path

import pytest

from infact.cli.main import main
from simulations.ratings import simulate_ratings

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


@pytest.fixture
def csv(tmp_path):
    df = simulate_ratings(20, 5, (2.0, 3.0, 4.0), seed=1)
    df["criterion"] = "meaningful"
    df["is_attention_check"] = df["situation_id"] == "s4"
    df["excluded"] = df["participant"].isin(["p0", "p1", "p2"])
    # tokens "007" and "7" are two people: read as numbers they would merge
    df["participant"] = df["participant"].replace({"p3": "007", "p4": "7"})
    path = tmp_path / "ratings.csv"
    df.to_csv(path, index=False)
    return path


def run_json(capsys, *argv):
    assert main(["analyze", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_output_from_csv(csv, capsys):
    r = run_json(capsys, str(csv), "--no-mixed-model", "--n-boot", "200")
    assert r["criterion"] == "meaningful"
    assert r["n_participants"] == 17 and r["n_flagged_participants"] == 3
    assert r["n_attention_check_rows_dropped"] == 20 * 3
    assert r["systems"]["sys2"]["mean"] > r["systems"]["sys0"]["mean"]
    assert r["mixed_model"] is None and r["bootstrap"]["n_boot"] == 200
    assert set(r) >= {"n_ratings", "friedman", "pairwise", "icc_participant", "krippendorff_alpha", "position_bias"}


def test_include_flagged_and_criterion(csv, capsys):
    r = run_json(
        capsys, str(csv), "--no-mixed-model", "--include-flagged", "--criterion", "meaningful", "--n-boot", "100"
    )
    assert r["n_participants"] == 20 and r["include_flagged"] is True


def test_text_summary_and_reports(csv, tmp_path, capsys):
    md, page = tmp_path / "out.md", tmp_path / "out.html"
    assert main(["analyze", str(csv), "--no-mixed-model", "--report", str(md)]) == 0
    out = capsys.readouterr().out
    assert "### Friedman test" in out and f"report written to {md}" in out
    assert md.read_text().startswith("# INFACT analysis")
    assert main(["analyze", str(csv), "--report", str(page)]) == 0
    text = page.read_text()
    assert "vegaEmbed" in text and "<table>" in text and "### Mixed model" not in text
    assert "system=sys1" in text  # mixed model estimates are in the HTML too


@pytest.mark.parametrize(
    "argv, expect",
    [
        (["missing.csv"], "file not found"),
        ([], "either RATINGS.csv or --study"),
        (["--study", "somewhere"], "somewhere/study.toml: not found"),  # --db falls back like every command
        (["{csv}", "--criterion", "fluency"], "criterion 'fluency' not found"),
        (["{csv}", "--report", "out.pdf"], "out.md or out.html"),
        (["{csv}", "--n-boot", "10"], "100 or more"),
    ],
)
def test_errors_are_messages_not_tracebacks(csv, capsys, argv, expect):
    argv = [a.replace("{csv}", str(csv)) for a in argv]
    assert main(["analyze", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expect in err and "Traceback" not in err


def test_bad_csv_contents(tmp_path, capsys):
    no_col = tmp_path / "a.csv"
    no_col.write_text("participant,system,rating\na,x,3\n")
    assert main(["analyze", str(no_col)]) == 2
    assert f"error: {no_col}:1: [situation_id] missing column" in capsys.readouterr().err
    bad_rating = tmp_path / "b.csv"
    bad_rating.write_text("participant,situation_id,system,rating\na,s,x,3\nb,s,x,great\n")
    assert main(["analyze", str(bad_rating)]) == 2
    assert f"{bad_rating}:3: [rating] rating 'great' is not a whole number" in capsys.readouterr().err
    binary = tmp_path / "c.csv"
    binary.write_bytes(b"\xff\xfe\x00\x01participant\n")
    assert main(["analyze", str(binary)]) == 2
    assert "not a readable CSV" in capsys.readouterr().err


@pytest.mark.slow  # 1.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_study_and_store_input(tmp_path, capsys):
    if not (DEMO / "study.toml").is_file():
        pytest.skip("demo study not present")
    assert hasattr(pytest.importorskip("infact.results.study_results"), "open_results")
    from infact.participation.bots import run_bots
    from infact.storage import open_storage
    from infact.study.loader import load_study

    db = tmp_path / "store"
    storage = open_storage(db)
    try:
        run_bots(load_study(DEMO), storage, 6, strategy="attentive", seed=1)
    finally:
        storage.close()
    r = run_json(capsys, "--study", str(DEMO), "--db", str(db), "--no-mixed-model", "--n-boot", "200", "--include-bots")
    assert r["n_participants"] == 6
    assert len(r["systems"]) == 3 and r["friedman"]["n_participants"] == 6
    assert r["position_bias"]["counts"]
