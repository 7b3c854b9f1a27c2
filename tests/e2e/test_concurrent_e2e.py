"""Ten participants at once in real browsers, against one server: nothing is lost.

One Chromium, ten browser contexts (separate cookies and sessions), driven by
Playwright's async API from a worker thread (so it never shares an event loop with
the sync fixtures of other modules). Each participant takes a copy of the demo study
cut to 4 situations (3 rated + the attention check) to keep the test cheap: consent,
situations, questionnaire, demographics — every kind of page and record, ten times
at once. With 10 x 3 regular slots over 38 situations, balanced assignment under the
store's lock must give every situation to at most one participant: concurrent
arrivals that did not see each other's reservations would show up as a repeat.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter

import pytest

from simulations.browser import (
    ARTIFACTS,
    CHECK_MARK,
    CHROMIUM,
    CHROMIUM_ARGS,
    DEMO_STUDY,
    IDLE,
    TIMEOUT_MS,
    UNGUARDED,
    require_chromium,
    start_server,
    stop_server,
)
from tests.support.studies import copy_study

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

N_PARTICIPANTS = 10
N_SITUATIONS = 4  # per participant, including the attention check
# 10 browsers and one Streamlit server on 2 cores: a step can take many seconds.
STEP_TIMEOUT_MS = 4 * TIMEOUT_MS


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    """A server on the demo study cut to N_SITUATIONS per participant."""
    require_chromium()
    work = tmp_path_factory.mktemp("e2e-concurrent")
    # the demo study itself (what a participant sees), shortened
    study = copy_study(
        DEMO_STUDY,
        work / "study",
        {
            "situations_per_participant = 10": f"situations_per_participant = {N_SITUATIONS}",
            "positions = [3, 8]": f"positions = [2, {N_SITUATIONS}]",
        },
    )
    server = start_server(work / "server", study_dir=study)
    yield server
    stop_server(server)


async def idle(page) -> None:
    await page.wait_for_selector(IDLE, timeout=STEP_TIMEOUT_MS)
    await page.wait_for_selector(UNGUARDED, state="attached", timeout=STEP_TIMEOUT_MS)  # clicks are taken


async def rate_all(page, label: str = "Somewhat meaningful") -> None:
    responses = page.locator(".infact-response")
    for i in range(await responses.count()):
        resp = responses.nth(i)
        letter = (await resp.locator(".infact-letter").inner_text()).removeprefix("Response ").strip()
        text = await resp.locator(".infact-text").inner_text()
        value = "Meaningless" if CHECK_MARK in text else label
        group = page.locator(f'[class*="st-key-situation-"][class*="-{letter}-meaningful"]')
        await group.get_by_text(value, exact=True).click()


async def answer_all(page, pick: str) -> None:
    groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
    for i in range(await groups.count()):
        options = groups.nth(i).locator('[data-testid="stRadioOption"]')
        await (options.first if pick == "first" else options.last).click()


async def participant(browser, url: str, n: int) -> dict:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(STEP_TIMEOUT_MS)
    page = await context.new_page()
    started = time.monotonic()
    try:
        await page.goto(url)
        await page.get_by_role("button", name="Start the study").wait_for()
        await idle(page)
        # consent, as simulations.browser.start_after_consent does with the sync API
        await page.get_by_text("I have read the information above").click()
        await page.get_by_role("button", name="Start the study").click()
        await page.wait_for_url(re.compile(r"[?&]p="))  # nothing is stored before consent
        token = re.search(r"[?&]p=([^&]+)", page.url).group(1)
        for i in range(1, N_SITUATIONS + 1):
            await page.get_by_text(f"Situation {i} of {N_SITUATIONS}", exact=True).wait_for()
            await idle(page)
            await rate_all(page)
            await page.get_by_role("button", name="Submit and continue").click()
        await page.get_by_role("button", name="Continue", exact=True).wait_for()
        await idle(page)
        await answer_all(page, "last")
        await page.get_by_role("button", name="Continue", exact=True).click()
        await page.get_by_role("button", name="Finish", exact=True).wait_for()
        await idle(page)
        await answer_all(page, "first")
        await page.get_by_role("button", name="Finish", exact=True).click()
        await page.get_by_text("All your answers are saved.").wait_for()
        await idle(page)
        code = (await page.locator('[data-testid="stCode"]').inner_text()).strip()
        return {"n": n, "token": token, "code": code, "seconds": time.monotonic() - started}
    except Exception:
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / f"concurrent-failed-{n}.png"), full_page=True)
        raise
    finally:
        await context.close()


async def crowd(url: str, n: int) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            return await asyncio.gather(*(participant(browser, url, i) for i in range(n)))
        finally:
            await browser.close()


def run_in_thread(coro_factory):
    out: dict = {}

    def target():
        try:
            out["value"] = asyncio.run(coro_factory())
        except BaseException as exc:  # re-raised in the test thread
            out["error"] = exc

    t = threading.Thread(target=target, name="e2e-crowd")
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_ten_participants_at_once_lose_nothing(app_server):
    require_chromium()
    started = time.monotonic()
    results = run_in_thread(lambda: crowd(app_server.url, N_PARTICIPANTS))
    wall = time.monotonic() - started
    print(
        f"\n{N_PARTICIPANTS} concurrent participants: wall {wall:.1f} s, "
        f"per participant {min(r['seconds'] for r in results):.1f}-{max(r['seconds'] for r in results):.1f} s"
    )

    tokens = [r["token"] for r in results]
    assert len(set(tokens)) == N_PARTICIPANTS, "two browsers got the same participant token"
    records = app_server.records()
    keys = [r["key"] for r in records]
    dupes = [k for k, c in Counter(keys).items() if c > 1]
    assert not dupes, f"keys stored twice: {dupes[:5]}"

    complete = {r["participant"]: r for r in records if r["kind"] == "complete"}
    assert set(complete) == set(tokens), "a participant has no complete record"
    for r in results:
        assert complete[r["token"]]["completion_code"] == r["code"]
        assert complete[r["token"]]["outcome"] == "completed"
        sits = [x for x in records if x["participant"] == r["token"] and x["kind"] == "situation"]
        assert sorted(x["index"] for x in sits) == list(range(1, N_SITUATIONS + 1)), (
            f"participant {r['n']}: {sorted(x['index'] for x in sits)}"
        )
        assert len({x["situation_id"] for x in sits}) == N_SITUATIONS
        assert sum(bool(x.get("attention_check")) for x in sits) == 1
        assert all(len(x["responses"]) == 3 and all(resp["ratings"] for resp in x["responses"]) for x in sits)
        for kind in ("consent", "questionnaire", "demographics", "assignment", "arrival"):
            assert sum(1 for x in records if x["participant"] == r["token"] and x["kind"] == kind) == 1, (r["n"], kind)
    regular = Counter(x["situation_id"] for x in records if x["kind"] == "situation" and not x.get("attention_check"))
    assert len(regular) == N_PARTICIPANTS * (N_SITUATIONS - 1) and max(regular.values()) == 1, (
        f"a situation went to two participants although unrated ones were left: {regular.most_common(3)}"
    )
