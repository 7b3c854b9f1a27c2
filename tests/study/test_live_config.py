"""`[live]` settings: systems reached by url or callable, names checked against the study."""

from __future__ import annotations

import pytest

from infact.errors import ConfigError
from infact.study.loader import parse_config

# Written by hand: the messages checked here name lines of this text.
BASE = """
[study]
id = "live"
title = "Chat"
systems = ["Good", "Bad"]

[texts]
welcome = "w"
instructions = "i"
terms = "t"
privacy = "p"

[attention_check]
enabled = false
"""


def problems(extra: str) -> list[str]:
    with pytest.raises(ConfigError) as exc:
        parse_config(BASE + extra)
    return [str(p) for p in exc.value.problems]


def test_live_is_off_by_default():
    assert not parse_config(BASE).live.enabled


def test_url_and_callable_systems_parse():
    cfg = parse_config(
        BASE
        + """
[live]
max_turns = 4

[live.systems.Good]
url = "http://127.0.0.1:9001/chat"
timeout_s = 5

[live.systems.Bad]
callable = "infact.chat.demo_systems:popular_recommender"
"""
    )
    assert cfg.live.enabled and cfg.live.max_turns == 4
    assert cfg.live.systems["Good"].timeout_s == 5 and cfg.live.systems["Bad"].url is None
    assert [r.id for r in cfg.live.rubric][:2] == ["meaningful", "natural"]


def test_unknown_system_name_points_at_its_table():
    extra = """
[live.systems.Good]
url = "http://x/chat"

[live.systems.Ugly]
url = "http://y/chat"
"""
    found = problems(extra)
    line = (BASE + extra).splitlines().index("[live.systems.Ugly]") + 1
    assert found[0] == (
        f"study.toml:{line}: [live.systems.Ugly] 'Ugly' is not one of study.systems "
        "['Good', 'Bad']; name each [live.systems.NAME] after a system of the study"
    )
    assert "has no [live.systems.Bad] table" in found[1]  # every problem in one run


def test_every_study_system_needs_a_table():
    found = problems('[live.systems.Good]\nurl = "http://x/chat"\n')
    assert "has no [live.systems.Bad] table" in found[0]


@pytest.mark.parametrize(
    "table, message",
    [
        ('url = "http://x/chat"\ncallable = "m:f"', "exactly one of"),
        ("timeout_s = 5", "exactly one of"),
        ('url = "ftp://x"', "http:// or https://"),
        ('callable = "not a spec"', "package.module:function"),
        ('url = "http://x/chat"\ntimeout_s = 0', "greater than 0"),
    ],
)
def test_bad_system_settings_say_what_to_do(table, message):
    found = problems(f'[live.systems.Good]\n{table}\n\n[live.systems.Bad]\nurl = "http://y/chat"\n')
    assert any(message in p and "live.systems.Good" in p for p in found), found


def test_turn_limits_and_empty_turn_rating():
    assert "must not exceed" in problems("[live]\nmin_turns = 4\nmax_turns = 2\n")[0]
    assert parse_config(BASE + '[live]\nturn_rating = ""\n').live.turn_rating is None


def test_a_callable_whose_module_cannot_be_found_is_named():
    found = problems(
        '[live.systems.Good]\ncallable = "no_such_pkg.models:kbrd"\n\n'
        '[live.systems.Bad]\ncallable = "infact.chat.demo_systems:retrieval_bot"\n'
    )
    assert len(found) == 1
    assert "[live.systems.Good.callable] cannot find module 'no_such_pkg.models'" in found[0]


def test_a_study_of_live_chats_only():
    live = '\n[live.systems.Good]\nurl = "http://x/chat"\n\n[live.systems.Bad]\nurl = "http://y/chat"\n'
    only_chats = BASE.replace('systems = ["Good", "Bad"]', 'systems = ["Good", "Bad"]\nsituations_per_participant = 0')
    assert parse_config(only_chats + live).regular_per_participant == 0
    with pytest.raises(ConfigError, match="leaves nothing to do"):
        parse_config(only_chats)
    with pytest.raises(ConfigError, match="set attention_check.enabled = false"):
        parse_config(only_chats.replace("enabled = false", "enabled = true") + live)
