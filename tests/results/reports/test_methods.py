"""The quotable methods paragraph and the embedded datasheet in `analyze --report`, from the same facts."""

from __future__ import annotations

import pandas as pd
import pytest

from infact.cli.main import main
from infact.participation.bots import run_bots
from infact.results.reports.datasheet import SECTIONS
from infact.results.reports.methods import methods_paragraph
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.paths import REPO


@pytest.mark.slow  # 2.4 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_report_quotes_n_exclusions_design_and_statistics_and_embeds_the_datasheet(tmp_path, capsys):
    folder = REPO / "data" / "demo"
    study, db = load_study(folder), tmp_path / "db"
    run_bots(study, TinyDBStorage(db), 4, strategy="attentive", seed=1)
    run_bots(study, TinyDBStorage(db), 2, strategy="straightliner", seed=2)
    out = tmp_path / "report.md"
    assert (
        main(
            [
                "analyze",
                "--study",
                str(folder),
                "--db",
                str(db),
                "--report",
                str(out),
                "--no-mixed-model",
                "--n-boot",
                "200",
                "--include-bots",  # the crowd is bots (left out by default)
            ]
        )
        == 0
    )
    assert main(["export", "--study", str(folder), "--db", str(db), "--out", str(tmp_path / "export")]) == 0
    capsys.readouterr()
    text = out.read_text(encoding="utf-8")
    para = text.split("## Methods paragraph (quotable)\n\n", 1)[1].split("\n", 1)[0]
    p = pd.read_csv(tmp_path / "export" / "participants.csv", dtype=str)
    completed = p["stage"] == "completed"
    excluded = int((completed & (p["decision"] == "exclude")).sum())
    assert f"{len(p)} participants consented and {int(completed.sum())} completed the study" in para
    assert f"{excluded} completed participants were excluded" in para
    assert f"leaving {int(completed.sum()) - excluded}" in para
    assert study.config.criteria[0].question in para and "3 systems (CineMate, FlickBot, ReelTalk)" in para
    assert "participant-cluster bootstrap intervals (200 replicates)" in para and "Friedman" in para
    for key, title in SECTIONS.items():
        assert f"### {key} {title}" in text  # the datasheet, one heading level down


def test_without_a_study_the_paragraph_says_the_design_is_not_recorded():
    result = {
        "kind": "pairwise",
        "n_participants": 12,
        "bootstrap": {"n_boot": 500, "confidence": 0.9},
        "min_votes": 30,
        "fragility": {"top": {}},
    }
    text = methods_paragraph(result)
    assert "12 participants" in text and "not recorded" in text
    assert "90% intervals" in text and "500 replicates" in text and "fewer than 30 decisive votes" in text
