"""Platform handshake: URL parameters in, completion code out."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from infact.errors import ConfigError
from infact.participation.platforms import (
    CODE_ALPHABET,
    PlatformConfig,
    PlatformError,
    capture,
    completion_target,
    make_participant_code,
    verify_codes,
)
from tests.support.studies import parse_section

PID = "5f1e2d3c4b5a69788796a5b4"
STUDY = "64a1b2c3d4e5f60718293a4b"
SESSION = "65ffeeddccbbaa0099887766"
PROLIFIC = PlatformConfig(kind="prolific", completion_code="C1ABCD23", screenout_code="SCR00T")
MTURK = PlatformConfig(kind="mturk")


def test_prolific_arrival_keeps_only_known_params():
    a = capture(
        {"PROLIFIC_PID": PID, "STUDY_ID": STUDY, "SESSION_ID": SESSION, "q": "A", "p": "tok_1", "utm": "x"},
        PROLIFIC,
    )
    assert a.platform == "prolific"
    assert a.platform_id == PID
    assert a.params == {"PROLIFIC_PID": PID, "STUDY_ID": STUDY, "SESSION_ID": SESSION}
    assert a.group == "A" and a.token == "tok_1"
    assert a.warnings == []
    assert a.record_fields() == {
        "platform": "prolific",
        "platform_params": a.params,
        "platform_id": PID,
        "group": "A",
        "platform_warnings": [],
    }


def test_list_values_use_the_last_one_like_streamlit():
    a = capture({"PROLIFIC_PID": ["x", PID]}, PROLIFIC)
    assert a.platform_id == PID


def test_unusual_but_plausible_prolific_id_is_accepted_with_warning():
    a = capture({"PROLIFIC_PID": "ABC123"}, PROLIFIC)
    assert a.platform_id == "ABC123"
    assert "24-character" in a.warnings[0]


@pytest.mark.parametrize(
    "value, why",
    [
        ("", "empty"),
        ("{{%PROLIFIC_PID%}}", "placeholder"),
        ("a" * 65, "65 characters"),
        ("5f1e2d3c-4b5a", "letters and digits"),
        ("<script>", "letters and digits"),
    ],
)
def test_bad_prolific_id_is_refused_with_reason(value, why):
    with pytest.raises(PlatformError) as e:
        capture({"PROLIFIC_PID": value}, PROLIFIC)
    assert e.value.param == "PROLIFIC_PID"
    assert why in e.value.reason
    # What the participant reads tells them where to go, not our internals.
    assert "Prolific" in e.value.participant_message
    assert "PROLIFIC_PID" not in e.value.participant_message


def test_bad_session_id_is_refused_even_with_good_pid():
    with pytest.raises(PlatformError) as e:
        capture({"PROLIFIC_PID": PID, "SESSION_ID": "{{%SESSION_ID%}}"}, PROLIFIC)
    assert e.value.param == "SESSION_ID"


def test_missing_id_is_refused_only_when_required():
    assert capture({}, PROLIFIC).platform_id is None
    strict = PROLIFIC.model_copy(update={"require_id": True})
    with pytest.raises(PlatformError) as e:
        capture({"STUDY_ID": STUDY}, strict)
    assert "missing" in e.value.reason


def test_mturk_arrival_and_preview():
    a = capture({"workerId": "A1B2C3D4E5F6G7", "assignmentId": "3ABCDEF", "hitId": "3XYZ"}, MTURK)
    assert a.platform_id == "A1B2C3D4E5F6G7" and not a.mturk_preview
    p = capture(
        {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3XYZ"}, MTURK.model_copy(update={"require_id": True})
    )
    assert p.mturk_preview and p.platform_id is None


def test_mturk_lowercase_worker_id_is_refused():
    with pytest.raises(PlatformError) as e:
        capture({"workerId": "a1b2"}, MTURK)
    assert e.value.param == "workerId"
    assert "Mechanical Turk" in e.value.participant_message


def test_platform_none_ignores_platform_params():
    a = capture({"PROLIFIC_PID": PID, "workerId": "A1"}, PlatformConfig())
    assert a.params == {} and a.platform_id is None


def test_group_values_are_enforced():
    cfg = PlatformConfig(group_values=["A", "B"])
    assert capture({"q": "B"}, cfg).group == "B"
    with pytest.raises(PlatformError) as e:
        capture({"q": "C"}, cfg)
    assert e.value.param == "q"
    with pytest.raises(PlatformError):
        capture({"q": "a b"}, PlatformConfig())


def test_damaged_token_is_refused():
    with pytest.raises(PlatformError) as e:
        capture({"p": "../etc"}, PlatformConfig())
    assert e.value.param == "p"


# ------------------------------------------------------------------ config


def test_prolific_requires_completion_code_and_says_where_to_find_it():
    with pytest.raises(ConfigError) as e:
        parse_section("platform", {"kind": "prolific"}, "studies/x/study.toml")
    p = e.value.problems[0]
    assert p.file == "studies/x/study.toml"
    assert p.key == "platform"
    assert "completion_code" in p.message and "cc=" in p.message


@pytest.mark.parametrize(
    "table, key, text",
    [
        ({"kind": "prolifc"}, "platform.kind", "prolific"),
        ({"completion_cod": "X"}, "platform.completion_cod", "unknown setting"),
        ({"kind": "prolific", "completion_code": "has space"}, "platform", "letters"),
        ({"group_param": "p"}, "platform", "already used"),
        ({"group_values": []}, "platform", "empty"),
    ],
)
def test_config_errors_name_the_key(table, key, text):
    with pytest.raises(ConfigError) as e:
        parse_section("platform", table)
    p = e.value.problems[0]
    assert p.key == key and text in p.message


def test_every_setting_is_described():
    for name, f in PlatformConfig.model_fields.items():
        assert f.description, name


# ------------------------------------------------------------------ completion


def test_prolific_completion_redirects_with_the_right_code():
    c = completion_target(PROLIFIC, "completed", "IGNORED")
    assert c.code == "C1ABCD23"
    assert c.redirect_url == "https://app.prolific.com/submissions/complete?cc=C1ABCD23"
    s = completion_target(PROLIFIC, "screened_out", "IGNORED")
    assert s.redirect_url.endswith("cc=SCR00T")


def test_prolific_screen_out_without_code_asks_to_return():
    cfg = PlatformConfig(kind="prolific", completion_code="C1")
    c = completion_target(cfg, "screened_out", "X")
    assert c.code is None and c.redirect_url is None and "return" in c.text


@pytest.mark.parametrize("cfg", [MTURK, PlatformConfig()])
def test_other_platforms_get_the_participant_code(cfg):
    c = completion_target(cfg, "completed", "ABCD-EFGH-JK")
    assert c.code == "ABCD-EFGH-JK" and c.redirect_url is None
    assert "ABCD-EFGH-JK" in c.text


def test_participant_codes_are_typable_stable_and_distinct():
    code = make_participant_code("secret", "tok1")
    assert len(code) == 12 and code[4] == code[9] == "-"
    assert set(code.replace("-", "")) <= set(CODE_ALPHABET)
    assert make_participant_code("secret", "tok1") == code
    assert make_participant_code("other", "tok1") != code
    codes = {make_participant_code("secret", f"tok{i}") for i in range(2000)}
    assert len(codes) == 2000
    drawn = make_participant_code(random.Random(1), "tok1")
    assert drawn != make_participant_code(random.Random(2), "tok1")


def test_verify_codes_matches_normalised_codes_and_flags_duplicates():
    participants = pd.DataFrame(
        [
            {
                "participant": "a",
                "status": "completed",
                "completion_code": "ABCD-EFGH-JK",
                "platform_id": "W1",
                "preview": False,
            },
            {
                "participant": "b",
                "status": "in_progress",
                "completion_code": "BBBB-BBBB-BB",
                "platform_id": "W2",
                "preview": False,
            },
            {
                "participant": "c",
                "status": "completed",
                "completion_code": "CCCC-CCCC-CC",
                "platform_id": None,
                "preview": True,
            },
        ]
    )
    out = verify_codes(["abcd efgh jk", "BBBB-BBBB-BB", "CCCC-CCCC-CC", "ABCDEFGHJK", "nope"], participants)
    assert out["matched"].tolist() == [True, False, False, True, False]
    assert out.loc[0, "participant"] == "a" and out.loc[0, "platform_id"] == "W1"
    assert out["duplicate"].tolist() == [True, False, False, True, False]


def test_verify_codes_checks_worker_and_code_pairs():
    """A code copied from another worker does not verify: the pair must match."""
    from infact.participation.codes import verify_codes as verify

    participants = pd.DataFrame(
        [
            {
                "participant": "a",
                "status": "completed",
                "completion_code": "ABCD-EFGH-JK",
                "platform_id": "W1",
                "preview": False,
            },
        ]
    )
    out = verify(
        [("W1", "abcd-efgh-jk"), ("w1", "ABCDEFGHJK"), ("W2", "ABCD-EFGH-JK"), ("W3", "ZZZZ-ZZZZ-ZZ")], participants
    )
    assert out["matched"].tolist() == [True, True, False, False]
    assert out.loc[2, "problem"] == "the code belongs to another worker ID" and out.loc[2, "participant"] == "a"
    assert out.loc[3, "problem"] == "no finished participant has this code"


def test_read_submissions_accepts_mturk_batch_results_pairs_and_bare_codes():
    from infact.participation.codes import read_submissions

    batch = 'HITId,WorkerId,AssignmentStatus,Answer.surveycode\nH1,W1,Submitted,ABCD-EFGH-JK\nH1,W2,Submitted,"x y"\n'
    assert read_submissions(batch) == [("W1", "ABCD-EFGH-JK"), ("W2", "x y")]
    assert read_submissions("W1,ABCD-EFGH-JK\nW2\tBBBB\n\nCCCC-CCCC-CC\n") == [
        ("W1", "ABCD-EFGH-JK"),
        ("W2", "BBBB"),
        (None, "CCCC-CCCC-CC"),
    ]
