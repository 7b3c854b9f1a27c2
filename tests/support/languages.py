"""Walking any protocol's participant pages under AppTest and reading every visible string, for the
language tests (tests/ui/test_languages.py).

`walk` plays a participant through whatever the page shows — it ticks every box, picks an option of every
scale, types into every text box and presses the page's own button — first pressing the button once with
nothing answered, so each page's refusal (its error messages) is read too. `visible` returns every string a
participant can read on the current run: Markdown, captions, headings, alerts, widget labels and options,
expander titles, progress lines and the text of the HTML blocks (dialog, responses, progress).

`unmarked(strings, own)` is what the pseudo-locale test asserts empty: every ⟦…⟧ (a catalogue string, see
infact/text/catalogue.py) and every text of the study's own (`own`: its study.toml and data files) taken
out, no word may remain.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

from streamlit.testing.v1 import AppTest

from infact.text import catalogue
from tests.support.app import html_bodies, run

LEAVE = {"withdraw", "start_over", "restart", "outage_retry"}  # buttons that leave the walk
_MARKED = re.compile(f"{catalogue.OPEN}[^{catalogue.OPEN}{catalogue.CLOSE}]*{catalogue.CLOSE}")
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters or more: a word (a lone "A" or "B" is a letter of the data)


def _html_text(body: str) -> str:
    body = re.sub(r"<(style|script)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r'aria-label="([^"]*)"', r"> \1 <", body)  # names read out by screen readers count too
    body = re.sub(r"</?mark\b[^>]*>", "", body)  # a highlighted title is part of its sentence
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def visible(at: AppTest) -> list[str]:
    """Every string the current page shows (code blocks — the completion code — are data, left out)."""
    out: list[str] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "text", "error", "warning", "info", "success"):
        out += [str(e.value) for e in at.get(kind)]
    out += [e.label for e in at.expander]
    out += [b.proto.text for b in at.get("progress") if b.proto.text]
    for widget in ("button", "checkbox", "text_area", "text_input", "segmented_control"):
        out += [w.label for w in at.get(widget)]
    for r in at.radio:
        out += [r.label, *r.options]
    out += [c.proto.placeholder for c in at.get("chat_input")]
    out += [_html_text(b) for b in html_bodies(at)]
    return [s for s in out if s and s.strip()]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def own_texts(folder: Path) -> list[str]:
    """The study's own texts: every string of its study.toml and data files that is not a catalogue string
    (a study that restates a default verbatim still gets it translated, so it must still come marked)."""
    found = _strings(tomllib.loads((folder / "study.toml").read_text(encoding="utf-8")))
    for path in folder.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found += _strings(json.loads(line))
    ids = catalogue.template_ids()
    found = [t for t in found if t not in ids]
    found += [part for t in found for part in re.split(r"\{\w+\}", t)]  # "… more **{criterion}** …", filled in
    texts = {" ".join(t.split()) for t in found if len(t.strip()) >= 2}
    return sorted(texts, key=len, reverse=True)


def unmarked(strings: list[str], own: list[str]) -> list[str]:
    """The strings in which a word remains once every catalogue string and every own text is taken out."""
    bad = []
    for text in strings:
        rest = " ".join(text.split())
        while (stripped := _MARKED.sub(" ", rest)) != rest:  # inner ones first: a message inside a message
            rest = stripped
        for mine in own:  # whole words only: a criterion id "meaningful" must not eat into a longer word
            before = r"(?<!\w)" if mine[0].isalnum() else ""
            after = r"(?!\w)" if mine[-1].isalnum() else ""
            rest = re.sub(before + re.escape(mine) + after, " ", rest)
        if _WORD.search(rest):
            bad.append(f"{text!r} (left: {' '.join(rest.split())!r})")
    return bad


def _pick(radio, n: int) -> None:
    """The n-th option of a scale (wrapping round), by its raw value: the shown label may be the translation
    (format_func). Scales side by side get different options: best and worst must differ."""
    option = radio.options[n % len(radio.options)]
    inner = _MARKED.fullmatch(option)
    candidates = [option]
    if inner:
        text = option[1:-1]
        candidates += [text, text.split()[-1]]  # "Somewhat meaningful"; "A" of "Response A"
    for raw in candidates:
        try:
            if radio.format_func(raw) == option:
                radio.set_value(raw)
                return
        except Exception:
            continue
    radio.set_value(option)


def _answer(at: AppTest) -> None:
    for box in at.checkbox:
        box.check()
    for n, radio in enumerate(at.radio):
        _pick(radio, n)
    for area in at.text_area:
        area.input("This is the participant's own reason, typed in the box.")


def _press(at: AppTest) -> bool:
    """Press the page's own button (the step's submit, Continue); False when it has none (the last page)."""
    for button in at.button:
        if button.key not in LEAVE:
            button.click()
            run(at)
            return True
    return False


MESSAGE = "Something scary, please."  # what the walk says in a live chat


def _chat(at: AppTest, seen: list[str]) -> None:
    """A live chat screen: one message sent (the system's answer read), the answer rated, the chat ended."""
    box = next(c for c in at.get("chat_input") if c.key.startswith("live-input-") and not c.proto.disabled)
    slot = box.key.rsplit("-", 1)[-1]
    box.set_value(MESSAGE)
    run(at)
    seen += visible(at)
    for rating in at.segmented_control:
        if rating.key.startswith("live-rate-"):
            rating.set_value("Yes")
            run(at)
            seen += visible(at)
    at.button(key=f"live-satisfied-{slot}").click()
    run(at)


def chatting(at: AppTest) -> bool:
    """A live chat screen whose message box takes a message."""
    return any(c.key.startswith("live-input-") and not c.proto.disabled for c in at.get("chat_input"))


def walk(at: AppTest, seen: list[str], *, pages: int = 40, until=None) -> AppTest:
    """Through every page to the last one (or the first for which `until(at)` holds), each page read before, after
    an empty press, and answered; a live chat (infact/ui/steps/live.py) is chatted through: one message, its answer
    rated, the chat ended."""
    for _ in range(pages):
        if until is not None and until(at):
            return at
        seen += visible(at)
        if chatting(at):
            _chat(at, seen)
            continue
        if not _press(at):
            return at
        seen += visible(at)  # the refusal of an empty page (or already the next page)
        _answer(at)
        _press(at)
    raise AssertionError(f"no last page after {pages} pages")
