"""What a participant copies or retypes of a completion code verifies (issue 19, point 8)."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from infact.participation.codes import make_participant_code, normalize_code, verify_codes


@pytest.mark.parametrize(
    "seen",
    [
        "{a}-{b}-{c}",
        "{a}−{b}−{c}",
        "{a}–{b}—{c}",
        " {a} ‐ {b} ‑ {c}\n",
        "{a}\u00a0{b}\u200b{c}",
        "{a}_{b}_{c}",
        "{a}－{b}﹣{c}",
    ],
)
def test_dashes_and_spaces_of_every_kind_are_not_part_of_the_code(seen):
    code = make_participant_code(random.Random(1), "p1")
    a, b, c = code.split("-")
    participants = pd.DataFrame(
        [{"participant": "p1", "status": "completed", "completion_code": code, "platform_id": None}]
    )
    assert normalize_code(seen.format(a=a, b=b, c=c)) == code.replace("-", "")
    assert verify_codes([seen.format(a=a.lower(), b=b, c=c)], participants)["matched"].tolist() == [True]


def test_full_width_characters_count_as_their_plain_letters():
    assert normalize_code("ＡＢＣ２-３４") == "ABC234"


def test_a_different_code_still_does_not_match():
    participants = pd.DataFrame(
        [{"participant": "p1", "status": "completed", "completion_code": "ABCD-EFGH-JK", "platform_id": None}]
    )
    assert verify_codes(["ABCD−EFGH−JM"], participants)["matched"].tolist() == [False]
