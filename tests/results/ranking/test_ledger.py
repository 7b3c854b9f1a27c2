"""The leaderboard ledger (issue 27.3; docs/ranking.md, "The ledger"): versions stamped on each vote, counted,
dated and shared out against the design, on studies whose systems change between participants."""

from __future__ import annotations

import io
import json
import random
from datetime import timedelta

import pandas as pd
import pytest

from infact.chat.arena import LiveRun
from infact.chat.bot import ChattingBot
from infact.chat.client import connect_all
from infact.participation.bots import run_bots
from infact.participation.steps.pairwise import Pairwise
from infact.results.analyze import Analysis, Options, analyze_results
from infact.results.ranking.ledger import ledger, ledger_frame, shown_places
from infact.results.study_results import open_results
from infact.results.tables.schemas import LEDGER
from infact.storage import MemoryStorage
from infact.study.live_config import live_version
from infact.study.loader import load_study
from infact.study.situations import VERSION_UNKNOWN as UNKNOWN
from tests.support.studies import CHECK_ID, FakeClock, make_study, situation

DEMO = "infact.chat.demo_systems:"


def _vote(a, b, winner, at, va="v1", vb="v1", **kw):
    return {"participant": kw.pop("p", "p1"), "system_a": a, "system_b": b, "winner": winner, "criterion": "c"} | {
        "answered_at": at,
        "version_a": va,
        "version_b": vb,
        **kw,
    }


def test_the_ledger_counts_dates_and_shares_each_version():
    votes = pd.DataFrame(
        [
            _vote("A", "B", "A", "2026-01-01T10:00:00+00:00"),
            _vote("A", "C", "C", "2026-01-02T10:00:00+00:00", excluded=True),
            _vote("A", "B", "tie", "2026-01-03T10:00:00+00:00", va="v2"),
            _vote("B", "C", "B", "2026-01-04T10:00:00+00:00", va=None),  # stored before versions: unknown
        ]
    )
    rows = {
        (r.system, r.version): r for r in ledger_frame(votes, systems=["A", "B", "D"], design="balanced").itertuples()
    }
    assert rows[("A", "v1")].votes == 2 and rows[("A", "v2")].votes == 1
    assert rows[("A", "v1")].first_vote == "2026-01-01T10:00:00+00:00"
    assert rows[("A", "v1")].last_vote == "2026-01-02T10:00:00+00:00"
    assert rows[("A", "v1")].excluded_votes == 1 and rows[("A", "v2")].excluded_votes == 0
    assert rows[("A", "v1")].share == pytest.approx(2 / 8) and rows[("A", "v2")].system_share == pytest.approx(3 / 8)
    assert rows[("B", UNKNOWN)].votes == 1 and rows[("B", "v1")].votes == 2
    assert rows[("C", "v1")].status == "removed" and pd.isna(rows[("C", "v1")].intended_share)
    assert rows[("A", "v1")].intended_share == pytest.approx(1 / 3) and rows[("A", "v1")].status == "in study"
    unvoted = rows[("D", None)] if ("D", None) in rows else next(r for k, r in rows.items() if k[0] == "D")
    assert unvoted.votes == 0 and unvoted.status == "in study"
    typed = votes.astype(dict.fromkeys(("answered_at", "system_a", "system_b"), "string[pyarrow]"))
    twice = ledger_frame(pd.concat([typed, typed], ignore_index=True))  # Arrow columns in chunks, as concat gives
    assert twice.loc[twice["version"] == "v1", "votes"].tolist() == [4, 4, 4]
    assert twice["first_vote"].iloc[0] == "2026-01-01T10:00:00+00:00"
    summary = ledger(votes, systems=["A", "B", "D"], design="balanced")
    assert summary["removed"] == ["C"] and summary["changed"] == ["A"] and summary["unknown_versions"] == 1


