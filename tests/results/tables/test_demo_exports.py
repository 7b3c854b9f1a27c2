"""Every column written is declared (issue 25, point 3): each bundled demo's export after bots validates
with frictionless, every file's header is exactly its declared columns, and nothing is typed `any`."""

from __future__ import annotations

import csv
import io
import json

import frictionless
import pytest

from infact.participation.bots import run_bots
from infact.results import kinds
from infact.results.dashboard import offer
from infact.results.export import write_exports
from infact.results.study_results import open_results
from infact.results.tables import schemas
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.paths import REPO
from tests.support.studies import FakeClock

DEMOS = sorted(p.parent.name for p in (REPO / "data").glob("demo*/study.toml"))


def header(data: bytes) -> list[str]:
    return next(csv.reader(io.StringIO(data.decode("utf-8"))))


@pytest.fixture(scope="module", params=DEMOS)
def played(request, tmp_path_factory):
    study = load_study(REPO / "data" / request.param)
    storage = MemoryStorage()
    run_bots(study, storage, 3, strategy="attentive", seed=1, start=FakeClock()())
    return study, storage, tmp_path_factory.mktemp(request.param)


def test_a_demo_has_an_export_for_each_of_its_protocols():
    assert {"demo", "demo-pairwise", "demo-acute", "demo-best-worst", "demo-conversations", "demo-live"} <= set(DEMOS)


def test_every_file_s_header_is_exactly_its_declared_columns(played):
    study, storage, _ = played
    files = open_results(study, storage).files()
    for name, data in files.items():
        if not name.endswith(".csv"):
            continue
        schema = kinds.schema_for(name)
        assert schema is not None, f"{study.id}: {name} is written but declares no schema"
        columns = header(data)
        if schema.repeated is None:
            assert columns == schema.names, f"{study.id}: {name}"
        else:  # ratings_wide.csv: the declared columns, then one column per system
            assert columns == [*schema.names, *study.systems] or (
                columns[: len(schema.names)] == schema.names
                and sorted(columns[len(schema.names) :]) == sorted(study.systems)
            ), f"{study.id}: {name}"
    package = json.loads(files["datapackage.json"])
    types = [
        (r["path"], f["name"], f["type"]) for r in package["resources"] for f in r.get("schema", {}).get("fields", [])
    ]
    assert types and not [t for t in types if t[2] == "any"], "a written column is typed `any`"
    described = {r["path"] for r in package["resources"]}
    assert described == set(files) - {"datapackage.json"}


def test_the_export_validates_with_frictionless(played):
    study, storage, out = played
    write_exports(open_results(study, storage), out / "export")
    report = frictionless.validate(str(out / "export" / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:10]


def test_the_dashboard_s_datapackage_lists_only_the_files_it_offers_and_validates(played):
    study, storage, out = played
    offered, _ = offer.offered_files(study.config, open_results(study, storage).files())
    package = json.loads(offered["datapackage.json"])
    assert {r["path"] for r in package["resources"]} == set(offered) - {"datapackage.json"}
    folder = out / "dashboard"
    folder.mkdir()
    for name, data in offered.items():
        (folder / name).write_bytes(data)
    report = frictionless.validate(str(folder / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:10]


def test_a_column_nobody_declared_is_refused_not_written_as_any():
    import pandas as pd

    with pytest.raises(ValueError, match="visits.csv: column.*browser.*not declared"):
        schemas.VISITS.conform(pd.DataFrame({"visit": ["v"], "browser": ["x"]}))
    with pytest.raises(ValueError, match="column 'browser' is written but not declared"):
        schemas.VISITS.frictionless(["visit", "browser"])
    wide = schemas.RATINGS_WIDE.frictionless([*schemas.RATINGS_WIDE.names, "Alpha"])["fields"][-1]
    assert wide == {"name": "Alpha", "type": "integer", "description": schemas.RATINGS_WIDE.repeated.description}


def test_the_live_transcripts_are_a_json_lines_resource_not_a_table():
    study = load_study(REPO / "data" / "demo-live")
    storage = MemoryStorage()
    run_bots(study, storage, 2, strategy="attentive", seed=2, start=FakeClock()())
    files = open_results(study, storage).files()
    [resource] = [r for r in json.loads(files["datapackage.json"])["resources"] if r["path"] == "transcripts.jsonl"]
    assert resource["format"] == "jsonl" and resource["type"] == "file" and "schema" not in resource


def test_the_crs_arena_importer_writes_pairwise_csv_as_declared(tmp_path):
    from infact.importers.crs_arena import import_crs_arena
    from infact.participation.steps.pairwise import PAIRWISE

    import_crs_arena(REPO / "tests" / "importers" / "data" / "crs_arena_votes.csv", tmp_path)
    assert header((tmp_path / "pairwise.csv").read_bytes()) == PAIRWISE.names
