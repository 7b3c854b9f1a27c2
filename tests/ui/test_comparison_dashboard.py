"""The dashboard of comparison studies (AppTest, issue 19 point 4): Results and Statistics show the
votes or best–worst choices, Exports offers only files with rows, the live demo has a Ranking."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact.access.auth import hash_password
from infact.participation.bots import run_bots
from infact.results.study_results import StudyResults
from infact.storage import TinyDBStorage
from infact.study.loader import load_study

pytestmark = pytest.mark.slow  # four demos played by bots and drawn: minutes on a shared machine

REPO = Path(__file__).resolve().parents[2]
EMPTY = ("No ratings yet.", "Statistics need ratings", "No votes yet.", "No best–worst choices yet.")


def texts(at: AppTest) -> str:
    return " ".join(
        [m.value for m in at.markdown]
        + [i.value for i in at.info]
        + [s.value for s in at.subheader]
        + [c.value for c in at.caption]
    )


def dashboard(study_dir: Path, db: Path, monkeypatch, section: str) -> AppTest:
    monkeypatch.setenv("INFACT_STUDY", str(study_dir))
    monkeypatch.setenv("INFACT_DB", str(db))
    at = AppTest.from_file(str(REPO / "pages" / "dashboard.py"), default_timeout=180)
    at.session_state["researcher_signed_in"] = True
    at.secrets["researcher"] = {"password_hash": hash_password("pw")}
    at.run()
    at.segmented_control(key="section").set_value(section).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module", params=["demo-pairwise", "demo-acute", "demo-best-worst", "demo-live"])
def played(request, tmp_path_factory):
    folder = REPO / "data" / request.param
    db = tmp_path_factory.mktemp(request.param) / "db"
    run_bots(load_study(folder), TinyDBStorage(db), 8, strategy="attentive", seed=5)
    return folder, db


def test_results_and_statistics_show_what_the_study_collected(played, monkeypatch):
    folder, db = played
    results = texts(dashboard(folder, db, monkeypatch, "Results"))
    for empty in EMPTY:
        assert empty not in results, (folder.name, empty)
    want = {
        "demo-pairwise": "Votes per system",
        "demo-acute": "Votes per system",
        "demo-best-worst": "Best and worst choices per system",
        "demo-live": "Arena votes after the live chats",
    }
    assert want[folder.name] in results
    if folder.name == "demo-live":
        assert "Mean rating per system" in results  # its situations are rated: both kinds, one study
    statistics = texts(dashboard(folder, db, monkeypatch, "Statistics"))
    for empty in EMPTY:
        assert empty not in statistics, (folder.name, empty)
    assert "| rank | system | strength (log) | 95% CI | rank range |" in statistics


def test_exports_offer_only_files_with_rows(played, monkeypatch):
    from infact.results.dashboard import offer
    from infact.results.export import export_bytes

    folder, db = played
    at = dashboard(folder, db, monkeypatch, "Exports")
    names = [d.proto.label.split(" — ")[0] for d in at.get("download_button")]
    rates = folder.name == "demo-live"
    assert ("ratings.csv" in names) is rates and ("ratings_wide.csv" in names) is rates
    assert "pairwise.csv" in names or "best_worst.csv" in names
    study = load_study(folder)
    files = export_bytes(StudyResults(study, TinyDBStorage(db).records(study=study.id)).tables, study.systems)
    assert names == list(offer.offered_files(study.config, files)[0])  # the page offers what the core picks
    for name in names:
        if name.endswith(".csv"):
            assert len(pd.read_csv(io.BytesIO(files[name]))) > 0, name


def test_every_comparison_demo_and_the_live_arena_has_a_ranking(played, monkeypatch):
    folder, db = played
    at = dashboard(folder, db, monkeypatch, "Ranking")
    assert "No votes yet." not in texts(at)
    assert len(at.dataframe) >= 2  # the ranking table and the win rates or best–worst scores
    if folder.name == "demo-best-worst":  # its ranking carries the ledger of the systems shown (docs/ranking.md)
        [ledger] = [d.value for d in at.dataframe if "intended_share" in d.value.columns]
        assert set(ledger["status"]) == {"in study"} and ledger["votes"].sum() > 0
    if folder.name == "demo-live":
        assert "Arena votes after the live chats" in texts(at)
