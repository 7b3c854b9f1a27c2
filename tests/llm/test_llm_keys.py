"""API keys are read by name, sent to the server, and scrubbed from every failure and log line."""

from __future__ import annotations

import logging

import pytest

from infact.errors import ConfigError, SystemHTTPError
from infact.llm.client import LLMClient, open_client
from infact.llm.keys import MASK, read_key, scrub
from infact.study.endpoints import Endpoint
from simulations.openai_stub import serve_openai

KEY = "sk-test-4f9a7c21e0b3d8a6"


def test_the_key_is_read_by_its_variables_name_from_the_environment_then_secrets():
    assert read_key("MY_KEY", env={"MY_KEY": KEY}) == KEY
    assert read_key("MY_KEY", env={}, secrets={"MY_KEY": KEY}) == KEY
    assert read_key("MY_KEY", env={}, secrets={}) is None and read_key(None) is None


def test_a_known_key_is_scrubbed_from_text():
    read_key("MY_KEY", env={"MY_KEY": KEY})
    assert scrub(f"denied for Bearer {KEY}!") == f"denied for Bearer {MASK}!"


def test_a_server_echoing_the_key_in_an_error_leaves_no_trace_in_the_failure(caplog):
    with serve_openai() as stub:
        stub.rule = lambda request: KEY  # a misbehaving proxy: the key in the answer itself
        llm = LLMClient("ep", Endpoint(base_url=stub.url, model="m"), KEY)
        assert KEY not in llm.complete([{"role": "user", "content": "hi"}]).text
        assert stub.auth[-1] == f"Bearer {KEY}"  # it was sent, as it must be
        stub.fail(401)
        with caplog.at_level(logging.DEBUG):
            logging.getLogger("openai").debug("request headers: Authorization: Bearer %s", KEY)
            with pytest.raises(SystemHTTPError) as err:
                llm.complete([{"role": "user", "content": "hi"}])
    assert KEY not in str(err.value) and KEY not in repr(err.value.as_record())
    assert KEY not in caplog.text and MASK in caplog.text


def test_an_unset_key_is_a_config_error_naming_the_variable_not_a_value():
    endpoints = {"hosted": Endpoint(base_url="https://api.example.org/v1", model="m", api_key_env="HOSTED_KEY")}
    with pytest.raises(ConfigError, match="HOSTED_KEY, which is not set"):
        open_client("hosted", endpoints, env={})
    with pytest.raises(ConfigError, match=r"endpoint 'nope' is not declared"):
        open_client("nope", endpoints, env={})
    assert open_client("hosted", endpoints, env={"HOSTED_KEY": KEY}).endpoint.model == "m"
