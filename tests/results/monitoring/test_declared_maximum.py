"""`[monitoring] max_participants` declared in study.toml reaches `analyze --study`'s monitoring section as the
finite-horizon boundary (issue 37 item 5), and a maximum that is no number of participants is refused at load."""

from __future__ import annotations

import pytest

from infact.errors import InfactError
from infact.participation.bots import run_bots
from infact.results.analyze import Options, analyze_results
from infact.results.monitoring.stopping import sections
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.studies import make_study


def _analysed(folder, monitoring: str) -> dict:
    toml = folder / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + f"\n[monitoring]\n{monitoring}\n", encoding="utf-8")
    study = load_study(folder)
    storage = MemoryStorage()
    run_bots(study, storage, 3, strategy="attentive", seed=1)
    options = Options(mixed_model=False, n_boot=200, include_bots=True)
    return analyze_results(StudyResults(study, storage.records()), options).result


@pytest.mark.slow  # three bots and a ratings analysis: ~1-2 s
def test_the_declared_maximum_selects_the_finite_horizon_boundary(tmp_path):
    declared = _analysed(make_study(tmp_path / "a", per_participant=3), "max_participants = 40")
    found = sections(declared)
    assert found and all(m["boundary"] == "finite_horizon" and m["maximum"] == 40 for _, m in found)
    assert all(m["method"].startswith("a finite-horizon boundary") for _, m in found)
    assert all(m["beyond_maximum"] is False for _, m in found)  # 3 participants of 40
    open_ended = _analysed(make_study(tmp_path / "b", per_participant=3), "stop_when_settled = true")
    assert all(m["boundary"] == "anytime" and m["maximum"] is None for _, m in sections(open_ended))


@pytest.mark.parametrize("bad", ["0", "-5", '"forty"', "12.5"])
def test_a_maximum_that_is_no_count_of_participants_is_refused_naming_the_setting(tmp_path, bad):
    folder = make_study(tmp_path, per_participant=3)
    toml = folder / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + f"\n[monitoring]\nmax_participants = {bad}\n", encoding="utf-8")
    with pytest.raises(InfactError, match="max_participants"):
        load_study(folder)
