"""Bidirectional and control characters are neutralised in displayed text, kept in stored text (issue 29 item 7)."""

import pytest

from infact.text.display import dialog_html, highlight_items, response_html, title_html
from infact.text.neutral import BIDI_CONTROLS, displayable, visible_controls, visible_frame

RLO = "\u202e"


@pytest.mark.parametrize("control", list(BIDI_CONTROLS))
def test_every_bidi_control_is_dropped_from_displayed_text(control):
    assert displayable(f"a{control}b") == "ab"


def test_c0_controls_go_and_layout_stays():
    assert displayable("a\x00b\x1b[31mc\x07\x7f\x85d") == "ab[31mcd"
    assert displayable("one\ttwo\nthree\r\n") == "one\ttwo\nthree\r\n"
    assert displayable("مرحبا hello") == "مرحبا hello"  # a right-to-left script keeps its own direction


def test_an_override_inside_a_highlighted_title_or_any_card_is_shown_without_it():
    text = f'I recommend "Al{RLO}ien (1979)" {RLO}and more'
    out = highlight_items(text)
    assert RLO not in out and "&quot;Alien (1979)&quot;</mark>" in out
    for html in (
        response_html("A", text),
        dialog_html([("user", text), ("bot", text)], intro=f"intro{RLO}"),
        title_html(f"Title{RLO}"),
    ):
        assert RLO not in html and "\u2066" not in html


# Participant text a researcher reads (issue 36 item 11): hidden controls shown as code points, never dropped.
HIDDEN = [
    *"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",  # embeddings, overrides, isolates
    *"\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u061c",  # zero-width, joiners, marks, BOM
    *"\u2028\u2029\u00ad\x01\x1b\x7f\x85\ufffe",  # separators, soft hyphen, C0/C1, a non-character
]


@pytest.mark.parametrize("control", HIDDEN)
def test_every_hidden_control_is_shown_as_its_code_point(control):
    assert visible_controls(f"a{control}b") == f"a[U+{ord(control):04X}]b"


def test_visible_text_keeps_layout_letters_and_non_text():
    assert visible_controls("one\ttwo\nthree\r\n") == "one\ttwo\nthree\r\n"
    assert visible_controls("مرحبا hello 👍") == "مرحبا hello 👍"
    assert visible_controls(None) is None and visible_controls(3) == 3


def test_a_table_is_shown_with_its_text_cells_visible_and_its_numbers_as_they_are():
    import pandas as pd

    table = pd.DataFrame({"text\u202e": [f"x{RLO}y", None], "n": [-1, 2]})
    shown = visible_frame(table)
    assert list(shown.columns) == ["text[U+202E]", "n"]
    assert shown["text[U+202E]"].iloc[0] == "x[U+202E]y" and list(shown["n"]) == [-1, 2]
    assert table["text\u202e"].iloc[0] == f"x{RLO}y"  # the table itself is not changed
