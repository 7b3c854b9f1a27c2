"""The live arena vote's fourth answer, "both bad" (live.allow_both_bad), and the simulated participant's use of it."""

from __future__ import annotations

from infact.chat.arena import LiveRun, Phase
from infact.chat.client import connect_all
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.studies import make_study

DEMO = "infact.chat.demo_systems:"


def arena(tmp_path, **live):
    live = {
        "max_turns": 2,
        "systems": {
            "Alpha": {"callable": DEMO + "genre_recommender"},
            "Beta": {"callable": DEMO + "popular_recommender"},
        },
        **live,
    }
    study = load_study(make_study(tmp_path, systems=("Alpha", "Beta"), live=live))
    r = LiveRun(study, MemoryStorage(), connect_all(study.config.live.systems), "p1")
    for slot in ("A", "B"):
        r.session(slot).send("a funny movie please")
        r.session(slot).end("frustrated")
        r.submit_rubric(slot, {item.id: "Disagree" for item in study.config.live.rubric})
    assert r.phase() == Phase("vote")
    return r


def test_both_bad_is_refused_where_the_study_does_not_offer_it(tmp_path):
    r = arena(tmp_path)
    errors = r.submit_vote("both_bad", "neither helped")
    assert errors and "both were bad" not in errors[0] and "about the same" in errors[0]
    assert r.phase() == Phase("vote")


def test_both_bad_is_stored_as_its_own_winner(tmp_path):
    r = arena(tmp_path, allow_both_bad=True)
    assert "or that both were bad" in r.submit_vote("C", "")[0]
    assert r.submit_vote("both_bad", "neither helped") == []
    vote = r.vote()
    assert (vote["winner"], vote["choice"]) == ("both_bad", "both_bad")


def test_a_bot_whose_chats_found_nothing_votes_both_bad(tmp_path):
    import random

    from infact.chat.bot import ChattingBot

    r = arena(tmp_path, allow_both_bad=True)
    bot = ChattingBot(r, random.Random(0))
    bot.scores = {"A": -0.3, "B": 0.0}  # what its chats gave: no fitting movie from either
    bot.vote()
    assert r.vote()["winner"] == "both_bad"


def test_a_bot_that_found_a_fit_votes_for_that_chatbot(tmp_path):
    import random

    from infact.chat.bot import ChattingBot

    r = arena(tmp_path, allow_both_bad=True)
    bot = ChattingBot(r, random.Random(0))
    bot.scores = {"A": -0.3, "B": 1.0}
    bot.vote()
    assert r.vote()["winner"] == r.slots()["B"]
