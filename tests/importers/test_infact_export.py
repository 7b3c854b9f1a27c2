"""`infact import infact-export`: the original INFACT's Firebase export, quirks and all."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from infact.cli.main import main
from infact.errors import DatasetError
from infact.importers.infact_export import LABELS, CheckRule, import_infact_export, parse_rating

FIXTURES = Path(__file__).parents[1] / "fixtures" / "infact_export"
EXPORT = FIXTURES / "crsframework-export.json"
SYSTEMS = {"Our": "RB-CRS", "Deep_crs": "KGSF", "Kbrd": "KBRD"}
PASSED, FAILED, ARRAY, BAD_RATING, NO_CHECK = (
    "AbC3xK9pQ2wE",
    "Zz81Lm0RtY6u",
    "nQ5tYw2EfG7h",
    "Hk7vBn4CpL0s",
    "Qr2sTu9VxY3z",
)


@pytest.fixture(scope="module")
def tables():
    return import_infact_export(EXPORT, SYSTEMS)


def _participant(tables, pid):
    return tables.participants.set_index("participant").loc[pid]


def test_attention_check_decides_who_is_valid(tables):
    p = tables.participants.set_index("participant")
    assert p.loc[[PASSED, ARRAY, BAD_RATING], "attention_passed"].tolist() == [True, True, True]
    assert p.loc[FAILED, "attention_passed"] == False  # noqa: E712 (None would mean "no check seen")
    assert p.loc[NO_CHECK, "attention_passed"] is None
    assert p["excluded"].to_dict() == {PASSED: False, FAILED: True, ARRAY: False, BAD_RATING: False, NO_CHECK: True}
    assert p.loc[FAILED, "reason"] == "failed the attention check"
    assert p.loc[NO_CHECK, "reason"] == "no attention-check trial"
    r = tables.ratings
    assert set(r.loc[r["excluded"], "participant"]) == {FAILED, NO_CHECK}
    assert (r.loc[r["participant"] == FAILED, "exclusion_reason"] == "failed the attention check").all()


def test_check_trial_is_flagged_not_a_rating(tables):
    r = tables.ratings
    check = r[r["is_attention_check"]]
    # one check trial × 3 systems for the four participants who saw it (Dialog_ID "6" as a string too)
    assert sorted(check["participant"].unique()) == sorted([PASSED, FAILED, ARRAY, BAD_RATING])
    assert len(check) == 12 and check["situation_id"].str.endswith("-check").all()
    assert _participant(tables, PASSED)["n_trials"] == 2  # 3 trials, one is the check


def test_string_ratings_padding_and_time(tables):
    r = tables.ratings
    row = r[(r["participant"] == PASSED) & (r["step_index"] == 1) & (r["system"] == "RB-CRS")].iloc[0]
    assert row["rating"] == 5
    assert row["rating_label"] == "Perfectly meaningful"
    assert row["response"] == 'Well one that I found to be quite a bit like it was "The Patriot  (2000)"'
    assert row["seconds"] == pytest.approx(21.734)
    assert row["situation_id"] == "1-f3" and row["dialog_id"] == 1 and row["criterion"] == "meaningful"
    assert pd.isna(row["position"])  # INFACT did not store the display order
    assert r["rating"].dtype.kind == "i"
    assert not r["response"].str.endswith((" ", "\n", "\r")).any()


def test_same_cut_of_a_dialog_is_one_situation_across_participants(tables):
    r = tables.ratings
    ids = r.loc[(r["dialog_id"] == 1) & ~r["is_attention_check"], "situation_id"].unique()
    assert list(ids) == ["1-f3"]
    assert r.loc[r["situation_id"] == "1-f3", "participant"].nunique() == 3


def test_firebase_array_with_null_holes(tables):
    r = tables.ratings[tables.ratings["participant"] == ARRAY]
    assert sorted(r["step_index"].unique()) == [1, 3, 4]  # index 0 and 2 are null
    p = _participant(tables, ARRAY)
    assert p["status"] == "in_progress" and p["n_trials"] == 2 and not p["excluded"]


def test_missing_questionnaire_and_answers_in_long_form(tables):
    assert set(tables.demographics["participant"]) == {PASSED, FAILED, BAD_RATING}
    d = tables.demographics.set_index(["participant", "item"])["answer"]
    assert d[(PASSED, "Gender")] == "Female" and d[(BAD_RATING, "Age")] == "35-44"
    q = tables.questionnaire.set_index(["participant", "item"])["answer"]
    assert q[(FAILED, "Remarks")] == "ok"
    assert _participant(tables, PASSED)["completion_code"] == "Q7K2ZP"
    assert _participant(tables, PASSED)["total_seconds"] == pytest.approx(402.6)
    assert _participant(tables, NO_CHECK)["status"] == "in_progress"


def test_unparseable_rating_warns_with_participant_and_trial(tables):
    [warning] = [p for p in tables.problems if "abc" in p.message]
    assert warning.key == f"CRS_Study/{BAD_RATING}/1" and warning.file == str(EXPORT)
    r = tables.ratings
    trial = r[(r["participant"] == BAD_RATING) & (r["step_index"] == 1)]
    assert sorted(trial["system"]) == ["KBRD", "RB-CRS"]  # the KGSF row is skipped, not guessed
    assert len(tables.problems) == 1  # the unknown "Browser" field is ignored quietly


def test_exclusion_list_and_configurable_rule():
    t = import_infact_export(EXPORT, SYSTEMS, exclude={BAD_RATING, "nobody"})
    p = t.participants.set_index("participant")
    assert p.loc[BAD_RATING, "excluded"] and p.loc[BAD_RATING, "reason"] == "on the exclusion list"
    assert any(pr.key == "--exclude" and "nobody" in pr.message for pr in t.problems)
    lenient = import_infact_export(EXPORT, SYSTEMS, check_rule=CheckRule(max_rating=4))
    assert lenient.participants.set_index("participant").loc[FAILED, "attention_passed"] == True  # noqa: E712
    other = import_infact_export(EXPORT, SYSTEMS, check_rule=CheckRule(dialog_id=7))
    assert other.participants["attention_passed"].isna().all() and not other.ratings["is_attention_check"].any()
    strict = import_infact_export(EXPORT, SYSTEMS, exclude_incomplete=True)
    assert strict.participants.set_index("participant").loc[ARRAY, "excluded"]


@pytest.mark.parametrize(
    "systems, expected",
    [
        ({"Our": "RB-CRS", "Kbrd": "KBRD"}, "['Deep_crs']"),
        ({**SYSTEMS, "Kgsf": "KGSF2"}, "['Kgsf']"),
    ],
)
def test_systems_must_match_the_file(systems, expected):
    with pytest.raises(DatasetError) as err:
        import_infact_export(EXPORT, systems)
    message = str(err.value)
    assert expected in message and "the file has ['Deep_crs', 'Kbrd', 'Our']" in message


def test_parse_rating():
    assert [parse_rating(v) for v in ("4", 4, " 2 ", "3.0", "meaningless", "abc", "7", None, "")] == [
        4,
        4,
        2,
        3,
        2,
        None,
        None,
        None,
        None,
    ]
    assert len(LABELS) == 5 and LABELS[0] == "Entirely meaningless" and LABELS[-1] == "Perfectly meaningful"


def test_cli_writes_tables_and_workbook(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        [
            "import",
            "infact-export",
            str(EXPORT),
            "--systems",
            "Our=RB-CRS,Deep_crs=KGSF,Kbrd=KBRD",
            "--out",
            str(out),
            "--exclude",
            str(FIXTURES / "exclude.txt"),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "abc" in captured.err and "participants: 5" in captured.out
    for name in ("ratings.csv", "participants.csv", "questionnaire.csv", "demographics.csv", "infact_sheets.xlsx"):
        assert (out / name).is_file()
    ratings = pd.read_csv(out / "ratings.csv")
    documented = [
        "participant",
        "condition",  # declared for every table of answers (empty: the original INFACT had no conditions)
        "study",
        "dataset_version",
        "step_index",
        "situation_id",
        "dialog_id",
        "system",
        "criterion",
        "rating",
        "rating_label",
        "position",
        "seconds",
        "is_attention_check",
        "shown_at",
        "answered_at",
    ]
    assert ratings.columns[: len(documented)].tolist() == documented
    assert ratings.loc[ratings["participant"] == BAD_RATING, "excluded"].all()  # from exclude.txt
    sheets = pd.read_excel(out / "infact_sheets.xlsx", sheet_name=None)
    assert list(sheets) == ["valid trials", "invalid trials", "demographics", "feedback"]
    assert set(sheets["valid trials"]["participant"]) == {PASSED, ARRAY}


def test_cli_rule_file_and_flags(tmp_path, capsys):
    rule = tmp_path / "rule.json"
    rule.write_text(json.dumps({"max_rating": 4}))
    args = [
        "import",
        "infact-export",
        str(EXPORT),
        "--systems",
        "Our=A,Deep_crs=B,Kbrd=C",
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(args + ["--check-rule", str(rule)]) == 0
    assert pd.read_csv(tmp_path / "o" / "participants.csv").set_index("participant").loc[FAILED, "attention_passed"]
    assert main(args + ["--check-max-rating", "1"]) == 0  # only a rating of 1 passes now
    p = pd.read_csv(tmp_path / "o" / "participants.csv").set_index("participant")
    assert p.loc[PASSED, "attention_passed"] and not p.loc[ARRAY, "attention_passed"]
    rule.write_text('{"rated": "Kgsf"}')
    capsys.readouterr()
    assert main(args + ["--check-rule", str(rule)]) == 2
    assert "'Kgsf'" in capsys.readouterr().err
    rule.write_text('{"dialog": 6}')
    capsys.readouterr()
    assert main(args + ["--check-rule", str(rule)]) == 2
    assert "dialog" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content, expected",
    [
        ("{not json", "not valid JSON"),
        ('{"users": {}}', "no 'CRS_Study' node"),
    ],
)
def test_bad_files_are_errors_not_tracebacks(tmp_path, capsys, content, expected):
    bad = tmp_path / "export.json"
    bad.write_text(content)
    assert main(["import", "infact-export", str(bad), "--systems", "Our=A", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_missing_systems_flag_lists_the_keys(tmp_path, capsys):
    assert main(["import", "infact-export", str(EXPORT), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "--systems" in err and "Deep_crs" in err and "Kbrd" in err and "Our" in err
    assert not (tmp_path / "o").exists()
