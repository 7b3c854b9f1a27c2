"""Time from a participant's click on Submit to the next situation, in a real browser.

    python bench/participant_clicks.py [--situations 10] [--devices laptop,phone]

Starts `streamlit run` on a copy of the demo study (TinyDB store in a temporary
directory) and, as the baseline, a bare Streamlit app whose only content is a button
that counts its clicks. In one Chromium, for each window size (laptop 1280×900, phone
390×844): one participant rates and submits `--situations` situations, each timed
from the click until the next situation is on screen and the app is idle; then the
bare button is clicked as often, timed from the click until the new count is shown
and the app is idle. Both timings include the same Playwright round trips.

Prints per device `<device>_median_ms=`, `<device>_p90_ms=`, `<device>_bare_median_ms=`,
`<device>_bare_p90_ms=`, `<device>_ratio_median=` and `<device>_ratio_p90=` (ours / bare).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulations.browser import (  # noqa: E402 — the browser helpers the e2e tests use too
    CHROMIUM,
    CHROMIUM_ARGS,
    DEVICES,
    IDLE,
    consent,
    open_study,
    rate_all,
    small_study,
    start_server,
    stop_server,
    wait_idle,
)

BARE_APP = """import streamlit as st
n = st.session_state.setdefault("n", 0)
if st.button("Next", key="next"):
    st.session_state.n = n = n + 1
st.write(f"Count {n}")
"""


def p90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10, method="inclusive")[-1] if len(xs) > 1 else xs[0]


def time_situations(browser, url: str, device: str, n: int) -> list[float]:
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(120_000)
    page = context.new_page()
    open_study(page, url)
    consent(page, n)
    times = []
    for i in range(1, n):
        rate_all(page)
        button = page.get_by_role("button", name="Submit and continue")
        button.scroll_into_view_if_needed()
        start = time.perf_counter()
        button.click()
        page.get_by_text(f"Situation {i + 1} of {n}", exact=True).wait_for()
        page.wait_for_selector(IDLE)
        times.append((time.perf_counter() - start) * 1000)
        wait_idle(page)  # and the page takes clicks again (not timed: a person reads first)
    context.close()
    return times


def time_bare(browser, url: str, device: str, n: int) -> list[float]:
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(120_000)
    page = context.new_page()
    page.goto(url)
    page.get_by_text("Count 0").wait_for()
    wait_idle(page)
    times = []
    for i in range(1, n):
        start = time.perf_counter()
        page.get_by_role("button", name="Next").click()
        page.get_by_text(f"Count {i}", exact=True).wait_for()
        page.wait_for_selector(IDLE)
        times.append((time.perf_counter() - start) * 1000)
    context.close()
    return times


def start_bare(work: Path):
    """The baseline app, served with the same flags as ours."""
    work.mkdir(parents=True, exist_ok=True)
    script = work / "bare_button.py"
    script.write_text(BARE_APP, encoding="utf-8")
    return start_server(work / "server", app=script)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--situations", type=int, default=10)
    ap.add_argument("--devices", default="laptop,phone")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ours = start_server(work / "app", small_study(work, per_participant=args.situations, check_at=2))
        bare = start_bare(work / "bare")
        pw = sync_playwright().start()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for device in args.devices.split(","):
                t = time_situations(browser, ours.url, device, args.situations)
                b = time_bare(browser, bare.url, device, args.situations)
                print(f"{device}_median_ms={statistics.median(t):.0f}")
                print(f"{device}_p90_ms={p90(t):.0f}")
                print(f"{device}_bare_median_ms={statistics.median(b):.0f}")
                print(f"{device}_bare_p90_ms={p90(b):.0f}")
                print(f"{device}_ratio_median={statistics.median(t) / statistics.median(b):.2f}")
                print(f"{device}_ratio_p90={p90(t) / p90(b):.2f}")
                print(f"{device}_samples={len(t)}")
        finally:
            browser.close()
            pw.stop()
            stop_server(ours)
            stop_server(bare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
