"""One funnel: the dashboard's figures, participants.csv/flags.csv and `analyze` agree.

Bots of every strategy play the demo study; one more participant only opens the link,
one withdraws. The dashboard's incremental data (fed record by record, the way the
live page receives them) and the exported files read back from CSV must give the same
figures, the same decisions and the same excluded-by-reason counts; `analyze` on the
exported ratings must count exactly the included participants.
"""

from __future__ import annotations

import io
from datetime import timedelta

import pandas as pd
import pytest

from infact.participation import visits
from infact.participation.bots import STRATEGIES, run_bots
from infact.participation.flow import Flow
from infact.results.dashboard.data import DashboardData
from infact.results.export import export_bytes
from infact.results.quality import funnel
from infact.results.quality.exclusion import manual_event
from infact.results.ratings.analysis import analyze
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import START, played_by_people, submit_consent
from tests.support.paths import DEMO_STUDY
from tests.support.studies import make_study

LEFT, LEFT_AGAIN, JOINED = ("b" + c * 24 for c in "123")


@pytest.fixture(scope="module")
def crowd(demo):
    storage = MemoryStorage()
    for i, strategy in enumerate(STRATEGIES):
        # people, not bots (who are counted apart once a person is in the store): the same play, unmarked
        played = played_by_people(demo, storage, 3, strategy=strategy, seed=i, start_at=START + timedelta(minutes=i))
        if strategy == "attentive":  # the researcher excludes one by hand (the first has code 0 inside)
            storage.append(manual_event(played[0].token, "exclude", "wrote in German", study=demo.id))
    flow = Flow(demo, storage, clock=lambda: START)
    flow.arrive({})  # opened the link, never consented (bots store an arrival)
    quitter = flow.arrive({})
    submit_consent(flow, quitter)
    flow.withdraw(quitter, "changed my mind")
    # the web page: visits store a `_visits` record only; two leave before consenting (one reloads:
    # the same visit), one consents and becomes a participant (infact.participation.visits)
    for visit in (LEFT, LEFT_AGAIN, LEFT, JOINED):
        visits.store_visit(storage, demo, visit, START)
    joined = flow.arrive({})
    submit_consent(flow, joined)
    visits.store_consent(storage, demo, JOINED, joined, START)
    return storage


def read_csv(files: dict[str, bytes], name: str) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(files[name]))


def fed_one_by_one(study, records) -> DashboardData:
    data = DashboardData(study)
    for start in range(0, len(records), 7):  # the live page gets records in small batches
        data.add(records[start : start + 7])
    return data


@pytest.mark.parametrize("minutes_later", [1, 3 * 60])  # during the study; after every lease expired
def test_dashboard_exports_and_analysis_agree(demo, crowd, minutes_later):
    now = START + timedelta(minutes=minutes_later)
    records = crowd.records()
    data = fed_one_by_one(demo, records)
    cards = data.counts(now)

    files = export_bytes(StudyResults(demo, records, include_withdrawn=True, now=now).tables)
    participants, flags = read_csv(files, "participants.csv"), read_csv(files, "flags.csv")
    assert funnel.funnel_counts(participants, funnel.visits_became(read_csv(files, "visits.csv"))) == cards
    progress, visited = funnel.from_store(crowd, demo.id)  # the first numbers, from the store's summaries
    assert funnel.stage_counts(progress, now, visited) == data.stage_counts(now)

    overview = data.overview(now).set_index("participant")
    assert flags.set_index("participant")["decision"].to_dict() == overview["decision"].to_dict()
    assert funnel.exclusion_reasons(participants).to_dict("records") == funnel.exclusion_reasons(
        data.overview(now)
    ).to_dict("records")

    ratings = read_csv(files, "ratings.csv")
    assert analyze(ratings, mixed_model=False, n_boot=50)["n_participants"] == cards["included"]

    # every strategy shows up where it belongs
    n = 3
    assert cards["visited"] == len(STRATEGIES) * n + 3 + 2  # every participant + two visits that left
    assert cards["consented"] == len(STRATEGIES) * n + 2
    assert cards["withdrawn"] == 1
    assert cards["completed"] == (len(STRATEGIES) - 1) * n  # all but "abandons"
    assert cards["included"] + cards["excluded"] == cards["completed"]
    assert cards["excluded"] == 3 * n + 1  # straightliner, speeder, fails-attention, by hand
    unfinished = n + 2  # the abandoners, the one who never consented, the visitor who joined
    if minutes_later > 60:
        assert cards["stalled"] == n + 1 and cards["active_now"] == 0
    else:
        assert cards["stalled"] == 0 and cards["active_now"] == unfinished


