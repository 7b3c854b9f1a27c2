"""Dialog-level pairwise comparison (ACUTE-style, `pairwise_dialog`): dialogs files, the
conversations importer, the step kind in the Flow, bots, onboarding with conversation gold pairs
and the pairwise.csv export."""

from __future__ import annotations

import json
import shutil

import pytest

from infact.cli.main import main
from infact.errors import InfactError
from infact.importers.conversations import import_conversations
from infact.participation.bots import run_bots
from infact.results.ranking.analysis import analyze_votes
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.dialogs import read_dialogs
from infact.study.loader import load_study
from tests.support.participants import start  # a consented participant in a fresh memory store
from tests.support.paths import REPO
from tests.support.studies import FakeClock, copy_study, edit_toml

DEMO_ACUTE = REPO / "data" / "demo-acute"
SYSTEMS = ("Good", "Fair", "Poor")


def conversation(did: str, system: str, n_bot: int = 2) -> dict:
    turns = []
    for k in range(n_bot):
        turns += [
            {"role": "user", "text": f"{did}: user message {k}"},
            {"role": "assistant" if k % 2 else "bot", "text": f'{system} says "Up (2009)" in turn {k}'},
        ]
    return {"dialog_id": did, "topic": f"topic of {did}", "turns": turns}


def write_jsonl(path, rows) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")


def acute_study(tmp_path, n_dialogs: int = 6):
    """A study made the way a researcher makes one: one import per system (starter study.toml, no onboarding)."""
    folder = tmp_path / "acute"
    for system in SYSTEMS:
        src = tmp_path / f"{system}.jsonl"
        write_jsonl(src, [conversation(f"d{i}", system) for i in range(n_dialogs)])
        import_conversations(src, folder, system)
    # the importers' starter study.toml, edited as a researcher would (make_study writes situation studies)
    edit_toml(
        folder,
        {
            "situations_per_participant = 5": "situations_per_participant = 3",
            "positions = [2, 4]": "positions = [2, 3]",
        },
    )
    return folder


# ------------------------------------------------------------------ dialogs files and the importer


def test_import_merges_one_file_per_system_by_dialog_id(tmp_path):
    study = load_study(acute_study(tmp_path))
    assert study.config.protocol.kind == "pairwise_dialog"
    assert study.systems == list(SYSTEMS)  # the starter study.toml lists the imported systems
    d1 = study.situation("d1")
    assert d1.situation_id == d1.dialog_id == "d1" and d1.context == ()
    assert set(d1.conversations) == set(SYSTEMS)
    assert [t.role for t in d1.conversations["Fair"]] == ["user", "bot", "user", "bot"]  # "assistant" is a bot turn
    assert d1.responses["Good"] == 'Good says "Up (2009)" in turn 0\nGood says "Up (2009)" in turn 1'
    assert d1.meta["topic"] == "topic of d1"
    assert d1.source["Poor"] == {"file": "Poor.jsonl", "line": 2}


def test_reimporting_a_system_replaces_its_conversations(tmp_path):
    folder = acute_study(tmp_path)
    src = tmp_path / "again.jsonl"
    write_jsonl(
        src,
        [
            {
                **conversation("d0", "Fair"),
                "turns": [{"role": "user", "text": "hi"}, {"role": "bot", "text": "new answer"}],
            }
        ],
    )
    report = import_conversations(src, folder, "Fair")
    assert any("replaced Fair" in n for n in report.notes)
    dialogs, problems = read_dialogs([folder / "dialogs.jsonl"])
    assert not problems
    d0 = next(d for d in dialogs if d.dialog_id == "d0")
    assert d0.responses["Fair"] == "new answer" and d0.responses["Good"].startswith("Good says")


def test_importer_errors_name_file_line_and_fix(tmp_path):
    src = tmp_path / "bad.jsonl"
    write_jsonl(
        src,
        [
            conversation("ok", "X"),
            "{not json",
            {"turns": [{"role": "user", "text": "no id"}, {"role": "bot", "text": "hi"}]},
            {"dialog_id": "r", "turns": [{"role": "narrator", "text": "once"}]},
            {"dialog_id": "u", "turns": [{"role": "user", "text": "only the user talks"}]},
            conversation("ok", "X"),
        ],
    )
    report = import_conversations(src, tmp_path / "study", "X")
    text = "\n".join(str(p) for p in report.problems)
    assert f"{src}:2: invalid JSON" in text
    assert f"{src}:3: [dialog_id] missing 'dialog_id'" in text
    assert f"{src}:4: [turns] 'turns' turn 0 must be" in text and "roles: user or bot" in text
    assert f"{src}:5: [turns] 'turns' has no bot turn" in text
    assert f"{src}:6: [dialog_id] dialog_id 'ok' again (first at line 1)" in text
    assert report.counts["conversations"] == 1 and report.counts["lines_skipped"] == 5


