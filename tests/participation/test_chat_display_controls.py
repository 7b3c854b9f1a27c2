"""A live chat draws an LLM's answer without its control characters (issue 29, item 10); the store keeps them."""

from __future__ import annotations

from infact.participation.chat_display import ChatLine, chat_html

RAW = 'Try \x1b[31m"Up (2009)"\x00 \u202eor "Coco (2017)"\u202c\x07.'


def test_control_characters_in_an_answer_are_not_drawn_but_its_titles_still_are():
    page = chat_html([ChatLine("user", "a film?"), ChatLine("assistant", RAW, ("Up (2009)",))], "A")
    for char in ("\x1b", "\x00", "\x07", "\u202e", "\u202c"):
        assert char not in page, repr(char)
    assert "Up (2009)" in page and "Coco (2017)" in page and "[31m" in page  # only the controls go
    assert RAW.count("\x1b") == 1  # the answer itself (as stored) is untouched
