"""The HEDS 3.0 datasheet of every demo study after bots: every count equals participants.csv and the funnel,
every section is there, and what the study cannot say is listed as missing."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from infact.cli.main import main
from infact.participation.bots import run_bots
from infact.results.reports import datasheet as ds
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from infact.values import bool_column
from tests.support.paths import REPO

DEMOS = sorted(p.name for p in (REPO / "data").glob("demo*") if (p / "study.toml").is_file())
# Bots play each demo first (seconds each): the fast subset keeps a ratings and a comparison demo, the full run all.
FAST_DEMOS = {"demo", "demo-pairwise"}
DEMO_PARAMS = [d if d in FAST_DEMOS else pytest.param(d, marks=pytest.mark.slow) for d in DEMOS]


def missing_sections(sheet: dict) -> list[str]:
    """HEDS sections absent from a datasheet (or present without content)."""
    got = sheet.get("sections", {})
    return [k for k in ds.SECTIONS if k not in got or not (got[k].get("fields") or got[k].get("criteria"))]


@pytest.fixture(scope="module", params=DEMO_PARAMS)
def written(request, tmp_path_factory):
    folder = REPO / "data" / request.param
    tmp = tmp_path_factory.mktemp(request.param)
    study, db = load_study(folder), tmp / "db"
    run_bots(study, TinyDBStorage(db), 5, strategy="attentive", seed=1)
    run_bots(study, TinyDBStorage(db), 2, strategy="straightliner", seed=2)
    sheet_argv = ["datasheet", "--study", str(folder), "--db", str(db), "--out", str(tmp / "sheet")]
    assert main([*sheet_argv, "--include-bots"]) == 0  # the crowd is bots (left out by default)
    assert main(["export", "--study", str(folder), "--db", str(db), "--out", str(tmp / "export")]) == 0
    sheet = json.loads((tmp / "sheet" / "datasheet.json").read_text(encoding="utf-8"))
    return study, sheet, (tmp / "sheet" / "datasheet.md").read_text(encoding="utf-8"), tmp / "export"


def field(sheet: dict, fid: str) -> dict:
    sec = sheet["sections"][fid.rsplit(".", 1)[0] if fid.count(".") == 2 else fid.split(".")[0]]
    return next(f for f in sec["fields"] if f["id"] == fid)


def test_every_heds_section_is_written(written):
    _, sheet, md, _ = written
    assert sheet["heds_version"] == "3.0" and missing_sections(sheet) == []
    for key, title in ds.SECTIONS.items():
        assert f"## {key} {title}" in md


def test_a_missing_section_is_caught():
    sheet = {"sections": {k: {"fields": [{"id": k}]} for k in ds.SECTIONS}}
    assert missing_sections(sheet) == []
    del sheet["sections"]["3.2"]
    assert missing_sections(sheet) == ["3.2"]


def test_evaluator_counts_equal_participants_csv(written):
    _, sheet, _, export = written
    p = pd.read_csv(export / "participants.csv", dtype=str)
    visits = pd.read_csv(export / "visits.csv", dtype=str) if (export / "visits.csv").is_file() else None
    counts = field(sheet, "3.2.1")["value"]
    completed = p["stage"] == "completed"
    assert counts["consented"] == int(bool_column(p["consented"]).sum())
    assert counts["completed"] == int(completed.sum())
    assert counts["screened_out"] == int((p["stage"] == "screened_out").sum())
    assert counts["withdrawn"] == int((p["stage"] == "withdrawn").sum())
    assert counts["excluded"] == int((completed & (p["decision"] == "exclude")).sum())
    assert counts["included"] == int((completed & (p["decision"] == "include")).sum())
    left = 0 if visits is None else int((visits["became"].fillna("") == "").sum())
    assert counts["visited"] == len(p) + left
    assert counts["included"] + counts["excluded"] == counts["completed"] == 7
    flagged = p.loc[completed & (p["decision"] == "exclude"), "flags"].dropna().str.split(";").explode().str.strip()
    assert counts["exclusion_reasons"] == {k: int(v) for k, v in flagged[flagged != ""].value_counts().items()}


def test_demographics_and_time_come_from_the_exports(written):
    study, sheet, _, export = written
    p = pd.read_csv(export / "participants.csv", dtype=str)
    included = set(p.loc[(p["stage"] == "completed") & (p["decision"] == "include"), "participant"])
    demo = field(sheet, "3.2.5")["value"]
    if (export / "demographics.csv").is_file() and study.config.demographics:
        d = pd.read_csv(export / "demographics.csv", dtype=str)
        d = d[d["participant"].isin(included)]
        for item, answers in demo.items():
            assert sum(answers.values()) == int((d["item"] == item).sum())
    measured = field(sheet, "3.3.5")["value"]["measured"]
    seconds = pd.to_numeric(p["total_seconds"], errors="coerce").dropna()
    assert measured["n"] == len(seconds) and measured["median"] == pytest.approx(seconds.median() / 60, abs=0.01)


def test_criteria_quote_the_exact_questions_and_labels(written):
    study, sheet, _, _ = written
    criteria = sheet["sections"]["4"]["criteria"]
    cfg = study.config
    if cfg.protocol.kind == "conversation":
        assert [c["name"] for c in criteria] == [a.id for a in cfg.aspects]
        assert criteria[0]["scale"] == list(cfg.aspects[0].labels)
    else:
        assert [c["name"] for c in criteria] == [c.id for c in cfg.criteria]
        if cfg.protocol.kind == "rating":
            assert criteria[0]["question"] == cfg.criteria[0].question
            assert criteria[0]["scale"] == list(cfg.scale.labels)


def test_ethics_texts_are_hashed_and_quoted_and_unknowns_are_missing(written):
    import hashlib

    study, sheet, md, _ = written
    privacy = field(sheet, "5.2")["value"]["privacy_statement"]
    assert privacy["text"] == study.config.texts.privacy
    assert privacy["sha256"] == hashlib.sha256(study.config.texts.privacy.encode()).hexdigest()
    assert privacy["sha256"] in md
    for fid in ("1.1", "5.1", "3.3.6"):
        f = field(sheet, fid)
        assert f["value"] is None and f["missing"] and any(m.startswith(fid + " ") for m in sheet["missing"])
