"""The dashboard script refuses on its own, however it is reached (by URL, legacy pages/ routing)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

DASHBOARD = Path(__file__).resolve().parents[2] / "pages" / "dashboard.py"


def test_dashboard_script_run_directly_refuses_without_sign_in(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = AppTest.from_file(str(DASHBOARD), default_timeout=60).run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Please sign in first."]
    assert not at.metric and not at.tabs and not at.get("download_button")


def test_dashboard_script_runs_for_a_signed_in_researcher(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = AppTest.from_file(str(DASHBOARD), default_timeout=60)
    at.session_state["researcher_signed_in"] = True
    at.run()
    assert not at.exception
    from infact.results.quality.funnel import FIGURES

    assert [m.label for m in at.metric] == [label for label, _ in FIGURES.values()]


@pytest.mark.parametrize("cloud", [True, False])
def test_banner_warns_about_tinydb_on_community_cloud_only(tmp_path, monkeypatch, cloud):
    import infact.stores.config

    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setattr(infact.stores.config, "on_community_cloud", lambda env=None: cloud)
    at = AppTest.from_file(str(DASHBOARD), default_timeout=60)
    at.session_state["researcher_signed_in"] = True
    at.run()
    assert any("answers will be lost" in w.value for w in at.warning) is cloud


def test_community_cloud_detection():
    from infact.stores.config import on_community_cloud

    if Path("/mount/src").is_dir():
        pytest.skip("this machine looks like Community Cloud")
    assert on_community_cloud({"USER": "appuser"}) is True
    assert on_community_cloud({"HOSTNAME": "streamlit-abc"}) is True
    assert on_community_cloud({"USER": "root", "HOSTNAME": "laptop"}) is False
