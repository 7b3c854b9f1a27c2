"""Benchmark: one rerun of the rating page vs a bare Streamlit script, both under AppTest.

    python bench/page_rerun.py [--runs 30] [--profile]

The rating page is streamlit_app.py on the demo study (fresh temp TinyDB store),
after consent: situation 1 with its dialog and three responses. Every timed rerun
changes one rating radio first (what a participant's click does), so the script
runs top to bottom: arrival check, the participant's progress from the session (no
store read: infact/state.py), dialog HTML, 3 radios.
The baseline is a script with a single `st.write`, run the same way. AppTest's own
overhead (script thread, element tree) is in both numbers. Page and bare reruns are
interleaved one by one, so a busy machine slows both alike.

Prints, one per line: rating_page_ms= (median wall time per rerun), bare_ms=, ratio=
(target <= 1.5), cpu_ratio= (the same from this process's CPU time, which other
processes' load does not inflate), floor_ratio= and floor_cpu_ratio= (a script with
nothing but the page's form and its three scales, vs the bare script: what any rating
page costs under AppTest), elements_ratio= and elements_cpu_ratio= (the page's own
elements with their real contents, replayed by a script without any INFACT code: what
Streamlit charges for drawing this page; page minus elements is INFACT's own work plus
AppTest's legacy pages/ routing, below), then the same measured with Streamlit's
compiled-script cache kept across reruns (cached_…), and runs=.

AppTest resets PagesManager.uses_pages_directory before every run, so each AppTest rerun
of the app goes through Streamlit's legacy pages/ routing (glob pages/, four st.Page,
one navigation message) to pages/participant.py; a `streamlit run` server does that only
until the first st.navigation call of the process.

Why two figures: AppTest builds a new ScriptCache for every run
(streamlit/testing/v1/app_test.py and local_script_runner.py), so every rerun re-reads, re-parses,
applies "magic" (an AST rewrite) and compiles streamlit_app.py and
pages/participant.py. A `streamlit run` server keeps one ScriptCache for its whole
life and compiles each page once. The cached_* figures patch AppTest to keep one
cache, i.e. what the server actually does per rerun.

With --profile, also a cProfile of the cached rating reruns, top functions by
cumulative time, taken in the script thread AppTest starts for each run. (Without
the shared cache, ~70% of a rerun is Streamlit's magic AST rewrite + compile.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from streamlit.testing.v1 import AppTest  # noqa: E402

SCALE = [
    "Entirely meaningless",
    "Meaningless",
    "Between meaningless and meaningful",
    "Somewhat meaningful",
    "Perfectly meaningful",
]


def bare_script() -> None:
    import streamlit as st

    st.write("Hello")


def scales_only_script() -> None:
    """The floor: nothing but the rating page's form with its three 5-point scales."""
    import streamlit as st

    labels = [
        "Entirely meaningless",
        "Meaningless",
        "Between meaningless and meaningful",
        "Somewhat meaningful",
        "Perfectly meaningful",
    ]
    with st.form("form-situation-1"):
        for letter in "ABC":
            st.radio(
                "How meaningful is this response?",
                labels,
                index=None,
                horizontal=True,
                key=f"situation-1-{letter}-meaningful",
            )
        st.form_submit_button("Submit and continue")


def same_elements_script(head: str, reminder: str, responses: list[str], questions: list[str], withdraw: str) -> None:
    """The rating page's elements with their real contents, replayed without any INFACT code:
    what Streamlit charges for drawing that page, whatever computes it."""
    import streamlit as st

    labels = [
        "Entirely meaningless",
        "Meaningless",
        "Between meaningless and meaningful",
        "Somewhat meaningful",
        "Perfectly meaningful",
    ]
    st.html(head, unsafe_allow_javascript=True)
    with st.expander("Reminder: what does *meaningful* mean?"):
        st.markdown(reminder)
    with st.form("form-situation-1"):
        for letter, body, question in zip("ABC", responses, questions):
            st.html(body)
            st.radio(question, labels, index=None, horizontal=True, key=f"situation-1-{letter}-meaningful")
        st.form_submit_button("Submit and continue", type="primary", key="submit-situation-1")
    with st.expander("Withdraw from the study", key="infact-withdraw"):
        st.markdown(withdraw)
        st.button("Withdraw and leave", key="withdraw")


def _kinds(at: AppTest) -> list[str]:
    out, todo = [], list(at.main.children.values())
    while todo:
        node = todo.pop(0)
        out.append(type(node).__name__)
        todo[:0] = list(getattr(node, "children", {}).values())
    return out


