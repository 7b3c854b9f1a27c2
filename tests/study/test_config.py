"""study.toml and study loading: every mistake names the file, the key, the line and the fix."""

from __future__ import annotations

import json

import pytest

from infact.errors import ConfigError, InfactError
from infact.study.loader import load_config, load_study, validate_study
from tests.support.paths import DEMO_STUDY
from tests.support.studies import CHECK_ID, make_study, situation, study_config, to_toml, write_toml


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in the text")


def config_problems(folder) -> list:
    with pytest.raises(ConfigError) as info:
        load_config(folder)
    return info.value.problems


def edit(folder, old: str, new: str) -> str:
    path = folder / "study.toml"
    text = path.read_text()
    assert old in text, f"{old!r} not in study.toml"
    text = text.replace(old, new, 1)
    path.write_text(text)
    return text


def only(problems, key: str):
    found = [p for p in problems if p.key == key]
    assert len(found) == 1, f"expected one problem for {key}, got {problems}"
    return found[0]


def test_small_study_and_demo_load(tmp_path):
    study = load_study(make_study(tmp_path, n_situations=7))
    assert len(study.situations) == 7
    assert study.attention_situation.situation_id == CHECK_ID
    assert CHECK_ID not in {s.situation_id for s in study.situations}
    demo = load_study(DEMO_STUDY)
    assert demo.systems == ["CineMate", "FlickBot", "ReelTalk"]
    assert demo.config.study.situations_per_participant == 10


def test_invalid_toml_reports_file_and_line(tmp_path):
    folder = make_study(tmp_path)
    text = edit(folder, 'title = "Test study"', 'title = "Test study')
    [problem] = config_problems(folder)
    assert problem.file == str(folder / "study.toml")
    assert problem.line == line_of(text, 'title = "Test study')
    assert "not valid TOML" in problem.message
    assert f"study.toml:{problem.line}:" in str(problem)


def test_unknown_key_suggests_the_right_spelling(tmp_path):
    folder = make_study(tmp_path)
    text = edit(folder, "lease_minutes", "lease_minuts")
    problem = only(config_problems(folder), "assignment.lease_minuts")
    assert problem.line == line_of(text, "lease_minuts")
    assert "did you mean 'lease_minutes'" in problem.message
    assert problem.file.endswith("study.toml")


def test_unknown_section_suggests_the_right_spelling(tmp_path):
    folder = make_study(tmp_path)
    text = edit(folder, "[assignment]", "[assignmnt]")
    problem = only(config_problems(folder), "assignmnt")
    assert problem.line == line_of(text, "[assignmnt]")
    assert "did you mean 'assignment'" in problem.message


def test_missing_required_key_and_section(tmp_path):
    cfg = study_config()
    del cfg["texts"]
    del cfg["study"]["title"]
    folder = make_study(tmp_path)
    text = write_toml(folder, to_toml(cfg)).read_text()
    problems = config_problems(folder)
    assert {p.key for p in problems} == {"texts", "study.title"}
    title = only(problems, "study.title")
    assert "missing" in title.message
    assert title.line == line_of(text, "[study]")  # the table it belongs in
    assert "missing" in only(problems, "texts").message


@pytest.mark.parametrize(
    "old, new, key, got",
    [
        (
            "situations_per_participant = 4",
            'situations_per_participant = "four"',
            "study.situations_per_participant",
            "'four'",
        ),
        ("lease_minutes = 60", "lease_minutes = -5", "assignment.lease_minutes", "-5"),
        ("enabled = true", 'enabled = "maybe"', "attention_check.enabled", "'maybe'"),
    ],
)
def test_wrong_type_or_range_names_key_line_and_value(tmp_path, old, new, key, got):
    folder = make_study(tmp_path)
    text = edit(folder, old, new)
    problem = only(config_problems(folder), key)
    assert problem.line == line_of(text, new)
    assert f"(got {got})" in problem.message


def test_list_setting_given_as_a_string(tmp_path):
    folder = make_study(tmp_path)
    text = edit(folder, 'systems = ["Alpha", "Beta"]', 'systems = "Alpha"')
    problem = only(config_problems(folder), "study.systems")
    assert problem.line == line_of(text, 'systems = "Alpha"')
    assert "list" in problem.message


