"""The dashboard's "settled" in a real browser, at 1280×900 and 390×844 (issue 37): the Ranking section says in
plain words that its verdict may be watched (anytime-valid) and that the strengths' intervals may not, and a
stopping rule declared in study.toml's `[monitoring]` is shown as met once it is.

Screenshots: test-artifacts/monitoring-<open|settled|declared>-<device>-ranking.png.
"""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from infact.participation.bots import run_bots
from infact.study.loader import load_study
from simulations.browser import DEMO_STUDY, DEVICES, TIMEOUT_MS, require_chromium, shot, start_server, stop_server
from tests.support.dashboard_pages import open_section, show_section, sign_in

pytestmark = pytest.mark.e2e
# (systems, bots, [monitoring]): eight participants among four systems are not enough to settle anything, but
# reach the declared maximum; forty-five among three clearly different systems settle the order (a pair can
# separate only once 40 participants have compared it: infact/stats/confseq.py's MIN_UNITS)
CASES = {
    "open": (["Marquee", "Popcorn", "Trailer", "Static"], 8, "stop_when_settled = true\nmax_participants = 8"),
    "settled": (["Marquee", "Trailer", "Static"], 45, "stop_when_settled = true"),
    # a maximum declared in advance: the finite-horizon boundary (infact/stats/horizon.py), named in the words
    "declared": (["Marquee", "Trailer", "Static"], 45, "stop_when_settled = true\nmax_participants = 45"),
}


@pytest.fixture(scope="module", params=list(CASES))
def server(request, tmp_path_factory):
    require_chromium()
    systems, bots, rule = CASES[request.param]
    tmp = tmp_path_factory.mktemp(f"e2e-monitoring-{request.param}")
    folder = tmp / "study"
    shutil.copytree(DEMO_STUDY.parent / "demo-pairwise", folder)
    toml = folder / "study.toml"
    text = re.sub(r"(?m)^onboarding(_threshold)? = .*\n", "", toml.read_text(encoding="utf-8"))
    text = re.sub(r"(?m)^systems = .*$", "systems = " + str(systems).replace("'", '"'), text, count=1)
    toml.write_text(text + f"\n[monitoring]\n{rule}\n", encoding="utf-8")
    srv = start_server(tmp / "app", folder)
    run_bots(load_study(folder), srv.storage(), bots, strategy="attentive", seed=11)
    srv.name = request.param
    yield srv
    stop_server(srv)


def test_the_ranking_says_what_may_be_watched_and_when_the_rule_is_met(server, browser, device):
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(server.url)
        page.get_by_role("button", name="Start the study").wait_for()
        sign_in(page, server)
        open_section(page, "Ranking")
        main = page.get_by_test_id("stMain")
        if server.name == "settled":
            verdict = main.get_by_text(re.compile(r"The order is settled: Marquee > Trailer > Static\."))
            rule = "The stopping rule is met: the order is settled (anytime-valid)"
        elif server.name == "declared":
            settled = (
                r"The order is settled within the declared maximum of 45 participants: Marquee > Trailer > Static\."
            )
            verdict = main.get_by_text(re.compile(settled))
            rule = re.compile(
                "The stopping rule is met: the order is settled within the declared maximum of 45 participants"
            )
        else:
            verdict = main.get_by_text(re.compile("Not settled yet"))
            rule = "The stopping rule is met: 8 participants (rule: at most 8)"
        expect(verdict).to_be_visible(timeout=60_000)
        expect(main.get_by_text(re.compile("made to be watched"))).to_be_visible()
        expect(main.get_by_text(re.compile("do not stop recruiting on them"))).to_be_visible()
        expect(main.get_by_text(rule)).to_be_visible()
        assert "The ranking is settled: every two adjacent ranks" not in main.inner_text()  # the old wording
        show_section(page)
        shot(page, f"monitoring-{server.name}-{device}-ranking")
    finally:
        context.close()
