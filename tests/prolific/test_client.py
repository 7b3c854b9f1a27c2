"""The client's faults against the stub: each gives a typed error with a clear message, never the token."""

from __future__ import annotations

import pytest

from infact.prolific.client import (
    AuthError,
    MalformedAnswer,
    NotFound,
    NoToken,
    ProlificClient,
    Unavailable,
    WrongState,
    resolve_token,
)
from tests.support.prolific import TOKEN

ME = "/api/v1/users/me/"


def client(stub, token=TOKEN, **kw):
    waits = []
    c = ProlificClient(token, stub.url, sleep=waits.append, **kw)
    return c, waits


def test_the_token_is_sent_as_authorization_token(stub):
    c, _ = client(stub)
    assert c.get(ME)["id"] == "researcher1"
    assert stub.log[-1]["status"] == 200


@pytest.mark.parametrize("status", [401, 403])
def test_401_and_403_are_auth_errors_and_never_echo_the_token(stub, status):
    stub.fail("GET", ME, status)
    c, waits = client(stub)
    with pytest.raises(AuthError) as err:
        c.get(ME)
    assert err.value.status == status and not waits  # not retried
    assert TOKEN not in str(err.value)
    assert ("token was refused" if status == 401 else "lacks the rights") in str(err.value)


def test_a_wrong_token_is_refused_by_the_stub_and_not_shown(stub):
    c, _ = client(stub, token="wrong_" + TOKEN)
    with pytest.raises(AuthError) as err:
        c.get(ME)
    assert TOKEN not in str(err.value) and "wrong_" not in str(err.value)


def test_an_answer_echoing_the_token_is_scrubbed(stub):
    stub.fail("GET", ME, 400, raw=f'{{"error": {{"detail": "bad header Token {TOKEN}"}}}}')
    c, _ = client(stub)
    with pytest.raises(WrongState) as err:
        c.get(ME)
    assert TOKEN not in str(err.value) and "<token>" in str(err.value)


def test_404_names_the_unknown_id(stub):
    c, _ = client(stub)
    with pytest.raises(NotFound, match="404"):
        c.get("/api/v1/studies/nosuchstudy/")


def test_429_waits_for_retry_after_then_succeeds(stub):
    stub.fail("GET", ME, 429, times=2, retry_after="3")
    c, waits = client(stub)
    assert c.get(ME)["id"] == "researcher1"
    assert waits == [3.0, 3.0]


def test_5xx_is_retried_with_growing_backoff_then_a_typed_error(stub):
    stub.fail("GET", ME, 500, times=10)
    c, waits = client(stub, retries=3, backoff=0.5)
    with pytest.raises(Unavailable, match="500") as err:
        c.get(ME)
    assert waits == [0.5, 1.0, 2.0]
    assert len(stub.calls("GET", ME)) == 4 and not err.value.maybe_done


def test_a_timeout_is_retried_then_unavailable(stub):
    stub.delay("GET", ME, 0.6, times=10)
    c, waits = client(stub, timeout=0.2, retries=2)
    with pytest.raises(Unavailable, match="no answer in time"):
        c.get(ME)
    assert len(waits) == 2


def test_an_unsafe_call_is_not_retried_after_a_timeout_or_5xx(stub):
    """The pay call: the request may have been carried out, so it is never sent again by the client."""
    stub.delay("POST", "/pay/", 0.6)
    c, waits = client(stub, timeout=0.2)
    with pytest.raises(Unavailable) as err:
        c.post("/api/v1/bulk-bonus-payments/x/pay/", None, safe=False)
    assert err.value.maybe_done and not waits
    stub.fail("POST", "/pay/", 502)
    with pytest.raises(Unavailable) as err:
        c.post("/api/v1/bulk-bonus-payments/x/pay/", None, safe=False)
    assert err.value.maybe_done and not waits


def test_an_unsafe_call_is_retried_after_429_which_refused_it(stub):
    stub.fail("POST", "/pay/", 429, retry_after="1")
    c, waits = client(stub)
    with pytest.raises(NotFound):  # retried: the stub then says the bonus does not exist
        c.post("/api/v1/bulk-bonus-payments/x/pay/", None, safe=False)
    assert waits == [1.0]


def test_a_malformed_answer_is_a_typed_error(stub):
    stub.fail("GET", ME, 200, raw="<html>maintenance</html>")
    c, _ = client(stub)
    with pytest.raises(MalformedAnswer, match="not JSON"):
        c.get(ME)


def test_no_token_names_the_variable_to_set():
    with pytest.raises(NoToken, match="PROLIFIC_TOKEN"):
        resolve_token("PROLIFIC_TOKEN", {}, {})
    assert resolve_token("MY_TOKEN", {}, {"MY_TOKEN": "abc"}) == "abc"  # Streamlit secrets
    assert resolve_token("PROLIFIC_TOKEN", {"PROLIFIC_TOKEN": " e "}, {"PROLIFIC_TOKEN": "s"}) == "e"
