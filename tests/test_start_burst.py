"""A Prolific launch on one process (issue 38): a crowd presses "Start the study" within a second or two and
nobody is turned away or asked to press again. One `streamlit run` (TinyDB, the default store), participants
over Streamlit's websocket (simulations/ws_participants.py), every one from the same loopback address as a
class behind one router or a proxy that forwards no address would be. Kept small for 2 CI cores; the timings
are bench/burst.py's (10 / 40 / 100 / 200 at once, against a bare Streamlit app): no timing is asserted here.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from simulations.browser import start_server, stop_server
from simulations.ws_participants import crowd
from tests.support.studies import make_study

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
CROWD = 40  # above the old per-address allowance (30 a minute): 10 of them were told to wait and press again


def test_a_crowd_pressing_start_at_once_is_never_refused_and_stays_balanced(tmp_path):
    study = make_study(tmp_path, n_situations=12, per_participant=3, assignment={"ratings_per_situation": 100})
    server = start_server(tmp_path / "app", study)
    try:
        # All open the page together and press "Start the study" half a second after it appeared.
        outcomes = asyncio.run(crowd(server.url, CROWD, CROWD, pause=0.5))
        store = server.storage()
    finally:
        stop_server(server)
    failed = [o.error for o in outcomes if not o.completed]
    assert not failed, failed[:3]
    asked_again = [o.presses["consent"] for o in outcomes if o.presses["consent"] != 1]
    assert asked_again == [], f"{len(asked_again)} participants had to press Start more than once"
    consents = Counter(r["participant"] for r in store.records(kind="consent"))
    assert len(consents) == CROWD and set(consents.values()) == {1}  # one participant each, none lost
    assert {o.token for o in outcomes} == set(consents)
    ratings = Counter(r["situation_id"] for r in store.records(kind="situation") if not r.get("attention_check"))
    assert max(ratings.values()) - min(ratings.values()) <= 1  # balanced assignment holds under the burst