def test_adaptive_pairs_and_an_unknown_study_intend_no_share():
    votes = pd.DataFrame([_vote("A", "B", "A", "2026-01-01T10:00:00+00:00")])
    adaptive = ledger_frame(votes, systems=["A", "B"], design="adaptive")
    assert adaptive["intended_share"].isna().all() and (adaptive["status"] == "in study").all()
    bare = ledger_frame(votes.drop(columns=["version_a", "version_b", "answered_at"]))
    assert (bare["version"] == UNKNOWN).all() and bare["status"].isna().all() and bare["first_vote"].isna().all()


def test_a_vote_stored_before_versions_were_recorded_says_unknown():
    record = {
        "study": "t",
        "index": 1,
        "situation_id": "s1",
        "choices": {"c": "A"},
        "responses": [{"system": "B", "text": "b"}, {"system": "A", "text": "a"}],
    }
    [row] = Pairwise().rows(record, None)
    assert row["version_a"] == UNKNOWN and row["version_b"] == UNKNOWN
    [row] = Pairwise().rows({**record, "versions": {"A": "responses-1", "B": "responses-2"}}, None)
    assert (row["system_a"], row["version_a"], row["version_b"]) == ("A", "responses-1", "responses-2")


def _pairwise_study(folder, systems, texts=None):
    texts = texts or {}
    situations = []
    for i in range(12):
        s = situation(f"s{i:02d}", f"d{i:02d}", systems)
        s["responses"] = {name: texts.get(name, t) for name, t in s["responses"].items()}
        situations.append(s)
    situations.append(situation(CHECK_ID, "check", systems))
    return load_study(
        make_study(folder, systems=systems, per_participant=5, situations=situations, protocol={"kind": "pairwise"})
    )


@pytest.fixture(scope="module")
def changed_midway(tmp_path_factory):
    """Eight participants on Alpha, Beta, Gamma; then Gamma removed, Delta added and Beta's responses edited
    (Alpha's untouched) in study.toml and the situations; eight more participants on the new study."""
    folder = tmp_path_factory.mktemp("midway")
    before = _pairwise_study(folder, ("Alpha", "Beta", "Gamma"))
    storage = MemoryStorage()
    start = FakeClock()()
    run_bots(before, storage, 8, strategy="attentive", seed=1, start=start)
    switch = start + timedelta(days=1)
    after = _pairwise_study(folder, ("Alpha", "Beta", "Delta"), texts={"Beta": "Beta, edited"})
    run_bots(after, storage, 8, strategy="attentive", seed=2, start=switch)
    return before, after, storage, switch.isoformat(), open_results(after, storage)


def _stored_votes(storage, study_id):
    """(system, version at vote time, answered_at) of every place of every stored vote, counted independently."""
    out = []
    for r in storage.records(study=study_id):
        if r["kind"] == "pairwise" and not r.get("attention_check"):
            out += [(x["system"], r["versions"][x["system"]], r["answered_at"]) for x in r["responses"]]
    return out


def test_the_ledger_of_a_study_whose_systems_change_midway(changed_midway):
    before, after, storage, switch, results = changed_midway
    files = results.files()
    table = pd.read_csv(io.BytesIO(files["ledger.csv"]), dtype=str)
    assert list(table.columns) == LEDGER.names
    assert "ledger.csv" in {r["path"] for r in json.loads(files["datapackage.json"])["resources"]}
    rows = {(r.system, r.version): r for r in table.itertuples()}
    old, new = before.system_versions, after.system_versions
    assert old["Alpha"] == new["Alpha"]  # another system's edit or arrival leaves Alpha's version as it was
    assert old["Beta"] != new["Beta"]
    places = _stored_votes(storage, after.id)
    for (system, version), row in rows.items():
        theirs = [at for s, v, at in places if (s, v) == (system, version)]
        assert int(row.votes) == len(theirs) > 0, (system, version)
        assert (row.first_vote, row.last_vote) == (min(theirs), max(theirs))
    gamma = rows[("Gamma", old["Gamma"])]
    assert gamma.status == "removed" and gamma.last_vote < switch and pd.isna(gamma.intended_share)
    delta = rows[("Delta", new["Delta"])]
    assert delta.status == "in study" and delta.first_vote >= switch and float(delta.intended_share) == 1 / 3
    assert rows[("Beta", old["Beta"])].last_vote < switch <= rows[("Beta", new["Beta"])].first_vote
    assert [k for k in rows if k[0] == "Alpha"] == [("Alpha", old["Alpha"])]
    assert sum(float(r.share) for r in table.itertuples()) == pytest.approx(1)


