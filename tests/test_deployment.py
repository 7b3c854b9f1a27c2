"""Deployment settings: one definition each, read the same way by the app and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from infact import deployment
from infact.errors import ConfigError
from infact.stores.config import store_target

SECRETS = {
    "study": {"dir": "studies/from-secrets"},
    "connections": {"infact": {"url": "postgresql://u:pw@host:5432/db"}},
    "researcher": {"password_hash": "scrypt$x", "allowed_emails": ["a@uni.edu"]},
    "auth": {"client_id": "x"},
}


def test_study_folder_order_environment_then_secrets_then_demo():
    assert deployment.study_folder({"INFACT_STUDY": "env-study"}, SECRETS) == (Path("env-study"), "INFACT_STUDY")
    assert deployment.study_folder({}, SECRETS) == (Path("studies/from-secrets"), "[study] dir")
    assert deployment.study_folder({}, {}) == (deployment.DEMO_STUDY, "the bundled demo (default)")
    assert deployment.study_folder({"INFACT_STUDY": ""}, {"study": {"dir": ""}})[0] == deployment.DEMO_STUDY


def test_store_order_environment_then_secrets_then_tinydb_per_study():
    assert store_target("s1", {"INFACT_DB": "/data/db"}, SECRETS)[0] == "/data/db"
    assert store_target("s1", {}, SECRETS) == ("postgresql://u:pw@host:5432/db", "[connections.infact] in secrets")
    target, source = store_target("s1", {}, {"connections": {"other": {}}})
    assert Path(target) == deployment.REPO / "db" / "s1" and "default" in source


def test_researcher_settings():
    assert deployment.researcher(SECRETS) == {
        "password_hash": "scrypt$x",
        "allowed_emails": ["a@uni.edu"],
        "oidc": True,
    }
    assert deployment.researcher(None) == {"password_hash": None, "allowed_emails": [], "oidc": False}


def test_secrets_files_merge_like_streamlit_and_broken_ones_are_named(tmp_path):
    home, project = tmp_path / "home.toml", tmp_path / "project.toml"
    home.write_text('[study]\ndir = "home-study"\n[researcher]\npassword_hash = "h"\n')
    project.write_text('[study]\ndir = "project-study"\n')
    merged = deployment.load_secrets([home, project, tmp_path / "missing.toml"])
    assert merged["study"]["dir"] == "project-study" and merged["researcher"]["password_hash"] == "h"
    project.write_text("[study\n")
    with pytest.raises(ConfigError) as e:
        deployment.load_secrets([home, project])
    assert e.value.problems[0].file == str(project) and "not valid TOML" in e.value.problems[0].message


def test_a_configured_store_that_names_a_file_is_refused_for_the_app_too(tmp_path):
    from infact.errors import InfactError
    from infact.stores.config import resolve_store

    with pytest.raises(InfactError, match="looks like a file"):
        resolve_store("s1", {}, {"INFACT_DB": str(tmp_path / "answers.json")})
    assert not (tmp_path / "answers.json").exists()
    assert resolve_store("s1", {}, {"INFACT_DB": str(tmp_path / "store")})[0] == str(tmp_path / "store")


def test_the_app_config_runs_no_full_garbage_collection_after_every_script_run():
    """Streamlit's default `runner.postScriptGC` collects every generation after each run: 90-145 ms of a
    participant's click (.streamlit/config.toml says why it is off). Read as `streamlit run` reads it."""
    import subprocess
    import sys

    code = "from streamlit import config; print(config.get_option('runner.postScriptGC'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=deployment.REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