def same_elements(page: AppTest) -> AppTest:
    """`same_elements_script` filled with what the page drew; refuses to measure if the page's
    element tree has changed shape (the replica would no longer be the same page)."""
    html = [h.proto.body for h in page.get("html")]
    args = (html[0], page.markdown[0].value, html[1:], [r.label for r in page.radio], page.markdown[1].value)
    at = AppTest.from_function(same_elements_script, args=args, default_timeout=60)
    at.run()
    if _kinds(at) != _kinds(page):
        raise RuntimeError(
            f"the rating page's elements changed: {_kinds(page)} vs the replica's {_kinds(at)}; "
            "update same_elements_script"
        )
    return at


def timed_run(at: AppTest) -> tuple[float, float]:
    """(wall ms, CPU ms of this process) of one run; CPU time leaves out other processes' load."""
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    wall, cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
    if at.exception:
        raise RuntimeError(f"the script raised: {[e.value for e in at.exception]}")
    return wall, cpu


def timed_runs(at: AppTest, runs: int, before_each=None) -> list[float]:
    out = []
    for i in range(runs):
        if before_each:
            before_each(at, i)
        out.append(timed_run(at)[0])
    return out


def rating_page() -> AppTest:
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.run()
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    at.run()
    if at.exception or not any(r.key == "situation-1-A-meaningful" for r in at.radio):
        raise RuntimeError("did not reach situation 1")
    return at


def click_rating(at: AppTest, i: int) -> None:
    at.radio(key="situation-1-A-meaningful").set_value(SCALE[i % len(SCALE)])


class _SharedScriptCache:
    """Make AppTest reuse one ScriptCache across runs, as a `streamlit run` server does."""

    def __enter__(self):
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
        from streamlit.testing.v1 import app_test, local_script_runner

        # app_test builds the PagesManager's cache, local_script_runner the runner's.
        self.modules = (app_test, local_script_runner)
        self.original = ScriptCache
        shared = ScriptCache()
        for module in self.modules:
            module.ScriptCache = lambda: shared
        return self

    def __exit__(self, *exc):
        for module in self.modules:
            module.ScriptCache = self.original


def measure(runs: int, warmup: int) -> dict[str, list[float]]:
    """Page and bare reruns interleaved one by one, so both see the same machine load."""
    page = rating_page()
    scripts = {
        "bare": AppTest.from_function(bare_script, default_timeout=60),
        "floor": AppTest.from_function(scales_only_script, default_timeout=60),
        "elements": same_elements(page),
        "page": page,
    }
    scripts["floor"].run()  # drawn once, so that its first timed run can click a scale
    for name, at in scripts.items():
        timed_runs(at, warmup, None if name == "bare" else click_rating)
    out: dict[str, list[float]] = {}
    for i in range(runs):
        for name, at in scripts.items():
            if name != "bare":
                click_rating(at, i)
            wall, cpu = timed_run(at)
            out.setdefault(name, []).append(wall)
            out.setdefault(f"{name}_cpu", []).append(cpu)
    return out


def profile(runs: int) -> str:
    import cProfile
    import io
    import pstats
    import threading

    page = rating_page()
    timed_runs(page, 3, click_rating)
    prof = cProfile.Profile()

    def start_in_script_thread(frame, event, arg):
        sys.setprofile(None)
        prof.enable()  # profiles the thread AppTest starts for the run

    threading.setprofile(start_in_script_thread)
    try:
        timed_runs(page, runs, click_rating)
    finally:
        threading.setprofile(None)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(30)
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the rating reruns")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="infact-bench-rerun-") as tmp:
        os.environ["INFACT_DB"] = str(Path(tmp) / "db")
        os.environ["INFACT_STUDY"] = str(REPO / "data" / "demo")
        plain = measure(args.runs, args.warmup)
        with _SharedScriptCache():
            cached = measure(args.runs, args.warmup)
            report = profile(args.runs) if args.profile else None

    for prefix, m in (("", plain), ("cached_", cached)):
        rating, base = statistics.median(m["page"]), statistics.median(m["bare"])
        print(f"{prefix}rating_page_ms={rating:.1f}")
        print(f"{prefix}bare_ms={base:.1f}")
        print(f"{prefix}ratio={rating / base:.2f}")
        print(f"{prefix}cpu_ratio={statistics.median(m['page_cpu']) / statistics.median(m['bare_cpu']):.2f}")
        print(f"{prefix}floor_ratio={statistics.median(m['floor']) / base:.2f}")
        print(f"{prefix}floor_cpu_ratio={statistics.median(m['floor_cpu']) / statistics.median(m['bare_cpu']):.2f}")
        print(f"{prefix}elements_ratio={statistics.median(m['elements']) / base:.2f}")
        print(
            f"{prefix}elements_cpu_ratio={statistics.median(m['elements_cpu']) / statistics.median(m['bare_cpu']):.2f}"
        )
    print(f"runs={args.runs}")
    if report:
        print(report)


if __name__ == "__main__":
    main()