def test_the_ranking_carries_the_ledger_and_its_warnings(changed_midway):
    from infact.results.analyze import _integrity_inputs
    from infact.results.ranking.analysis import analyze_votes
    from infact.results.tables.comparisons import prepare_pairwise

    *_, results = changed_midway
    design = _integrity_inputs(results)["design"]  # what analyze --study passes
    votes = prepare_pairwise(results.table("pairwise").frame)
    result = analyze_votes(votes, prepared=True, n_boot=100, anomaly_quantile=None, design=design)
    book = result["ledger"]
    assert book["design"] == "balanced" and book["systems_in_study"] == ["Alpha", "Beta", "Delta"]
    assert book["removed"] == ["Gamma"] and book["changed"] == ["Beta"] and book["unknown_versions"] == 0
    assert sum(r["votes"] for r in book["rows"]) == 2 * result["n_votes"]
    text = Analysis.of("pairwise", result).render()
    assert "Ledger:" in text and "Gamma" in text.split("Ledger:")[1]


@pytest.mark.slow
def test_analyze_study_gives_the_ledger_the_study_design(changed_midway):
    *_, results = changed_midway
    result = analyze_results(results, Options(n_boot=100, include_bots=True)).result
    assert result["ledger"]["removed"] == ["Gamma"] and result["ledger"]["design"] == "balanced"


def test_the_datasheet_lists_the_versions(changed_midway):
    from infact.results.reports.datasheet import datasheet

    _, after, _, _, results = changed_midway
    fields = datasheet(results)["sections"]["2"]["fields"]
    [field] = [f for f in fields if f["id"] == "2.5.1"]
    assert {(r["system"], r["status"]) for r in field["value"]} >= {("Gamma", "removed"), ("Delta", "in study")}


def test_live_chats_stamp_the_version_that_answered(tmp_path):
    """A live arena: RetrievalBot's callable swapped under its name, PopBot removed, GenreBot unchanged."""
    systems = {
        "GenreBot": {"callable": DEMO + "genre_recommender"},
        "RetrievalBot": {"callable": DEMO + "retrieval_bot"},
        "PopBot": {"callable": DEMO + "popular_recommender"},
    }
    before = load_study(make_study(tmp_path, systems=tuple(systems), live={"max_turns": 2, "systems": systems}))
    storage = MemoryStorage()
    clients = connect_all(before.config.live.systems)
    for i in range(6):
        ChattingBot(LiveRun(before, storage, clients, f"a{i}"), random.Random(i)).play()
    del systems["PopBot"]
    systems["RetrievalBot"] = {"callable": DEMO + "popular_recommender"}
    after = load_study(make_study(tmp_path, systems=tuple(systems), live={"max_turns": 2, "systems": systems}))
    clients = connect_all(after.config.live.systems)
    for i in range(4):
        ChattingBot(LiveRun(after, storage, clients, f"b{i}"), random.Random(i)).play()
    files = open_results(after, storage).files()
    table = pd.read_csv(io.BytesIO(files["ledger.csv"]), dtype=str)
    versions = {s: set(table.loc[table["system"] == s, "version"]) for s in table["system"]}
    assert versions["GenreBot"] == {live_version(after.config.live.systems["GenreBot"])}
    assert versions["RetrievalBot"] == {
        live_version(before.config.live.systems["RetrievalBot"]),
        live_version(after.config.live.systems["RetrievalBot"]),
    }
    assert set(table.loc[table["system"] == "PopBot", "status"]) == {"removed"}
    assert table["votes"].astype(int).sum() == 2 * 10