def test_every_problem_of_a_file_is_reported_at_once(tmp_path):
    folder = make_study(tmp_path)
    edit(folder, 'title = "Test study"\n', "")
    edit(folder, "lease_minutes", "lease_minuts")
    edit(folder, "ratings_per_situation = 3", "ratings_per_situation = 0")
    keys = {p.key for p in config_problems(folder)}
    assert keys == {"study.title", "assignment.lease_minuts", "assignment.ratings_per_situation"}


@pytest.mark.parametrize("positions", [[0, 3], [2, 5], [3, 2]])
def test_attention_positions_outside_1_to_n(tmp_path, positions):
    folder = make_study(tmp_path, per_participant=4, attention_check={"positions": positions})
    text = (folder / "study.toml").read_text()
    problem = only(config_problems(folder), "attention_check.positions")
    assert problem.line == line_of(text, "positions =")
    assert f"{positions}" in problem.message and "(4)" in problem.message


def test_attention_positions_at_the_bounds_are_valid(tmp_path):
    folder = make_study(tmp_path, per_participant=4, attention_check={"positions": [1, 4]})
    assert load_config(folder).attention_check.positions == (1, 4)


def test_expected_label_not_in_the_scale(tmp_path):
    folder = make_study(tmp_path, attention_check={"expected": ["Meaningles"]})
    text = (folder / "study.toml").read_text()
    problem = only(config_problems(folder), "attention_check.expected")
    assert problem.line == line_of(text, 'expected = ["Meaningles"]')
    assert "Meaningles" in problem.message and "Meaningless" in problem.message


def test_expected_label_of_a_custom_scale(tmp_path):
    folder = make_study(tmp_path, scale={"labels": ["bad", "ok", "good"]}, attention_check={"expected": ["ok"]})
    assert load_config(folder).attention_check.expected == ["ok"]
    folder = make_study(tmp_path, name="other", scale={"labels": ["bad", "ok", "good"]})  # default "Meaningless"
    assert only(config_problems(folder), "attention_check.expected")


def test_duplicate_criterion_ids(tmp_path):
    folder = make_study(tmp_path, criteria=["fluent", "relevant", "fluent"])
    text = (folder / "study.toml").read_text()
    problem = only(config_problems(folder), "criteria")
    assert "fluent" in problem.message and "unique" in problem.message
    assert problem.line == line_of(text, "[[criteria]]")


def test_system_missing_from_every_situation(tmp_path):
    folder = make_study(tmp_path, systems=("Alpha", "Beta"))
    edit(folder, 'systems = ["Alpha", "Beta"]', 'systems = ["Alpha", "Gamma"]')
    with pytest.raises(ConfigError) as info:
        load_study(folder)
    [problem] = info.value.problems
    assert problem.key == "study.systems"
    assert problem.file == str(folder / "study.toml")
    assert "Gamma" in problem.message and "Beta" in problem.message  # what to fix it to


def test_system_missing_from_some_situations_leaves_them_out_with_a_note(tmp_path):
    sits = [situation(f"s{i}", f"d{i}", ("Alpha", "Beta")) for i in range(8)]
    for s in sits[:3]:
        del s["responses"]["Beta"]
    sits.append(situation(CHECK_ID, "check", ("Alpha", "Beta")))
    study = load_study(make_study(tmp_path, situations=sits))
    assert {s.situation_id for s in study.situations} == {f"s{i}" for i in range(3, 8)}
    [note] = study.notes
    assert note.key == "study.systems" and "3 situation(s)" in note.message and "'Beta'" in note.message


def test_attention_situation_not_found(tmp_path):
    folder = make_study(tmp_path, attention_check={"situation": "nope-t9"})
    with pytest.raises(ConfigError) as info:
        load_study(folder)
    [problem] = info.value.problems
    assert problem.key == "attention_check.situation"
    assert "nope-t9" in problem.message
    assert problem.file.endswith("study.toml")


