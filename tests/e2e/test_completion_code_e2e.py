"""The completion code as a participant copies it, in a real browser at 1280×900 and 390×844 (issue 19).

A participant finishes a short rating study; on the last page the code box's copy button puts
the code on the clipboard, and selecting the box's text or the code in the sentence below it
copies text too. Each of the three must be exactly a code `verify-codes` accepts for this
participant (infact.participation.codes.verify_codes on the exported participants table).
On the way, the demographics' short options ("Prefer not to say") stay on one line on a laptop.
"""

from __future__ import annotations

import re

import pytest

from infact.participation.codes import verify_codes
from infact.results.study_results import StudyResults
from infact.study.loader import load_study
from simulations.browser import (
    DEVICES,
    TIMEOUT_MS,
    consent,
    open_study,
    rate_all,
    shot,
    small_study,
    submit_situation,
    wait_idle,
)

pytestmark = pytest.mark.e2e
TOTAL = 3

SELECT_JS = """el => { const r = document.createRange(); r.selectNodeContents(el);
  const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); return s.toString(); }"""
# The code inside the sentence "Your completion code is ABCD-EFGH-JK. Please enter it …", selected as a reader would.
SELECT_IN_SENTENCE_JS = """(el, code) => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(code);
    if (at >= 0) { const r = document.createRange(); r.setStart(node, at); r.setEnd(node, at + code.length);
      const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); return s.toString(); }
  }
  return null; }"""


@pytest.fixture(scope="module")
def server(shared_server):
    """The short demo copy tests/e2e/test_participant_ux_e2e.py uses too (one server when both run on one worker)."""
    return shared_server("demo-3-situations-check-2", lambda work: small_study(work, per_participant=TOTAL, check_at=2))


def labels_on_one_line(page, texts: list[str]) -> None:
    for text in texts:
        label = page.locator('[data-testid="stRadioOption"] p').filter(has_text=re.compile(f"^{re.escape(text)}$"))
        assert label.count(), f"no option {text!r}"
        for i in range(label.count()):
            height, line = label.nth(i).evaluate(
                "e => [e.getBoundingClientRect().height, parseFloat(getComputedStyle(e).lineHeight)]"
            )
            assert height < 1.5 * line, f"{text!r} wraps: {height} px high, one line is {line} px"


def rating_scale_in_one_row(page) -> None:
    """The five labels (about 980 px side by side) do not fit the 640 px card: one row, every label
    at most two lines and broken between words only (a single word never), no empty equal columns."""
    group = page.locator('[data-testid="stRadioGroup"][aria-orientation="horizontal"]').first
    options = group.locator('[data-testid="stRadioOption"]')
    tops = {round(options.nth(i).bounding_box()["y"]) for i in range(options.count())}
    assert len(tops) == 1, f"the scale wraps to {len(tops)} rows"
    labels_on_one_line(page, ["Meaningless"])
    for i in range(options.count()):
        height, line = (
            options.nth(i)
            .locator("p")
            .evaluate("e => [e.getBoundingClientRect().height, parseFloat(getComputedStyle(e).lineHeight)]")
        )
        assert height < 2.5 * line, f"{options.nth(i).inner_text()!r} takes {height / line:.1f} lines"


def test_a_copied_completion_code_verifies(server, browser, device):
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(TIMEOUT_MS)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    try:
        page = context.new_page()
        open_study(page, server.url)
        token = consent(page, TOTAL)
        for n in range(1, TOTAL + 1):
            rate_all(page)
            if device == "laptop" and n == 1:
                rating_scale_in_one_row(page)
            submit_situation(page, n, TOTAL)
        groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
        for i in range(groups.count()):
            groups.nth(i).locator('[data-testid="stRadioOption"]').last.click()
        page.get_by_role("button", name="Continue", exact=True).click()
        page.get_by_role("button", name="Finish", exact=True).wait_for()
        wait_idle(page)
        if device == "laptop":
            labels_on_one_line(page, ["Prefer not to say", "Non-binary / other", "Native speaker", "Not sure"])
        shot(page, f"code-{device}-demographics")
        groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
        for i in range(groups.count()):
            groups.nth(i).locator('[data-testid="stRadioOption"]').first.click()
        page.get_by_role("button", name="Finish", exact=True).click()
        page.get_by_text("All your answers are saved.").wait_for()
        wait_idle(page)
        box = page.locator(".st-key-infact-completion-code [data-testid='stCode']")
        box.scroll_into_view_if_needed()
        shot(page, f"code-{device}-done")

        box.hover()
        box.get_by_role("button").first.click()
        copied = {
            "copy button": page.evaluate("navigator.clipboard.readText()"),
            "selected box": box.locator("code, pre").first.evaluate(SELECT_JS),
        }
        shown = box.inner_text().strip()
        sentence = page.get_by_text(re.compile(r"^Your completion code is ")).first
        copied["selected in sentence"] = sentence.evaluate(SELECT_IN_SENTENCE_JS, shown)
    finally:
        context.close()

    study = load_study(server.study_dir)
    participants = StudyResults(study, server.records(study=study.id)).tables.participants
    stored = participants.loc[participants["participant"] == token, "completion_code"].item()
    assert shown == stored, (shown, stored)
    for where, text in copied.items():
        assert text is not None and text.strip() == stored, f"{where}: copied {text!r}, the code is {stored!r}"
        result = verify_codes([text], participants)
        assert result["matched"].tolist() == [True], f"{where}: {text!r} does not verify"
        assert result["participant"].tolist() == [token]