def test_a_best_worst_choice_shows_every_system_of_its_set_in_its_version():
    choices = pd.DataFrame(
        [
            {"criterion": "c", "systems": "A|B|C", "versions": "a1|b1|c1", "answered_at": "2026-01-01T10:00:00+00:00"},
            {"criterion": "c", "systems": "C|A|B", "versions": "c2|a1|b1", "answered_at": "2026-01-02T10:00:00+00:00"},
            {"criterion": "c", "systems": "B|C|A", "versions": None, "answered_at": "2026-01-03T10:00:00+00:00"},
        ]
    )
    rows = {(r.system, r.version): r for r in ledger_frame(choices, places=shown_places).itertuples()}
    assert {k: r.votes for k, r in rows.items()} == {
        ("A", "a1"): 2,
        ("B", "b1"): 2,
        ("C", "c1"): 1,
        ("C", "c2"): 1,
        **{(s, UNKNOWN): 1 for s in "ABC"},
    }
    assert rows[("C", "c2")].first_vote == "2026-01-02T10:00:00+00:00"
    assert rows[("A", "a1")].last_vote == "2026-01-02T10:00:00+00:00"
    assert sum(r.share for r in rows.values()) == pytest.approx(1) and rows[("A", "a1")].share == pytest.approx(2 / 9)


def _best_worst_study(folder, systems, texts=None):
    texts = texts or {}
    situations = []
    for i in range(12):
        s = situation(f"s{i:02d}", f"d{i:02d}", systems)
        s["responses"] = {name: texts.get(name, t) for name, t in s["responses"].items()}
        situations.append(s)
    situations.append(situation(CHECK_ID, "check", systems))
    protocol = {"kind": "best_worst", "set_size": 3}
    return load_study(make_study(folder, systems=systems, per_participant=5, situations=situations, protocol=protocol))


@pytest.fixture(scope="module")
def best_worst_midway(tmp_path_factory):
    """Sets of three of Alpha, Beta, Gamma, Epsilon for eight participants; then Gamma removed, Delta added and
    Beta's responses edited (Alpha's and Epsilon's untouched); eight more participants on the new study."""
    folder = tmp_path_factory.mktemp("bw-midway")
    before = _best_worst_study(folder, ("Alpha", "Beta", "Epsilon", "Gamma"))
    storage = MemoryStorage()
    start = FakeClock()()
    run_bots(before, storage, 8, strategy="attentive", seed=1, start=start)
    switch = start + timedelta(days=1)
    after = _best_worst_study(folder, ("Alpha", "Beta", "Delta", "Epsilon"), texts={"Beta": "Beta, edited"})
    run_bots(after, storage, 8, strategy="attentive", seed=2, start=switch)
    return before, after, storage, switch.isoformat(), open_results(after, storage)


def _stored_choices(storage, study_id):
    """(system, version at choice time, answered_at) of every system every stored best–worst choice showed."""
    out = []
    for r in storage.records(study=study_id):
        if r["kind"] == "best_worst" and not r.get("attention_check"):
            out += [(x["system"], r["versions"][x["system"]], r["answered_at"]) for x in r["responses"]]
    return out