def test_attention_check_needs_a_situation(tmp_path):
    cfg = study_config()
    del cfg["attention_check"]["situation"]
    folder = make_study(tmp_path)
    write_toml(folder, to_toml(cfg))
    with pytest.raises(ConfigError) as info:
        load_study(folder)
    assert [p.key for p in info.value.problems] == ["attention_check.situation"]


def test_too_few_situations_for_situations_per_participant(tmp_path):
    folder = make_study(tmp_path, n_situations=3, per_participant=5)  # 4 regular needed
    with pytest.raises(ConfigError) as info:
        load_study(folder)
    [problem] = info.value.problems
    assert problem.key == "study.situations_per_participant"
    assert "4" in problem.message and "3" in problem.message


def test_exactly_enough_situations(tmp_path):
    study = load_study(make_study(tmp_path, n_situations=4, per_participant=5))
    assert len(study.situations) == 4


def test_check_dialog_is_never_a_regular_situation(tmp_path):
    sits = [situation(f"s{i}", f"d{i % 4}", ("Alpha", "Beta")) for i in range(8)]
    folder = make_study(tmp_path, situations=sits, attention_check={"situation": "s1"})
    study = load_study(folder)
    assert study.attention_situation.dialog_id == "d1"
    assert "d1" not in {s.dialog_id for s in study.situations}
    assert len(study.situations) == 6


def test_validate_reports_config_and_situations_problems_together(tmp_path):
    folder = make_study(tmp_path)
    edit(folder, "lease_minutes", "lease_minuts")
    lines = (folder / "situations.jsonl").read_text().splitlines()
    lines[2] = '{"situation_id": "broken"'
    lines[4] = json.dumps({"situation_id": "s-x", "dialog_id": "d", "context": [], "responses": {}})
    (folder / "situations.jsonl").write_text("\n".join(lines) + "\n")
    study, errors, notes = validate_study(folder)
    assert study is None
    files = {p.file for p in errors}
    assert files == {str(folder / "study.toml"), str(folder / "situations.jsonl")}
    assert {p.line for p in errors if p.file.endswith(".jsonl")} == {3, 5}
    assert any(p.key == "assignment.lease_minuts" for p in errors)


def test_validate_reports_situations_problems_of_a_valid_config(tmp_path):
    folder = make_study(tmp_path)
    with open(folder / "situations.jsonl", "a") as f:
        f.write("not json\n")
    study, errors, _ = validate_study(folder)
    assert study is None
    assert [(p.file, p.line) for p in errors] == [(str(folder / "situations.jsonl"), 14)]


def test_missing_study_toml(tmp_path):
    with pytest.raises(InfactError) as info:
        load_study(tmp_path)
    assert "study.toml" in info.value.problems[0].file
    assert "not found" in info.value.problems[0].message


def test_prolific_screen_out_needs_a_screenout_code(tmp_path):
    folder = make_study(
        tmp_path,
        platform={"kind": "prolific", "completion_code": "C1ABCD23"},
        quality={"on_attention_fail": "screen_out"},
    )
    problem = only(config_problems(folder), "platform.screenout_code")
    assert "screenout_code" in problem.message
    folder = make_study(
        tmp_path,
        name="ok",
        platform={"kind": "prolific", "completion_code": "C1ABCD23", "screenout_code": "C9SCREEN"},
        quality={"on_attention_fail": "screen_out"},
    )
    assert load_config(folder).platform.screenout_code == "C9SCREEN"


def test_prolific_needs_a_completion_code(tmp_path):
    folder = make_study(tmp_path, platform={"kind": "prolific"})
    text = (folder / "study.toml").read_text()
    problem = only(config_problems(folder), "platform")
    assert "completion_code" in problem.message
    assert problem.line == line_of(text, "[platform]")


def test_unknown_quality_setting(tmp_path):
    folder = make_study(tmp_path, quality={"rsi_treshold": 2.5})
    text = (folder / "study.toml").read_text()
    problem = only(config_problems(folder), "quality.rsi_treshold")
    assert "did you mean 'rsi_threshold'" in problem.message
    assert problem.line == line_of(text, "rsi_treshold")
