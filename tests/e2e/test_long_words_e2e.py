"""A 20,000-character word and bidirectional controls in a real browser (issue 29 item 7).

Every chatbot text of four demos (rating cards, pairwise comparison cards, annotated
conversation turns, ACUTE's conversations side by side) gets a 20,000-character "word" and a
U+202E. On a laptop (1280×900) and a phone (390×844) no card, turn or the page itself is wider
than its box: the word wraps instead of running off, clipped.
Screenshots: test-artifacts/long-word-<study>-<device>.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulations.browser import DEVICES, shot, start_after_consent, start_server, stop_server, wait_idle
from tests.support.studies import copy_study

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
WORD = "x" * 20_000
RLO = "\u202e"
LONG = f"{RLO}reversed? {WORD} end"

# study, the edits that take the participant straight to a card, the elements that hold dataset text
STUDIES = {
    "rating": ("demo", {}, ".infact-response, .infact-dialog"),
    "pairwise": ("demo-pairwise", {'onboarding = "onboarding.jsonl"': ""}, ".infact-response, .infact-dialog"),
    "conversation": ("demo-conversations", {}, ".infact-annotated-turn, .infact-turn"),
    "acute": ("demo-acute", {'onboarding = "onboarding.jsonl"': ""}, ".infact-conversation, .infact-turn"),
}

# Every element holding dataset text, and the page: wider content than box means clipped or a sideways scroll.
OVERFLOW_JS = """(selector) => {
  const out = [];
  const boxes = [...document.querySelectorAll(selector)];
  for (const el of boxes) {
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || r.right > window.innerWidth + 1)
      out.push({cls: el.className, scroll: el.scrollWidth, client: el.clientWidth, right: r.right});
  }
  const main = document.querySelector('[data-testid="stMain"]');
  for (const el of [document.documentElement, main])
    if (el && el.scrollWidth > el.clientWidth + 1)
      out.push({cls: el.tagName, scroll: el.scrollWidth, client: el.clientWidth});
  return {count: boxes.length, overflow: out, text: boxes.map(b => b.textContent).join(' ')};
}"""


def lengthen(folder: Path) -> None:
    """Every chatbot text of the study's data files gets the long word (situations and conversations)."""
    for path in [*folder.glob("*.jsonl"), *folder.glob("conversations/*.jsonl")]:
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if isinstance(row.get("responses"), dict):
                row["responses"] = {k: f"{v} {LONG}" for k, v in row["responses"].items()}
            dialogs = row.get("conversations") if isinstance(row.get("conversations"), dict) else {}
            for turn in [*(row.get("turns") or row.get("context") or []), *(t for c in dialogs.values() for t in c)]:
                if turn.get("role") == "bot":
                    turn["text"] += f" {LONG}"
            lines.append(json.dumps(row))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module", params=list(STUDIES))
def long_server(request, tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    name = request.param
    demo, edits, _ = STUDIES[name]
    work = tmp_path_factory.mktemp(f"e2e-long-{name}")
    folder = copy_study(REPO / "data" / demo, work / "study", edits)
    lengthen(folder)
    server = start_server(work, folder)
    yield name, server
    stop_server(server)


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_long_word_wraps_inside_every_card_and_no_control_is_shown(browser, long_server, device):
    name, server = long_server
    selector = STUDIES[name][2]
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(server.url)
        page.get_by_role("button", name="Start the study").wait_for()
        wait_idle(page)
        start_after_consent(page)
        page.get_by_text("reversed?").first.wait_for()
        wait_idle(page)
        found = page.evaluate(OVERFLOW_JS, selector)
        shot(page, f"long-word-{name}-{device}")
        assert found["count"] >= 2, found["count"]
        assert found["overflow"] == [], found["overflow"][:5]
        assert WORD[:100] in found["text"] and RLO not in found["text"]
    finally:
        context.close()
