"""Benchmark: one rerun of the dialog-level (ACUTE-style) page vs the rating page, both under AppTest.

    python bench/acute_page.py [--runs 30]

The dialog page is streamlit_app.py on data/demo-acute after consent and the onboarding:
two whole conversations (8 turns), two criteria with three options each and the justification
box. The baseline is the rating page of data/demo (bench/page_rerun.py: situation 1, three
responses with 5-point scales). Every timed rerun first changes one answer, as a click does, so
the script runs top to bottom. Reruns of the two pages are interleaved one by one (the study is
switched by INFACT_STUDY before each), so a busy machine slows both alike, and Streamlit's
compiled-script cache is kept across reruns as a `streamlit run` server does.

Prints: acute_page_ms= (median wall time per rerun), rating_page_ms=, ratio= (target <= 1.5:
showing whole conversations costs about what a rating page does), cpu_ratio= (this process's
CPU time, which other processes' load does not inflate), runs=.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from page_rerun import _SharedScriptCache, click_rating, rating_page, timed_run  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

DEMO, DEMO_ACUTE = REPO / "data" / "demo", REPO / "data" / "demo-acute"
CHOICES = ["Conversation A", "Conversation B", "About the same"]


def acute_page() -> tuple[AppTest, str]:
    """The app after consent and the four gold pairs: the first pair of conversations, and its step name."""
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.run()
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    at.run()
    gold = [json.loads(x)["answer"] for x in (DEMO_ACUTE / "onboarding.jsonl").read_text().splitlines()]
    for i, answer in enumerate(gold, start=1):
        at.radio(key=f"onboarding-{i}").set_value(answer)
    at.button(key="submit-onboarding").click()
    at.run()
    keys = [r.key for r in at.radio if r.key.startswith("pairwise-dialog-")]
    if at.exception or not keys:
        raise RuntimeError("did not reach the first pair of conversations")
    return at, keys[0]


def measure(runs: int, warmup: int) -> dict[str, list[float]]:
    os.environ["INFACT_STUDY"] = str(DEMO_ACUTE)
    acute, radio = acute_page()
    os.environ["INFACT_STUDY"] = str(DEMO)
    rating = rating_page()
    pages = {
        "acute": (acute, DEMO_ACUTE, lambda at, i: at.radio(key=radio).set_value(CHOICES[i % 3])),
        "rating": (rating, DEMO, click_rating),
    }
    out: dict[str, list[float]] = {}
    for i in range(warmup + runs):
        for name, (at, study, click) in pages.items():
            os.environ["INFACT_STUDY"] = str(study)
            click(at, i)
            wall, cpu = timed_run(at)
            if i >= warmup:
                out.setdefault(name, []).append(wall)
                out.setdefault(f"{name}_cpu", []).append(cpu)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="infact-bench-acute-") as tmp:
        os.environ["INFACT_DB"] = str(Path(tmp) / "db")
        with _SharedScriptCache():
            m = measure(args.runs, args.warmup)
    acute, rating = statistics.median(m["acute"]), statistics.median(m["rating"])
    print(f"acute_page_ms={acute:.1f}")
    print(f"rating_page_ms={rating:.1f}")
    print(f"ratio={acute / rating:.2f}")
    print(f"cpu_ratio={statistics.median(m['acute_cpu']) / statistics.median(m['rating_cpu']):.2f}")
    print(f"runs={args.runs}")


if __name__ == "__main__":
    main()