def test_a_file_without_any_usable_conversation_is_refused_and_nothing_is_written(tmp_path, capsys):
    src = tmp_path / "empty.jsonl"
    write_jsonl(src, [{"dialog_id": "x", "turns": []}])
    assert main(["import", "conversations", str(src), "--system", "X", "--study", str(tmp_path / "s")]) != 0
    err = capsys.readouterr().err
    assert f"{src}:1: [turns]" in err and "no usable conversation of system 'X'" in err
    assert not (tmp_path / "s").exists()


def test_conversations_are_never_imported_into_a_rating_study(tmp_path, capsys):
    folder = tmp_path / "rating"
    shutil.copytree(REPO / "data" / "demo", folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    src = tmp_path / "x.jsonl"
    write_jsonl(src, [conversation("d0", "X")])
    assert main(["import", "conversations", str(src), "--system", "X", "--study", str(folder)]) != 0
    assert "[protocol.kind] is a rating study" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # no dialogs file, systems unchanged


def test_a_damaged_dialogs_file_is_reported_at_load(tmp_path):
    folder = tmp_path / "s"
    shutil.copytree(DEMO_ACUTE, folder)
    lines = (folder / "dialogs.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[2])
    broken["conversations"]["Echo"] = [{"role": "bot"}]
    lines[2] = json.dumps(broken)
    lines[4] = json.dumps({**json.loads(lines[4]), "dialog_id": json.loads(lines[0])["dialog_id"]})
    (folder / "dialogs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InfactError) as e:
        load_study(folder)
    text = str(e.value)
    assert "dialogs.jsonl:3: [conversations] conversation of system 'Echo' turn 0 must be" in text
    assert "dialogs.jsonl:5: [dialog_id] duplicate dialog_id 'ac-01'" in text


@pytest.mark.parametrize(
    "kind, file, expected",
    [
        (
            "pairwise",
            "dialogs.jsonl",
            'this is a dialogs line (whole conversations per system): set [protocol] kind = "pairwise_dialog"',
        ),
        ("pairwise_dialog", "situations.jsonl", "this is a situations line (one response per system), not a dialog"),
    ],
)
def test_a_data_file_of_the_other_level_says_which_kind_it_needs(tmp_path, kind, file, expected):
    folder = copy_study(
        DEMO_ACUTE,
        tmp_path / "s",
        {'kind = "pairwise_dialog"': f'kind = "{kind}"', 'situations = ["dialogs.jsonl"]': f'situations = ["{file}"]'},
    )
    shutil.copy(REPO / "data" / "demo-pairwise" / "situations.jsonl", folder / "situations.jsonl")
    with pytest.raises(InfactError) as e:
        load_study(folder)
    assert f"{file}:1: {expected}" in str(e.value)
    assert len(e.value.problems) == len((folder / file).read_text().splitlines())  # one message per line, no more


def test_validate_with_a_broken_study_toml_reads_dialogs_files_as_dialogs(tmp_path):
    from infact.study.loader import validate_study

    folder = copy_study(DEMO_ACUTE, tmp_path / "s", {'kind = "pairwise_dialog"': 'kind = "acute"'})  # a broken file
    lines = (folder / "dialogs.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "conversations": {"Echo": []}})
    (folder / "dialogs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, errors, _ = validate_study(folder)
    text = [str(e) for e in errors]
    assert any("study.toml" in e and "[protocol.kind]" in e for e in text)
    assert any("dialogs.jsonl:2: [conversations] conversation of system 'Echo'" in e for e in text)
    assert len(text) == 2  # neither dialogs nor gold pairs are reported as malformed situations


def test_transcripts_of_a_live_arena_import_as_conversations_paired_by_participant(tmp_path):
    def chat(participant, system, conv):
        return {
            "participant": participant,
            "study": "live",
            "system": system,
            "slot": "A",
            "conversation_id": conv,
            "turns": [
                {"role": "user", "text": f"{participant} wants a comedy"},
                {"role": "assistant", "text": "", "error": "timeout"},
                {"role": "assistant", "text": f'{system}: try "Up (2009)"'},
            ],
            "ended_by": "satisfied",
            "satisfaction": None,
            "flags": [],
        }

    src = tmp_path / "transcripts.jsonl"
    write_jsonl(
        src, [chat("p1", "Alpha", "c1"), chat("p1", "Beta", "c2"), chat("p2", "Alpha", "c3"), chat("p2", "Beta", "c4")]
    )
    folder = tmp_path / "from-live"
    import_conversations(src, folder, "Alpha")
    import_conversations(src, folder, "Beta")
    dialogs, problems = read_dialogs([folder / "dialogs.jsonl"])
    assert not problems and [d.dialog_id for d in dialogs] == ["p1", "p2"]
    p1 = dialogs[0].conversations
    assert [t.text for t in p1["Beta"]] == ["p1 wants a comedy", 'Beta: try "Up (2009)"']  # the failed attempt left out
    import tomllib

    assert tomllib.loads((folder / "study.toml").read_text())["study"]["systems"] == ["Alpha", "Beta"]


def test_config_refuses_what_a_dialog_study_cannot_do(tmp_path):
    folder = acute_study(tmp_path)
    edit_toml(folder, {"[platform]": '[sampling]\nmode = "sample"\nsize = 4\nstratify = "position"\n\n[platform]'})
    with pytest.raises(InfactError) as e:
        load_study(folder)
    assert "study.toml" in str(e.value) and "sampling.stratify" in str(e.value)


# ------------------------------------------------------------------ the step kind


def test_a_dialog_pair_is_checked_and_stored_with_both_conversations_in_shown_order(tmp_path):
    study = load_study(acute_study(tmp_path))
    flow, token = start(study)
    step = flow.current(flow.state(token))
    assert step.kind == "pairwise_dialog" and step.name == f"pairwise-dialog-{step.index}" and len(step.order) == 2
    if step.attention_check:  # the check's position is random: answer it and take the next step
        assert flow.submit(
            token, step.name, {"choices": {"engaging": "A", "helpful": "A"}, "justification": "the instructed one"}
        ).ok
        step = flow.current(flow.state(token))
    bad = flow.submit(token, step.name, {"choices": {"engaging": "A"}, "justification": "short"})
    assert not bad.ok
    assert "Please choose conversation A or B or “About the same” (helpful)." in bad.errors
    assert any("at least 10 characters" in e for e in bad.errors)
    ok = flow.submit(
        token,
        step.name,
        {"choices": {"engaging": "B", "helpful": "About the same"}, "justification": "B asks what the user likes"},
    )
    assert ok.ok
    rec = next(r for r in flow.storage.records(participant=token) if r.get("step") == step.name)
    assert rec["kind"] == "pairwise_dialog" and rec["situation_id"] == rec["dialog_id"]
    assert rec["choices"] == {"engaging": step.order[1], "helpful": "tie"}
    assert [c["system"] for c in rec["conversations"]] == list(step.order)  # left/right as shown, stored
    dialog = study.situation(step.situation_id)
    assert rec["conversations"][0]["turns"] == [t.to_dict() for t in dialog.conversations[step.order[0]]]
    assert "context" not in rec


def test_the_attention_check_replaces_the_instructed_systems_last_bot_turn(tmp_path):
    study = load_study(acute_study(tmp_path))
    flow, token = start(study)
    st = flow.state(token)
    check = next(s for s in flow.steps(st) if s.attention_check)
    from infact.participation.steps.pairwise_dialog import shown_conversations

    shown = {c["system"]: c["turns"] for c in shown_conversations(flow, check)}
    instructed = shown[check.instructed_system]
    assert instructed[-1] == {"role": "bot", "text": study.config.protocol.attention_text}
    other = next(s for s in check.order if s != check.instructed_system)
    assert study.config.protocol.attention_text not in json.dumps(shown[other])


def test_conversation_gold_pairs_screen_out_below_the_threshold(tmp_path):
    study = load_study(DEMO_ACUTE)
    flow, token = start(study)
    assert flow.current(flow.state(token)).kind == "onboarding"
    res = flow.submit(token, "onboarding", {"gold": {"1": "A", "2": "A", "3": "B", "4": "B"}})  # 2 of 4 right
    assert res.ok and res.state.complete["outcome"] == "screened_out"
    flow2, token2 = start(study)
    ok = flow2.submit(token2, "onboarding", {"gold": {"1": "A", "2": "B", "3": "B", "4": "B"}})  # 3 of 4
    assert ok.ok and ok.next_step.kind == "pairwise_dialog"


def test_conversation_gold_pairs_are_checked_at_load(tmp_path):
    folder = tmp_path / "s"
    shutil.copytree(DEMO_ACUTE, folder)
    write_jsonl(
        folder / "onboarding.jsonl",
        [
            {
                "a": [{"role": "user", "text": "hi"}, {"role": "bot", "text": "x"}],
                "b": [{"role": "user", "text": "hi"}],
                "answer": "A",
            }
        ],
    )
    with pytest.raises(InfactError) as e:
        load_study(folder)
    assert "onboarding.jsonl:1: [b] 'b' is a conversation here" in str(e.value) and "no bot turn" in str(e.value)


# ------------------------------------------------------------------ bots, export, analysis


@pytest.fixture(scope="module")
def demo_crowd():
    study = load_study(DEMO_ACUTE)
    storage = MemoryStorage()
    results = run_bots(study, storage, 30, seed=4, start=FakeClock()())
    return study, storage, results


def test_bots_play_the_demo_and_votes_go_to_pairwise_csv(demo_crowd):
    study, storage, results = demo_crowd
    outcomes = {r.outcome for r in results}
    assert "completed" in outcomes and "screened_out" in outcomes  # fails-attention bots fail the onboarding
    t = StudyResults(study, storage.records(study=study.id)).tables
    votes = t.compare["pairwise.csv"]
    assert list(t.compare) == ["pairwise.csv"]
    assert list(votes.columns[:10]) == [
        "participant",
        "condition",
        "situation_id",
        "criterion",
        "system_a",
        "system_b",
        "shown_left",
        "winner",
        "seconds",
        "justification",
    ]
    assert set(votes["criterion"]) == {"engaging", "helpful"}
    assert (votes["situation_id"] == votes["dialog_id"]).all()
    dialogs = {s.situation_id for s in study.situations}
    assert set(votes["situation_id"]) <= dialogs and "ac-08" not in set(votes["situation_id"])  # the check is no vote
    assert set(votes["shown_left"]) == set(study.systems)
    assert (votes["length_a"] > 0).all() and votes["justification"].str.len().ge(10).all()
    assert len(t.ratings) == 0


def test_the_demo_ranking_recovers_the_planted_order(demo_crowd):
    study, storage, _ = demo_crowd
    votes = StudyResults(study, storage.records(study=study.id)).tables.compare["pairwise.csv"]
    res = analyze_votes(votes[votes["criterion"] == "helpful"], n_boot=100)
    assert [r["system"] for r in res["ranking"]] == ["Compass", "Chatterbox", "Echo"]


def test_the_dashboard_ranking_reads_a_dialog_study(demo_crowd):
    from infact.results.dashboard.ranking import ranking_view

    study, storage, _ = demo_crowd
    ranked = StudyResults(study, storage.records(study=study.id)).ranked()
    assert ranked.file == "pairwise.csv"  # a dialog-level study's votes are in pairwise.csv
    view = ranking_view(ranked, "engaging", True, 0.95)
    assert view is not None and view["ranking"][0]["system"] == "Compass"


def test_adaptive_pairs_schedule_a_dialog_study_from_its_votes(tmp_path):
    from infact.participation.protocols import History

    folder = acute_study(tmp_path)
    edit_toml(folder, {'pairs = "balanced"': 'pairs = "adaptive"'})
    study = load_study(folder)
    storage = MemoryStorage()
    results = run_bots(study, storage, 12, strategy="attentive", seed=9, start=FakeClock()())
    assert all(r.completed for r in results)
    history = History.of(storage.records(study=study.id), study.id)
    assert len(history.decided("engaging")) == 12 * 2  # the dialog votes feed the adaptive schedule
    votes = StudyResults(study, storage.records(study=study.id)).tables.compare["pairwise.csv"]
    assert len(votes) == 12 * 2 * 2  # two regular pairs × two criteria each
