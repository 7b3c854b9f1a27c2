"""Bots in the tables and the analysis (issue 40, item 6): every exported table with a participant column has a
declared `bot` column; `analyze` and the datasheet leave bots out unless --include-bots."""

import json

import pandas as pd
import pytest

from infact.errors import InfactError, OptionError
from infact.participation.bots import run_bots
from infact.results import kinds
from infact.results.analyze import Options, analysis_of, analyze_results, analyze_table
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import people
from tests.support.studies import make_study


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A study with 3 people and 3 bots in one store (as `bots --mix-with-real` makes it)."""
    study = load_study(make_study(tmp_path_factory.mktemp("mixed"), per_participant=3))
    storage = MemoryStorage()
    humans = set(people(study, storage, 3))
    bots = {r.token for r in run_bots(study, storage, 3, strategy="attentive", seed=4)}
    return study, storage, humans, bots


def test_every_table_with_participants_declares_bot():
    for file, schema in kinds.all_schemas().items():
        if "participant" in schema.names:
            assert "bot" in schema.names, file
            assert schema.column("bot").type == "boolean"


def test_every_exported_table_marks_the_bots(mixed):
    study, storage, humans, bots = mixed
    files = StudyResults(study, storage.records()).files()
    package = json.loads(files["datapackage.json"])
    checked = 0
    for resource in package["resources"]:
        if resource.get("format") != "csv":
            continue
        fields = [f["name"] for f in resource["schema"]["fields"]]
        if "participant" not in fields:
            continue
        assert "bot" in fields, resource["path"]
        from io import BytesIO

        frame = pd.read_csv(BytesIO(files[resource["path"]]), dtype={"participant": str})
        if len(frame):
            marked = dict(zip(frame["participant"], frame["bot"]))
            assert {p for p, b in marked.items() if b} <= bots, resource["path"]
            assert {p for p, b in marked.items() if not b} <= humans, resource["path"]
            checked += 1
    assert checked >= 4  # participants, ratings, ratings_wide, flags, questionnaire, demographics


@pytest.mark.slow  # 3-11 s on the shared machine: two analyses with bootstrap
def test_analysis_leaves_the_bots_out_unless_asked(mixed):
    study, storage, humans, bots = mixed
    results = StudyResults(study, storage.records())
    ratings = results.tables.ratings
    assert set(ratings["participant"]) == humans | bots
    options = Options(mixed_model=False, n_boot=200)
    analysis = analysis_of(ratings, options)
    result = analysis.result
    assert result["bots_left_out"] == 3
    assert "3 bot participant(s) (`infact bots`) are left out" in analysis.render()
    kept = analyze_table(ratings, Options(mixed_model=False, n_boot=200, include_bots=True))
    assert "bots_left_out" not in kept
    assert result["n_participants"] == 3 and kept["n_participants"] == 6


@pytest.mark.slow  # 1.2-2.2 s on the shared machine
def test_analysis_of_bots_only_says_what_to_do(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=3))
    storage = MemoryStorage()
    run_bots(study, storage, 3, strategy="attentive", seed=1)
    ratings = StudyResults(study, storage.records()).tables.ratings
    # the option by its library name (include_bots); the CLI names its flag: tests/cli/test_analyze.py
    with pytest.raises(OptionError, match="every participant here is a bot.*Pass include_bots to"):
        analyze_table(ratings, Options(mixed_model=False, n_boot=200))
    with pytest.raises(InfactError, match="every participant in this store is a bot"):
        analyze_results(StudyResults(study, storage.records()), Options(mixed_model=False, n_boot=200))
    analysis = analyze_results(
        StudyResults(study, storage.records()), Options(mixed_model=False, n_boot=200, include_bots=True)
    )
    assert analysis.table["participant"].nunique() == 3


def test_the_study_analysis_reads_people_only(mixed):
    study, storage, humans, _ = mixed
    analysis = analyze_results(StudyResults(study, storage.records()), Options(mixed_model=False, n_boot=200))
    assert set(analysis.table["participant"]) == humans and analysis.result["bots_left_out"] == 3
