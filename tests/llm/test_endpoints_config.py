"""`[endpoints.NAME]` in study.toml and in the deployment's secrets."""

from __future__ import annotations

import re

import pytest

from infact.errors import ConfigError
from infact.study.endpoints import Endpoint, Sampling, endpoints_from_secrets, merged
from infact.study.loader import parse_config
from tests.support.paths import DEMO_STUDY


def demo_text() -> str:
    return (DEMO_STUDY / "study.toml").read_text(encoding="utf-8")


def test_a_study_declares_endpoints_with_sampling_defaults():
    text = (
        demo_text()
        + """
[endpoints.local-llama]
base_url = "http://127.0.0.1:8000/v1/"
model = "llama-3.1-8b-instruct"
api_key_env = "LOCAL_LLAMA_KEY"
max_concurrency = 8
timeout_s = 30
temperature = 0.3
"""
    )
    ep = parse_config(text).endpoints["local-llama"]
    assert ep.base_url == "http://127.0.0.1:8000/v1" and ep.max_concurrency == 8
    assert ep.sampling.params() == {"temperature": 0.3}


@pytest.mark.parametrize(
    "line, words",
    [
        ('api_key_env = "sk-abcdefabcdef"', "looks like a key"),
        ('api_key_env = "my key"', "NAME of an environment variable"),
        ('base_url = "localhost:8000"', "http:// or https://"),
        ("max_concurrency = 0", "greater than or equal to 1"),
        ("tempo = 1", "did you mean 'top_p'|unknown setting"),
    ],
)
def test_bad_endpoint_settings_name_the_key_and_the_fix(line, words):
    body = {"base_url": 'base_url = "http://127.0.0.1:8000/v1"', "model": 'model = "m"'}
    key = line.split("=")[0].strip()
    body[key] = line
    text = demo_text() + "\n[endpoints.e]\n" + "\n".join(body.values()) + "\n"
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    problem = err.value.problems[0]
    assert problem.key.startswith("endpoints.e") and problem.line is not None
    assert re.search(words, problem.message)


def test_a_deployments_secrets_declare_endpoints_and_the_study_wins_a_clash():
    secrets = {
        "endpoints": {
            "hosted": {"base_url": "https://api.example.org/v1", "model": "big", "api_key_env": "HOSTED_KEY"},
            "shared": {"base_url": "http://10.0.0.1/v1", "model": "deployment"},
        }
    }
    deployment = endpoints_from_secrets(secrets)
    study = {"shared": Endpoint(base_url="http://127.0.0.1/v1", model="study")}
    both = merged(study, deployment)
    assert both["hosted"].model == "big" and both["shared"].model == "study"
    with pytest.raises(ConfigError) as err:
        endpoints_from_secrets({"endpoints": {"bad": {"model": "m"}}})
    assert err.value.problems[0].key == "endpoints.bad.base_url"
    assert endpoints_from_secrets(None) == {}


def test_a_callers_sampling_overrides_the_endpoints():
    base = Sampling(temperature=0.2, max_tokens=100)
    assert Sampling(temperature=0.9).over(base).params() == {"temperature": 0.9, "max_tokens": 100}


def test_a_key_pasted_in_place_of_its_name_is_not_echoed_in_the_error():
    text = demo_text() + (
        '\n[endpoints.e]\nbase_url = "http://127.0.0.1/v1"\nmodel = "m"\napi_key_env = "sk-abcdef0123"\n'
    )
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert "sk-abcdef0123" not in str(err.value)