def test_the_ledger_of_a_best_worst_study_whose_systems_change_midway(best_worst_midway):
    before, after, storage, switch, results = best_worst_midway
    files = results.files()
    choices = pd.read_csv(io.BytesIO(files["best_worst.csv"]), dtype=str)
    stored = {
        (r["participant"], str(r["index"])): r
        for r in storage.records(study=after.id)
        if r["kind"] == "best_worst" and not r.get("attention_check")
    }
    assert len(choices) == len(stored) and {"versions", "answered_at"} <= set(choices.columns)
    for row in choices.itertuples():  # each shown system's version, in the order of `systems`
        record = stored[(row.participant, row.step_index)]
        assert row.systems.split("|") == [x["system"] for x in record["responses"]]
        assert row.versions.split("|") == [record["versions"][x["system"]] for x in record["responses"]]
        assert row.answered_at == record["answered_at"]
    places = _stored_choices(storage, after.id)
    table = pd.read_csv(io.BytesIO(files["ledger.csv"]), dtype=str)
    assert list(table.columns) == LEDGER.names and set(table["table"]) == {"best_worst.csv"}
    rows = {(r.system, r.version): r for r in table.itertuples()}
    old, new = before.system_versions, after.system_versions
    assert old["Alpha"] == new["Alpha"] and old["Beta"] != new["Beta"]
    for (system, version), row in rows.items():
        theirs = [at for s, v, at in places if (s, v) == (system, version)]
        assert int(row.votes) == len(theirs) > 0, (system, version)
        assert (row.first_vote, row.last_vote) == (min(theirs), max(theirs))
    gamma = rows[("Gamma", old["Gamma"])]
    assert gamma.status == "removed" and gamma.last_vote < switch and pd.isna(gamma.intended_share)
    delta = rows[("Delta", new["Delta"])]
    assert delta.status == "in study" and delta.first_vote >= switch and float(delta.intended_share) == 1 / 4
    assert rows[("Beta", old["Beta"])].last_vote < switch <= rows[("Beta", new["Beta"])].first_vote
    assert [k for k in rows if k[0] == "Epsilon"] == [("Epsilon", old["Epsilon"])]
    assert sum(float(r.share) for r in table.itertuples()) == pytest.approx(1)


def test_the_best_worst_ranking_carries_the_ledger(best_worst_midway):
    from infact.results.analyze import _integrity_inputs
    from infact.results.reports.datasheet import datasheet

    *_, results = best_worst_midway
    table = results.ranked()
    options = Options(n_boot=100, include_bots=True, extra=_integrity_inputs(results))  # what analyze --study passes
    result = table.kind.analysis(table.frame, options, table.file)
    book = result["ledger"]
    assert book["design"] == "balanced" and book["systems_in_study"] == ["Alpha", "Beta", "Delta", "Epsilon"]
    assert book["removed"] == ["Gamma"] and book["changed"] == ["Beta"] and book["unknown_versions"] == 0
    assert sum(r["votes"] for r in book["rows"]) == 3 * result["n_choices"]
    text = Analysis.of("best_worst", result).render()
    assert "Ledger:" in text and "Gamma" in text.split("Ledger:")[1]
    [field] = [f for f in datasheet(results)["sections"]["2"]["fields"] if f["id"] == "2.5.1"]
    assert {(r["table"], r["system"], r["status"]) for r in field["value"]} >= {
        ("best_worst.csv", "Gamma", "removed"),
        ("best_worst.csv", "Delta", "in study"),
    }


def test_a_study_with_votes_and_best_worst_choices_keeps_both_ledgers_apart(tmp_path):
    """Two blocks, two rankings: ledger.csv holds each table's rows with its own shares, neither overwritten."""
    flow = {"steps": ["consent", "pairwise", "best_worst", "questionnaire", "done"]}
    systems = ("Alpha", "Beta", "Gamma", "Delta")
    protocol = {"kind": "pairwise", "set_size": 3}
    study = load_study(make_study(tmp_path, systems=systems, per_participant=5, protocol=protocol, flow=flow))
    storage = MemoryStorage()
    run_bots(study, storage, 6, strategy="attentive", seed=4, start=FakeClock()())
    files = open_results(study, storage).files()
    votes, choices = (pd.read_csv(io.BytesIO(files[f]), dtype=str) for f in ("pairwise.csv", "best_worst.csv"))
    table = pd.read_csv(io.BytesIO(files["ledger.csv"]))
    per_table = table.groupby("table")
    assert per_table["votes"].sum().to_dict() == {"best_worst.csv": 3 * len(choices), "pairwise.csv": 2 * len(votes)}
    assert per_table["share"].sum().to_dict() == pytest.approx({"best_worst.csv": 1, "pairwise.csv": 1})
    assert len(votes) and len(choices)
