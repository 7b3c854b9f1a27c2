"""Between-subjects conditions (issue 41 item 2): `[conditions.NAME]` overlays, assignment at consent balanced by
completions with leases (an abandoned place is given again), `?q=` forcing one, the condition on every answer and
every exported table."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from infact.errors import ConfigError
from infact.participation.bots import Bot, run_bots
from infact.participation.conditions import condition_counts
from infact.participation.flow import Flow
from infact.participation.platforms import PlatformError
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.paths import REPO
from tests.support.studies import FakeClock, make_study, walk

DEMO = REPO / "data" / "demo-conditions"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _completions(storage, study) -> Counter:
    return Counter(r.get("condition") for r in storage.records(study=study.id) if r["kind"] == "complete")


def _arrivals(storage, study) -> list[str]:
    arrivals = [r for r in storage.records(study=study.id) if r["kind"] == "arrival"]
    return [r["condition"] for r in sorted(arrivals, key=lambda r: r["at"])]


def test_forty_bots_end_twenty_twenty_by_completions_and_abandoned_places_are_given_again():
    study = load_study(DEMO)
    storage = MemoryStorage()
    # Four participants forced into `examples` open the study and close the tab: their places are held for the
    # lease (30 minutes), so the next four arrivals go to `definition`.
    for i in range(4):
        Bot(study, storage, "abandons", seed=i, start=T0, query={"q": "examples"}).run()
    run_bots(study, storage, 4, strategy="attentive", seed=1, start=T0 + timedelta(minutes=1))
    assert _arrivals(storage, study) == ["examples"] * 4 + ["definition"] * 4
    # Two hours later the abandoned leases have ended: their places are given again, so `examples` is filled first.
    results = run_bots(study, storage, 36, strategy="attentive", seed=2, start=T0 + timedelta(hours=2))
    assert all(r.outcome == "completed" for r in results)
    assert _arrivals(storage, study)[8:12] == ["examples"] * 4
    assert _completions(storage, study) == {"definition": 20, "examples": 20}
    # Situations are balanced within each condition, so each condition's analysis covers every situation alike.
    for condition in study.conditions:
        per = Counter(
            r["situation_id"]
            for r in storage.records(study=study.id)
            if r["kind"] == "situation" and r["condition"] == condition and not r.get("attention_check")
        )
        assert len(per) == len(study.situations) and max(per.values()) - min(per.values()) <= 1, condition
    counts = condition_counts(storage.records(study=study.id), study.id, study.conditions, 30, T0 + timedelta(hours=9))
    assert counts["examples"]["abandoned"] == 4 and counts["examples"]["completed"] == 20


@pytest.mark.slow
def test_concurrent_consents_stay_balanced():
    study = load_study(DEMO)
    storage = MemoryStorage()
    run_bots(study, storage, 40, strategy="attentive", seed=3, concurrency=8, start=T0)
    assert _completions(storage, study) == {"definition": 20, "examples": 20}


def test_every_answer_and_every_exported_table_carries_the_condition():
    study = load_study(DEMO)
    storage = MemoryStorage()
    run_bots(study, storage, 6, strategy="attentive", seed=4, start=T0)
    answers = [r for r in storage.records(study=study.id) if r["kind"] in ("consent", "situation", "questionnaire")]
    assert answers and all(r["condition"] in study.conditions for r in answers)
    tables = StudyResults(study, storage.records(study=study.id)).tables
    for name, frame in tables.as_dict().items():
        if "participant" in frame.columns and len(frame):
            assert frame["condition"].isin(study.conditions).all(), name
    files = StudyResults(study, storage.records(study=study.id)).files()
    for name, data in files.items():
        header = data.split(b"\n", 1)[0] if name.endswith(".csv") else b""
        if b"participant" in header.split(b",")[:1]:
            assert header.split(b",")[1] == b"condition", name


def _two_system_sets(tmp_path):
    folder = make_study(tmp_path, systems=("Alpha", "Beta", "Gamma"))
    text = (folder / "study.toml").read_text()
    text += (
        '\n[conditions.ab.study]\nsystems = ["Alpha", "Beta"]\n'
        '[conditions.ab.scale]\nlabels = ["awful", "poor", "ok", "good", "great"]\n'
        '[conditions.ab.attention_check]\nexpected = ["poor"]\n'
        '\n[conditions.bc.study]\nsystems = ["Beta", "Gamma"]\n'
        '[conditions.bc.texts]\ninstructions = "Rate the replies of B and C."\n'
    )
    (folder / "study.toml").write_text(text)
    return folder


def test_q_forces_a_condition_whose_settings_the_participant_gets(tmp_path):
    study = load_study(_two_system_sets(tmp_path))
    clock = FakeClock(T0)
    flow = Flow(study, MemoryStorage(), clock=clock, rng=random.Random(0))
    token = flow.arrive({"q": "ab"})
    mine = flow.of(flow.state(token))
    assert mine.condition == "ab" and mine.cfg.scale.labels[0] == "awful"
    walk(mine, token)
    records = flow.storage.records(study=study.id, participant=token)
    plan = next(r for r in records if r["kind"] == "assignment")["steps"]
    assert all(set(s["order"]) == {"Alpha", "Beta"} for s in plan)
    ratings = StudyResults(study, flow.storage.records(study=study.id)).tables.ratings
    assert set(ratings["system"]) == {"Alpha", "Beta"} and set(ratings["condition"]) == {"ab"}
    assert set(ratings["rating_label"]) <= {"awful", "poor", "ok", "good", "great"}
    other = flow.arrive({"q": "bc"})
    assert flow.of(flow.state(other)).cfg.texts.instructions == "Rate the replies of B and C."
    with pytest.raises(PlatformError, match="not a condition of this study"):
        flow.arrive({"q": "zz"})


@pytest.mark.parametrize(
    ("overlay", "key", "says"),
    [
        (
            '[conditions.a.sampling]\nmode = "all"\n[conditions.b.texts]\nwelcome = "x"\n',
            "conditions.a.sampling",
            "cannot change [sampling]",
        ),
        (
            '[conditions.a.scale]\nlabels = ["only"]\n[conditions.b.texts]\nwelcome = "x"\n',
            "conditions.a.scale.labels",
            "at least 2",
        ),
        (
            '[conditions.a.study]\nsystems = ["Zeta"]\n[conditions.b.texts]\nwelcome = "x"\n',
            "conditions.a.study.systems",
            "not in study.systems",
        ),
        (
            '[conditions.a.study]\nid = "other"\n[conditions.b.texts]\nwelcome = "x"\n',
            "conditions.a.study.id",
            "cannot change study.id",
        ),
        ('[conditions.a.texts]\nwelcome = "x"\n', "conditions", "at least two conditions"),
    ],
)
def test_a_bad_condition_is_named_with_its_line(tmp_path, overlay, key, says):
    folder = make_study(tmp_path)
    path = folder / "study.toml"
    path.write_text(path.read_text() + "\n" + overlay)
    with pytest.raises(ConfigError) as err:
        load_study(folder)
    problem = next(p for p in err.value.problems if p.key == key)
    assert says in problem.message and problem.line is not None
    assert (
        path.read_text().splitlines()[problem.line - 1].strip().startswith(("[conditions", "labels", "systems", "id"))
    )


def test_validate_and_bots_say_what_each_condition_shows_and_completed(tmp_path, capsys):
    from infact.cli.main import main

    assert main(["validate", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert "condition 'examples': systems CineMate, FlickBot, ReelTalk; changes texts.instructions" in out
    args = ["bots", "--study", str(DEMO), "-n", "4", "--db", str(tmp_path / "db"), "--strategy", "attentive"]
    assert main(args) == 0
    assert "completed per condition: definition 2, examples 2" in capsys.readouterr().out


def test_the_kept_up_to_date_counts_equal_the_counts_from_all_records():
    from infact.participation import conditions

    study = load_study(DEMO)
    storage = MemoryStorage()
    load = conditions.ConditionLoad(storage, study.id)
    results = run_bots(study, storage, 12, seed=8, start=T0)  # the realistic mix: abandoners, screened out, …
    first = load.counts(study.conditions, 30, T0 + timedelta(minutes=10))
    done = next(r for r in results if r.outcome == "completed")
    Flow(study, storage, clock=FakeClock(T0 + timedelta(hours=1))).withdraw(done.token, "changed their mind")
    for now in (T0 + timedelta(minutes=10), T0 + timedelta(hours=5)):
        expected = condition_counts(storage.records(study=study.id), study.id, study.conditions, 30, now)
        assert load.counts(study.conditions, 30, now) == expected
    assert sum(n["withdrawn"] for n in expected.values()) == 1
    assert sum(n["completed"] for n in first.values()) == sum(n["completed"] for n in expected.values()) + 1
