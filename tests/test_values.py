"""infact.values: the one place answers change form."""

import pandas as pd
import pytest

from infact.values import (
    bool_column,
    label_to_point,
    parse_bool,
    point_to_label,
    points_of,
    response_letter,
    shown_response,
)

LABELS = ["Entirely meaningless", "Meaningless", "Between", "Meaningful", "Perfectly meaningful"]


@pytest.mark.parametrize(
    "value, expected",
    [
        (True, True),
        (False, False),
        ("yes", True),
        (" TRUE ", True),
        ("t", True),
        ("1", True),
        (1, True),
        ("no", False),
        ("0", False),
        (0, False),
        ("", False),
        ("maybe", None),
        (None, None),
        (float("nan"), None),
        (2, None),
    ],
)
def test_parse_bool_one_word_list(value, expected):
    assert parse_bool(value) is expected


def test_bool_column_reads_csv_text_and_treats_unknown_as_false():
    s = pd.Series(["yes", "no", None, "True", "1", "x"])
    assert bool_column(s).tolist() == [True, False, False, True, True, False]


def test_label_point_round_trip():
    for point, label in enumerate(LABELS, start=1):
        assert label_to_point(label, LABELS) == point
        assert point_to_label(point, LABELS) == label
    assert label_to_point(3, LABELS) == 3  # already a point
    assert label_to_point(True, LABELS) is None  # bool is not a point
    assert label_to_point(6, LABELS) is None
    assert label_to_point("meaningless", LABELS) is None  # labels are exact
    assert point_to_label(0, LABELS) is None
    assert point_to_label("4", LABELS) == "Meaningful"
    assert point_to_label(2.5, LABELS) is None
    assert point_to_label(None, LABELS) is None
    assert points_of(["Meaningless", "Entirely meaningless"], LABELS) == {1, 2}


def test_shown_response_substitutes_only_the_instructed_system():
    responses = {"A": "a text", "B": "b text"}
    assert shown_response(responses, "A", instructed_system="B", instruction="say X") == "a text"
    assert shown_response(responses, "B", instructed_system="B", instruction="say X") == "say X"
    assert shown_response(responses, "B", instructed_system=None, instruction="say X") == "b text"
    assert [response_letter(i) for i in (1, 2, 3)] == ["A", "B", "C"]
