"""A real deployment, tested (issue 29, item 8): nginx from Debian's package, configured by
deploy/nginx.conf (sticky by cookie, websocket upgrades), in front of three Streamlit replicas of the
app on one PostgreSQL database (simulations/deployment.py). Participants are driven through nginx over
Streamlit's websocket (simulations/ws_participants.py): they consent, answer every step with widget
values and submit, as a person does; what a person *sees* stays with the browser tests (tests/e2e).

Sizes are kept for 2 CI cores (the bench, bench/replicas.py, runs 300 participants, 30 at a time):
30 participants 10 at a time, 3 × 40 parallel sign-in guesses, 12 participants around a SIGKILL.
The tests share one deployment and run in file order: the dashboard before the guesses (whose waits would
hold the researcher up), the replica killed last.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections import Counter, defaultdict

import pytest

from infact.access.source import SECRET_HEADER, UNVERIFIED
from simulations.browser import RESEARCHER_PASSWORD
from simulations.deployment import deployment, nginx_binary
from simulations.st_client import StreamlitClient
from simulations.ws_participants import crowd
from tests.support.stores import postgres_url
from tests.support.studies import make_study

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.timeout(900)]
STEPS = ["consent", "situation-1", "situation-2", "situation-3", "questionnaire", "demographics"]
ANSWER_KINDS = {"consent", "situation", "questionnaire", "demographics"}
COUNTS = re.compile(r"^(Visited|Consented|Completed|Included|Excluded|Screened out|Withdrawn): \d+$")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if nginx_binary() is None:
        pytest.fail("nginx is not installed: apt-get install nginx (scripts/test.sh installs it)")
    url = postgres_url()
    tmp = tmp_path_factory.mktemp("nginx-replicas")
    study = make_study(tmp, n_situations=12, per_participant=3, assignment={"ratings_per_situation": 50})
    with deployment(tmp / "site", study, url, replicas=3) as dep:
        yield dep


def answers_by_step(store) -> dict[str, Counter]:
    """participant -> how many answer records each step has."""
    out: dict[str, Counter] = defaultdict(Counter)
    for r in store.records():
        if r.get("kind") in ANSWER_KINDS and not str(r["participant"]).startswith("_"):
            out[r["participant"]][r["step"]] += 1
    return out


def check_nothing_lost(store, outcomes) -> None:
    stored = answers_by_step(store)
    for o in outcomes:
        assert o.token, o
        for step in o.acknowledged:
            assert stored[o.token][step] == 1, (o.token, step, stored[o.token])  # 0: lost, 2: duplicated
    assert all(n == 1 for steps in stored.values() for n in steps.values())


def page_routes(dep) -> dict[str, set[str]]:
    """route cookie -> the replicas that served its page loads. Logged as each request ends, so open studies show
    here at once, where a websocket (routes) is logged only when it closes."""
    out: dict[str, set[str]] = defaultdict(set)
    for line in (dep.prefix / "access.log").read_text().splitlines():
        if re.search(r'"GET /(\?\S*)? HTTP\S*" 200 ', line):
            upstream = re.search(r"upstream=(\S+)", line)[1]
            out[re.search(r"route=(\S+)", line)[1]].add(upstream.split(",")[-1].strip())
    return out


def busiest(dep, before: set[str]) -> int:
    """The replica holding most of the studies begun since `before` (route cookies): it has one at least."""
    held = Counter(r for route, replicas in page_routes(dep).items() if route not in before for r in replicas)
    addresses = [server.url.removeprefix("http://") for server in dep.replicas]
    return max(range(len(addresses)), key=lambda i: held[addresses[i]])


def routes(dep) -> dict[str, set[str]]:
    """route cookie -> the replicas (upstream addresses) that served its websockets."""
    out: dict[str, set[str]] = defaultdict(set)
    for line in (dep.prefix / "access.log").read_text().splitlines():
        if "/_stcore/stream" in line and " 101 " in line:
            upstream = re.search(r"upstream=(\S+)", line)[1]
            out[re.search(r"route=(\S+)", line)[1]].add(upstream.split(",")[-1].strip())
    return out


def test_participants_complete_through_nginx_nothing_lost_and_every_dashboard_agrees(site):
    outcomes = asyncio.run(crowd(site.url, 30, 10))
    assert [o.error for o in outcomes if not o.completed] == []
    assert all(o.acknowledged == STEPS for o in outcomes)
    store = site.storage()
    check_nothing_lost(store, outcomes)
    ratings = Counter(r["situation_id"] for r in store.records(kind="situation") if not r.get("attention_check"))
    assert len(ratings) == 12 and sum(ratings.values()) == 30 * 2
    assert max(ratings.values()) - min(ratings.values()) <= 1, sorted(ratings.values())
    # Sticky: each browser's websockets went to one replica; every replica had participants.
    served = routes(site)
    assert all(len(replicas) == 1 for replicas in served.values()), served
    assert len({r for replicas in served.values() for r in replicas}) == 3, served
    # The dashboard on every replica shows the same counts of these participants. Checked here, in the same
    # test: under pytest-xdist a module's tests were seen on two workers, each with its own deployment, and a
    # separate dashboard test then read a deployment where no participant had run.
    counts = [asyncio.run(dashboard_counts(server.url)) for server in site.replicas]
    assert "Completed: 30" in counts[0] and len(counts[0]) == 7, counts[0]
    assert counts[1] == counts[0] and counts[2] == counts[0], counts


async def dashboard_counts(url: str) -> list[str]:
    client = StreamlitClient(url)
    try:
        await client.open(page_name="researcher")
        screen = await client.rerun({"password": RESEARCHER_PASSWORD}, press="sign_in_submit")
        assert screen.has("You are signed in"), screen.text()[-500:]
        client.page_name, client.page_script_hash = "dashboard", ""
        screen = await client.rerun()
        return [t for t in screen.texts if COUNTS.match(t)]
    finally:
        await client.close()


async def guess(url: str, forged: str | list[str], secret: str | None = None) -> str:
    """One wrong password on a fresh session, with a forged X-Forwarded-For (several headers: a list) and,
    acting as the trusted proxy, the proxy secret; the page's answer."""
    sent = [forged] if isinstance(forged, str) else forged
    headers = [("X-Forwarded-For", f) for f in sent] + ([(SECRET_HEADER, secret)] if secret is not None else [])
    client = StreamlitClient(url, headers=headers)
    try:
        await client.open(page_name="researcher")
        screen = await client.rerun({"password": "not-the-password"}, press="sign_in_submit")
        if screen.has("Too many wrong passwords"):
            return "refused"
        return "checked" if screen.has("Wrong password") else "?"
    finally:
        await client.close()


