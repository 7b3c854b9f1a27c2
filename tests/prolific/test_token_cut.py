"""Issue 36 item 7: an API answer that echoes the token never prints it, not even in part. The client scrubs
before it shortens Prolific's explanation (300 characters of a JSON detail, 120 of a body that is not JSON),
and masks a piece of the token that someone else's cut left at a text's edge."""

from __future__ import annotations

import pytest

from infact.prolific.client import MalformedAnswer, ProlificClient, ProlificError, WrongState
from tests.support.prolific import TOKEN

ME = "/api/v1/users/me/"
MASK = "<token>"  # what the client prints instead


def shown_pieces(text: str, n: int = 3) -> list[str]:
    """Every run of `n` characters of the token that `text` shows (the mask itself aside)."""
    bare = text.replace(MASK, "\x00")
    return [TOKEN[i : i + n] for i in range(len(TOKEN) - n + 1) if TOKEN[i : i + n] in bare]


def error_of(stub, call) -> ProlificError:
    c = ProlificClient(TOKEN, stub.url, sleep=lambda _: None)
    try:
        with pytest.raises(ProlificError) as err:
            call(c)
        return err.value
    finally:
        c.close()


# "Token " and the token straddle the cut: before it, across it, just after it
@pytest.mark.parametrize("before", [280, 288, 292, 294, 296, 298, 299])
def test_a_json_detail_echoing_the_token_at_the_300_character_cut(stub, before):
    stub.echo_token("GET", ME, 400, form="json", prefix="x" * before)
    err = error_of(stub, lambda c: c.get(ME))
    assert isinstance(err, WrongState)
    assert TOKEN not in str(err) and not shown_pieces(str(err)), str(err)[-60:]


@pytest.mark.parametrize("before", [100, 108, 112, 114, 116, 118, 119])
def test_a_body_that_is_not_json_echoing_the_token_at_the_120_character_cut(stub, before):
    stub.echo_token("GET", ME, 200, form="text", prefix="<html>" + "y" * (before - 6))
    err = error_of(stub, lambda c: c.get(ME))
    assert isinstance(err, MalformedAnswer)
    assert not shown_pieces(str(err)), str(err)[-60:]


@pytest.mark.parametrize("before", [200, 294, 296])
def test_a_5xx_text_body_echoing_the_token_is_clipped_after_scrubbing(stub, before):
    stub.echo_token("GET", ME, 503, form="text", prefix="z" * before, times=10)  # retried, then the error
    err = error_of(stub, lambda c: c.get(ME))
    assert "503" in str(err) and not shown_pieces(str(err))


@pytest.mark.parametrize("kept", [4, 6, 9, 14, len(TOKEN) - 1])
def test_a_token_that_the_server_itself_cut_short_is_masked(stub, kept):
    """A proxy that shortened its own echo leaves a start of the token at the end of the body."""
    stub.fail("GET", ME, 400, raw=f'{{"detail": "bad header: Token {TOKEN[:kept]}"}}')
    err = error_of(stub, lambda c: c.get(ME))
    assert not shown_pieces(str(err), min(kept, 4)), str(err)


def test_scrub_masks_pieces_and_edges_and_leaves_other_text():
    from infact.prolific.client import scrub

    assert scrub(f"a {TOKEN} b", TOKEN) == f"a {MASK} b"
    assert scrub(f"...{TOKEN[:7]}", TOKEN).endswith(MASK)  # a start of it where the text was cut
    assert scrub(f"{TOKEN[-6:]} after", TOKEN).startswith(MASK)  # an end of it where the text begins
    assert MASK in scrub(f"in the middle {TOKEN[3:13]} of it", TOKEN)
    assert scrub("no secret here, just a token word", TOKEN) == "no secret here, just a token word"


def test_clip_keeps_short_text_and_marks_a_cut():
    from infact.prolific.client import clip

    assert clip("short", TOKEN, 300) == "short"
    long = clip("w" * 500, TOKEN, 300)
    assert long.endswith("…") and len(long) == 301
    near = clip("v" * 297 + TOKEN + "tail", TOKEN, 300)
    assert near.endswith(MASK + "…") and not shown_pieces(near)
