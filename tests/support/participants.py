"""Participants for the core's tests: one who has consented, through the one consent helper.

(The app's consent is `tests.support.app.give_consent`, the browser's `simulations.browser.consent`.)
"""

from __future__ import annotations

from datetime import UTC, datetime

CONSENT = {"consent": True}  # the consent step's answers
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # when the funnel tests' crowd arrives


def submit_consent(flow, token: str):
    """Submit consent for `token`; the submit must be accepted. Returns its result."""
    result = flow.submit(token, "consent", CONSENT)
    assert result.ok, result
    return result


def consented(flow, arrival: dict | None = None) -> str:
    """A new participant who arrived (with `arrival`, e.g. platform parameters) and consented."""
    token = flow.arrive(arrival or {})
    submit_consent(flow, token)
    return token


def start(study, storage=None, clock=None):
    """(flow, token): a consented participant of `study` in `storage` (default: a fresh memory store)
    on `clock` (default: a FakeClock)."""
    from infact.participation.flow import Flow
    from infact.storage import MemoryStorage
    from tests.support.studies import FakeClock

    flow = Flow(study, storage if storage is not None else MemoryStorage(), clock=clock or FakeClock())
    return flow, consented(flow)


def played_by_people(study, storage, n: int, *, strategy: str | None = None, seed: int = 0, start_at=None) -> list:
    """`run_bots` as people would play it: the same strategies, seeds, answers and arrival times (7 s apart), but
    every record written as the web page writes a person's (no `bot` mark): a crowd of people for the tests that
    compare the dashboard, the exports and the analysis. Returns the BotResults."""
    import random
    from datetime import timedelta

    from infact.participation.bots import pick_strategies

    Person = person_class()
    rng = random.Random(seed)
    strategies = pick_strategies(n, strategy, rng)
    seeds = [rng.randrange(2**32) for _ in range(n)]
    begin = start_at or START
    return [
        Person(study, storage, strategies[i], seed=seeds[i], start=begin + timedelta(seconds=7 * i)).run()
        for i in range(n)
    ]


def people(study, storage, n: int, *, seed: int = 100, start_at=None) -> list[str]:
    """The tokens of `n` attentive people who complete the study (`played_by_people`)."""
    return [r.token for r in played_by_people(study, storage, n, strategy="attentive", seed=seed, start_at=start_at)]


def person_class():
    """A Bot subclass whose records are written as the web page writes a person's (no `bot` mark)."""
    import random

    from infact.participation.bots import Bot
    from infact.participation.flow import Flow

    class Person(Bot):
        def flow(self):
            return Flow(self.study, self.storage, clock=self.clock, rng=random.Random(self.rng.getrandbits(64)))

    return Person
