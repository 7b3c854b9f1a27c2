"""`python -m infact analyze`: CSV and store input, JSON/text output, reports, errors."""

import json
from pathlib import Path

import pandas as pd
import pytest

from infact.cli.main import main
from infact.stats import N_BOOT
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


@pytest.fixture
def tables(tmp_path):
    """A ratings.csv, a pairwise.csv and a best_worst.csv, small."""
    from tests.support.votes import honest

    simulate_ratings(6, 3, (2.0, 3.0), seed=3).to_csv(tmp_path / "ratings.csv", index=False)
    honest(60).to_csv(tmp_path / "pairwise.csv", index=False)
    choices = {"participant": ["p1", "p2"], "situation_id": ["s1"] * 2, "criterion": "m", "systems": ["A|B|C"] * 2}
    pd.DataFrame({**choices, "best": ["A", "B"], "worst": ["C", "C"]}).to_csv(tmp_path / "best_worst.csv", index=False)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["R", "--n-boot", "10"],
            f"--n-boot: 10 replicates give no stable interval; use 100 or more (default {N_BOOT}).",
        ),
        (["R", "--confidence", "0.2"], "--confidence: 0.2 is not a confidence level; use e.g. 0.95."),
        (["R", "--anomaly-quantile", "1.5"], "--anomaly-quantile: 1.5 is not a quantile to flag above; use e.g. 0.99."),
        (["R", "--repeat-cap", "0"], "--repeat-cap: 0 would flag every vote; give 1 or more."),
        (["R", "--min-votes", "-1"], "--min-votes: -1 is negative; give 0 (nothing provisional) or more."),
        (
            ["P", "--covariates", "politeness"],
            "--covariates: unknown covariate 'politeness'; choose from length, items, e.g. --covariates length,items.",
        ),
        (["R", "--reweight"], "--reweight: reweighting pairs needs a table of a kind that takes it (pairwise.csv)."),
        (
            ["B", "--covariates", "length"],
            "--covariates: style control needs a table of a kind that takes it (pairwise.csv).",
        ),
        (
            ["P", "--n-boot", "100", "--label-models"],
            "--label-models: the label models take a ratings table (ratings.csv).",
        ),
        (
            ["R", "--no-mixed-model", "--n-boot", "100", "--judge", "x"],
            "--judge: 'x' is not NAME=FILE.csv; e.g. --judge gpt4=judge_gpt4.csv.",
        ),
        (["R", "--kind", "nosuch"], "--kind: [nosuch] no table kind 'nosuch'; the declared ones are ratings, pairwise"),
        (
            ["B", "--n-boot", "100", "--judge", "a=R"],
            "--judge: judges are compared with ratings.csv or pairwise.csv, not a best_worst table.",
        ),
        (
            ["R", "--no-mixed-model", "--n-boot", "100", "--judge", "j=missing.csv"],
            "missing.csv: judge file not found; give --judge NAME=FILE.csv with an existing file.",
        ),
        (
            ["P", "--n-boot", "100", "--covariates", "length"],
            "{dir}/pairwise.csv: [length_a] --covariates length needs columns length_a, length_b (written by "
            "`python -m infact export`); add them or drop the covariate.",
        ),
    ],
)
def test_an_option_the_library_refuses_is_named_by_its_flag(tables, capsys, argv, line):
    """The library names its option (`n_boot`: OptionError); the user reads the flag, as before the split."""
    files = {"R": "ratings.csv", "P": "pairwise.csv", "B": "best_worst.csv"}
    argv = [str(tables / files[a]) if a in files else a.replace("=R", f"={tables / 'ratings.csv'}") for a in argv]
    assert main(["analyze", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: " + line.replace("{dir}", str(tables))) and err.count("error: ") == 1


def test_a_table_of_bots_only_is_refused_naming_the_flag_that_analyses_it(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    simulate_ratings(4, 2, (2.0, 3.0), seed=1).assign(bot=True).to_csv(path, index=False)
    assert main(["analyze", str(path), "--no-mixed-model", "--n-boot", "100"]) == 2
    assert capsys.readouterr().err == (
        f"error: {path}: [bot] every participant here is a bot (4, played by `infact bots`): their answers show only "
        "the quality the bots were told to plant, not what people think. Pass --include-bots to analyse them anyway "
        "(e.g. to try the analysis out before the study starts).\n"
    )
    assert main(["analyze", str(path), "--no-mixed-model", "--n-boot", "100", "--include-bots", "--json"]) == 0


def test_every_library_option_has_one_flag_of_analyze():
    import argparse
    import dataclasses

    from infact.cli.analyze import FLAGS
    from infact.cli.main import build_parser
    from infact.results.analyze import Options

    extra = {"kind", "alt_epsilon", "label_models", "max_participants"}  # `kind`; options read from `Options.extra`
    assert set(FLAGS) == {f.name for f in dataclasses.fields(Options) if f.name != "extra"} | extra
    [sub] = [a for a in build_parser(["analyze"])._actions if isinstance(a, argparse._SubParsersAction)]
    flags = {s for action in sub.choices["analyze"]._actions for s in action.option_strings}
    assert set(FLAGS.values()) <= flags and len(set(FLAGS.values())) == len(FLAGS)


@pytest.mark.slow  # bots play the demo study, then one analysis with a judge and a report
def test_a_study_analysis_loads_the_study_once(tmp_path, capsys, monkeypatch):
    """The study is read once per run: the analysis, the judges' situation features, --responses naming the same
    study and the report's datasheet all use the loaded one (they read it again, up to three times, before)."""
    from infact.participation.bots import run_bots
    from infact.results.study_results import open_results
    from infact.storage import open_storage
    from infact.study import loader

    db = tmp_path / "store"
    storage = open_storage(db)
    try:
        run_bots(loader.load_study(DEMO), storage, 6, strategy="attentive", seed=1)
        ratings = open_results(loader.load_study(DEMO), storage).tables.ratings
    finally:
        storage.close()
    judge = tmp_path / "judge.csv"
    keys = ["situation_id", "system", "criterion"]
    ratings.groupby(keys)["rating"].mean().reset_index(name="score").to_csv(judge, index=False)
    loads = []
    assemble = loader.assemble
    monkeypatch.setattr(loader, "assemble", lambda *a, **kw: loads.append(a[0]) or assemble(*a, **kw))
    argv = ["--study", str(DEMO), "--db", str(db), "--judge", f"mean={judge}", "--responses", str(DEMO)]
    out = tmp_path / "out.md"
    r = run_json(capsys, *argv, "--report", str(out), "--no-mixed-model", "--n-boot", "100", "--include-bots")
    assert len(loads) == 1 and r["judges"]["mean"]["n_items"] > 0 and r["judge_alignment"]
    assert "Methods paragraph" in out.read_text() and "No datasheet" not in out.read_text()


def test_a_database_urls_password_is_never_named_in_the_result_or_report():
    from infact.cli.analyze import shown_target

    shown = shown_target("postgresql://infact:s3cret-pw@db.example.org:5432/infact")
    assert "s3cret-pw" not in shown and "db.example.org" in shown and "***" in shown
    assert shown_target("db/demo") == "db/demo"
