"""Bidirectional and control characters are neutralised in displayed text, kept in stored text (issue 29 item 7)."""

import pytest

from infact.text.display import dialog_html, highlight_items, response_html, title_html
from infact.text.neutral import BIDI_CONTROLS, displayable

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