def attempt_sources(site) -> Counter:
    """The sources of the sign-in attempts stored so far (each is reserved as a failure before the check)."""
    return Counter(r.get("source") for r in site.storage().records() if r.get("kind") == "signin_failure")


def test_a_forged_forwarded_address_is_believed_only_with_the_proxy_secret(site):
    # Straight to a replica on loopback (past nginx), and through nginx with a forged secret too: neither
    # forged address becomes the source; nginx replaces both headers with its own.
    before = attempt_sources(site)
    assert asyncio.run(guess(site.replicas[0].url, "203.0.113.7")) == "checked"
    assert asyncio.run(guess(site.url, "203.0.113.8", secret="forged")) == "checked"
    # Issue 36, item 9: an empty header then a forged one (uvicorn reads them as one list) is that source too.
    assert asyncio.run(guess(site.replicas[0].url, ["", "203.0.113.9"])) == "checked"
    assert attempt_sources(site) - before == Counter({UNVERIFIED: 2, "127.0.0.1": 1})


def test_three_replicas_give_a_guesser_one_sign_in_allowance(site):
    # Many sources at once, as many clients behind the trusted proxy: the test sends the proxy's secret.
    async def attack():
        return await asyncio.gather(
            *(
                guess(server.url, f"198.51.100.{i}", secret=site.proxy_secret)
                for server in site.replicas
                for i in range(40)
            )
        )

    before = attempt_sources(site)
    started = time.monotonic()
    answers = Counter(asyncio.run(attack()))
    took = time.monotonic() - started
    assert answers["?"] == 0, answers
    # One server-wide allowance, shared through the store, not 3 × 20: 20 free failures and the check that
    # makes the 21st, then one more check after each doubling wait (2, 4, 8 … s) that ended during the attack.
    later = int(math.log2(took + 2)) - 1
    assert 1 <= answers["checked"] <= 21 + later, (answers, f"{took:.0f} s")
    believed = attempt_sources(site) - before  # with the secret, the forwarded addresses are the sources
    assert believed and all(s.startswith("198.51.100.") for s in believed), believed
    assert answers["refused"] == 120 - answers["checked"]


def in_order_each_once(acknowledged: list[str]) -> bool:
    """The steps acknowledged are STEPS with at most some left out: none repeated, none out of order."""
    places = [STEPS.index(step) for step in acknowledged if step in STEPS]
    return len(places) == len(acknowledged) and places == sorted(set(places))


def test_a_replica_killed_mid_study_loses_nothing_its_participants_resume_elsewhere(site):
    served_before = routes(site)
    begun_before = set(page_routes(site))
    done_before = len(site.storage().records(kind="complete"))
    acked: list = []

    def on_step(outcome) -> None:
        acked.append(outcome.token)

    async def study_with_a_crash():
        run = asyncio.ensure_future(crowd(site.url, 12, 12, pause=0.5, on_step=on_step))
        while len(acked) < 24:  # every participant is well into the study
            await asyncio.sleep(0.1)
        # The replica with most of them, not a fixed one: the consistent hash of 12 random routes left replica 0
        # without a participant in one CI run of twenty or so.
        victim.append(busiest(site, begun_before))
        await asyncio.to_thread(site.kill, victim[0])
        return await run

    victim: list[int] = []

    outcomes = asyncio.run(study_with_a_crash())
    assert [o.error for o in outcomes if not o.completed] == []
    # In order and each once. One may be missing, anywhere: a replica killed after storing a submit and before
    # drawing the next screen leaves the participant to see the step after it on reconnecting (seen at load 38
    # for the last step, in CI for a middle one); that it was stored is checked below (every participant
    # complete, every stored step once).
    assert all(in_order_each_once(o.acknowledged) for o in outcomes), [o.acknowledged for o in outcomes]
    assert sum(len(STEPS) - len(o.acknowledged) for o in outcomes) <= sum(o.reconnects for o in outcomes)
    moved = [o for o in outcomes if o.reconnects]
    assert moved, "no participant was on the killed replica"
    # They went on where they were: each step once, none of the acknowledged ones missing.
    check_nothing_lost(site.storage(), outcomes)
    assert len(site.storage().records(kind="complete")) == done_before + 12
    dead = site.replicas[victim[0]].url.removeprefix("http://")
    after = routes(site)
    new_routes = {route: replicas for route, replicas in after.items() if route not in served_before}
    assert any(dead in replicas and len(replicas) == 2 for replicas in new_routes.values()), new_routes