def test_exports_without_withdrawn_agree_on_everything_else(demo, crowd):
    now = START + timedelta(minutes=1)
    cards = fed_one_by_one(demo, crowd.records()).counts(now)
    files = export_bytes(StudyResults(demo, crowd.records(), now=now).tables)
    from_file = funnel.funnel_counts(read_csv(files, "participants.csv"))
    assert from_file["withdrawn"] == 0  # withdrawn data are left out of this export
    assert {k: v for k, v in from_file.items() if k not in ("withdrawn", "visited", "consented")} == {
        k: v for k, v in cards.items() if k not in ("withdrawn", "visited", "consented")
    }


def test_screened_out_participants_have_their_own_stage(tmp_path):
    study = load_study(make_study(tmp_path, quality={"on_attention_fail": "screen_out"}))
    storage = MemoryStorage()
    run_bots(study, storage, 2, strategy="fails-attention", seed=1, start=START)
    run_bots(study, storage, 2, strategy="attentive", seed=2, start=START)
    cards = fed_one_by_one(study, storage.records()).counts(START)
    assert (cards["screened_out"], cards["completed"], cards["included"]) == (2, 2, 2)


def test_progress_names_the_current_step_and_last_activity(demo):
    storage = MemoryStorage()
    run_bots(demo, storage, 1, strategy="abandons", seed=3, start=START)
    (prog,) = funnel.progress_from_records(storage.records()).values()
    assert prog.current_step().startswith("situation ") and prog.current_step().endswith(" of 10")
    assert prog.stage(prog.last_activity) == "in_progress" and prog.active(prog.last_activity)
    later = prog.last_activity + timedelta(minutes=funnel.ACTIVE_MINUTES + 1)
    assert not prog.active(later) and prog.stage(later) == "in_progress"
    assert prog.stage(prog.lease_until + timedelta(seconds=1)) == "stalled"


def test_a_conversation_participant_is_at_a_conversation_not_a_situation():
    study = load_study(DEMO_STUDY.parent / "demo-conversations")
    storage = MemoryStorage()
    run_bots(study, storage, 1, strategy="attentive", seed=3, start=START)
    records = storage.records()
    (done,) = funnel.progress_from_records(records).values()
    first = done.plan[0]
    # the participant's records up to their first annotated conversation: one answered, the next one open
    cut = next(i for i, r in enumerate(records) if r.get("step") == first and r["kind"] not in ("shown", "event"))
    (prog,) = funnel.progress_from_records(records[: cut + 1]).values()
    assert prog.current_step() == f"conversation 2 of {len(done.plan)}", prog.plan


def test_previews_and_researcher_events_are_never_counted(demo):
    storage = MemoryStorage()
    flow = Flow(demo, storage, clock=lambda: START)
    token = flow.arrive({}, preview=True)
    submit_consent(flow, token)
    data = DashboardData(demo)
    data.add(storage.records())
    assert data.counts(START) == dict.fromkeys(funnel.FIGURES, 0)


def test_comments_on_the_dashboard_are_the_exported_ones(demo, crowd):
    from infact.results.dashboard import running_study

    records = crowd.records()
    shown = running_study.comments(fed_one_by_one(demo, records).progress())
    stored = {r["participant"]: r["comment"] for r in records if r["kind"] == "questionnaire" and r.get("comment")}
    assert len(shown) == len(stored) > 0
    assert dict(zip(shown["participant"], shown["comment"])) == stored
    exported = read_csv(export_bytes(StudyResults(demo, records, now=START).tables), "questionnaire.csv")
    exported = exported[exported["item"] == "comment"]
    assert dict(zip(exported["participant"], exported["answer"])) == stored
