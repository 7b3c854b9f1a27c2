"""Dataset text → safe HTML with item names highlighted.

Dialog text comes from datasets and system outputs: it is never trusted. Every
piece is HTML-escaped first; the only markup in the result is our own (turn
wrappers and <mark> around quoted item names), so a response containing
`<script>` or `<img onerror=…>` is shown as text, never run.

Only items are highlighted: a quoted title with a year ("Heat (1995)") or a quoted
name the importer listed in the situation's `meta.items`. Other quoted words (the
attention check's "Meaningless", a "cheeky" remark) stay plain text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable

from infact.text.catalogue import N_, _, direction
from infact.text.items import QUOTED, is_item
from infact.text.neutral import displayable

ROLE_LABELS = {"user": N_("USER"), "bot": N_("CHAT-BOT")}


# Inline styles on our own markup.
STYLE = {
    "intro": "color:#5f6368;font-size:.9rem;margin:0 0 .5rem 0",
    # overflow-wrap (inherited by every turn): a 20,000-character "word" wraps instead of running off the card.
    "dialog": "border:1px solid #d0d4dc;border-radius:.6rem;padding:.8rem 1rem;background:#fafbfc;margin-bottom:.5rem;"
    "overflow-wrap:anywhere;min-width:0",
    # logical margins: the user's turns on the reading side, mirrored right to left (RTL_CSS)
    "user": "margin-block:.35rem;margin-inline:0 15%;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45;"
    "background:#e8f0fe",
    "bot": "margin-block:.35rem;margin-inline:15% 0;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45;"
    "background:#f1f3f4",
    "next": "margin-block:.35rem;margin-inline:15% 0;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45;"
    "background:#fff;border:2px dashed #9aa0a6",
    "role_user": "font-weight:700;font-size:.8rem;letter-spacing:.03em;color:#1a56c4",
    "role_bot": "font-weight:700;font-size:.8rem;letter-spacing:.03em;color:#5f6368",
    "item": "background:#fff2b3;padding:0 .15em;border-radius:.2em;font-weight:600",
    "response": "font-size:1.05rem;margin-bottom:.2rem;overflow-wrap:anywhere;min-width:0",
    "letter": "font-weight:700;color:#5f6368;font-size:.85rem;display:block",
    "progress_text": "margin:0 0 .35rem 0;font-size:.875rem",
    "progress": "height:.5rem;border-radius:.25rem;background:#e6e9ef;overflow:hidden;margin-bottom:.75rem",
    "progress_bar": "height:100%;background:#1a56c4;border-radius:.25rem;",
    "caption": "color:#4a4f57;font-size:.875rem;margin:0 0 .75rem 0",
    "return": "display:inline-block;padding:.5rem 1rem;border-radius:.5rem;background:#1a56c4;color:#fff;"
    "font-weight:600;text-decoration:none",
}


def escape(text: str) -> str:
    """Dataset text as HTML text: escaped, and without the controls that would reorder the page (neutral.py)."""
    return html.escape(displayable(text))


def highlight_items(text: str, items: Iterable[str] = ()) -> str:
    # The controls go before the titles are found: an RLO inside a quoted title reverses it too.
    text = displayable(text)
    items = tuple(displayable(i) for i in items)
    out: list[str] = []
    pos = 0
    for m in QUOTED.finditer(text):
        if not is_item(m.group(1), items):
            continue
        out.append(html.escape(text[pos : m.start()]))
        out.append(f'<mark class="infact-item" style="{STYLE["item"]}">&quot;{html.escape(m.group(1))}&quot;</mark>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def turn_html(role: str, text: str, *, next_turn: bool = False, items: Iterable[str] = ()) -> str:
    role = role if role in ROLE_LABELS else "bot"
    label = html.escape(_(ROLE_LABELS[role]))
    box = STYLE["next"] if next_turn else STYLE[role]
    cls = f"infact-turn infact-{role}" + (" infact-next" if next_turn else "")
    body = "…?" if next_turn else highlight_items(text, items)
    return (
        f'<div class="{cls}" style="{box}"><span class="infact-role" style="{STYLE["role_" + role]}">{label}:</span> '
        f'<span class="infact-text">{body}</span></div>'
    )


def dialog_html(
    turns: Iterable[tuple[str, str]], placeholder: bool = True, intro: str | None = None, items: Iterable[str] = ()
) -> str:
    items = tuple(items)
    body = f'<p class="infact-intro" style="{STYLE["intro"]}">{escape(intro)}</p>' if intro else ""
    body += "".join(turn_html(role, text, items=items) for role, text in turns)
    if placeholder:
        body += turn_html("bot", "", next_turn=True)
    return f'<div class="infact-dialog" style="{STYLE["dialog"]}">{body}</div>'


def response_html(letter: str, text: str, items: Iterable[str] = (), *, card: bool = False) -> str:
    """One response; a `card` is framed together with the scales that follow it (see CSS)."""
    cls = "infact-response infact-card" if card else "infact-response"
    return (
        f'<div class="{cls}" style="{STYLE["response"]}"><span class="infact-letter" '
        f'style="{STYLE["letter"]}">{html.escape(_("Response {letter}").format(letter=letter))}</span>'
        f'<div class="infact-text">{highlight_items(text, items)}</div></div>'
    )


def title_html(title: str) -> str:
    """The study title as the page's heading (drawn with the stylesheet, not as its own element)."""
    return f'<h1 class="infact-title">{escape(title)}</h1>'


def progress_html(text: str, done: int, total: int) -> str:
    """ "Situation 3 of 10" and a bar: the visible line is plain text, the bar a named progressbar."""
    pct = 0 if total <= 0 else round(100 * min(max(done, 0), total) / total)
    name = html.escape(_("Progress"), quote=True)
    return (
        f'<p class="infact-progress-text" style="{STYLE["progress_text"]}">{html.escape(text)}</p>'
        f'<div class="infact-progress" role="progressbar" aria-label="{name}" aria-valuemin="0" '
        f'aria-valuemax="{total}" aria-valuenow="{done}" aria-valuetext="{html.escape(text, quote=True)}" '
        f'style="{STYLE["progress"]}"><div style="{STYLE["progress_bar"]}width:{pct}%"></div></div>'
    )


def caption_html(text: str) -> str:
    return f'<p class="infact-caption" style="{STYLE["caption"]}">{escape(text)}</p>'


# Injected as the first element of every participant page. The page layout (stylesheet,
# title, …, the step's form or controls, divider, withdraw box) is kept the same on every step on purpose: with
# other layouts, ten concurrent browsers in tests/e2e/test_concurrent_e2e.py lost the
# clicks on a just-rendered situation form in about half the runs.
FOCUS = "#1a56c4"
PHONE = "(max-width: 640px)"
_RADIOS = '[data-testid="stRadioGroup"][aria-orientation="horizontal"]'
EDGE = "rgba(49,51,63,.2)"  # Streamlit's own border colour
_CARD = '[data-testid="stElementContainer"]:has(.infact-card)'
_BW = '[class*="st-key-infact-bw-"]'  # best–worst choices (infact/ui/steps/best_worst.py)
_SCALE = f'{_CARD} ~ [data-testid="stElementContainer"]:has(> [data-testid="stRadio"])'
CSS = f"""<style>
.infact-dialog mark{{color:inherit}}
/* Dataset text wraps anywhere when a word is wider than its box (a URL, a 20,000-character token):
   cards, turns and conversations never grow past the page. Grid and flex children need min-width:0. */
.infact-text,.infact-intro,.infact-topic,.infact-title{{overflow-wrap:anywhere}}
.infact-conversation,.infact-annotated-turn,.infact-pair{{min-width:0;overflow-wrap:anywhere}}
/* Scales keep their order in one row: each option as wide as its label where the row has room
   (no "About the same" on two lines), all narrowed alike and wrapping inside their own width only
   where it has not; one column from six options on. Streamlit's default wraps in flex order: 3+2,
   2/1/1/1; equal columns wrapped short labels next to empty space. */
[data-testid="stMain"]{{overflow-anchor:none}}
{_RADIOS}{{flex-wrap:nowrap;gap:.5rem 1.25rem;align-items:flex-start}}
{_RADIOS} > div{{flex:0 1 auto;min-width:min-content}}
{_RADIOS} [data-testid="stRadioOption"] p{{overflow-wrap:normal;word-break:normal}} /* lines break between words only */
{_RADIOS} [data-testid="stRadioOption"], {_RADIOS} [data-testid="stRadioOption"] > div{{align-items:flex-start}}
{_RADIOS}:has(> div:nth-child(6)){{flex-direction:column;gap:.1rem}}
/* Best–worst: the letters are targets of at least 44 px (WCAG 2.5.5), framed, in a row that wraps. */
{_BW} {_RADIOS}{{flex-direction:row;flex-wrap:wrap;gap:.6rem}}
{_BW} [data-testid="stRadioOption"]{{min-height:44px;min-width:72px;box-sizing:border-box;padding:.35rem .9rem;
  border:1px solid {EDGE};border-radius:.5rem;align-items:center;margin:0}}
{_BW} {_RADIOS} [data-testid="stRadioOption"], {_BW} {_RADIOS} [data-testid="stRadioOption"] > div\
{{align-items:center;cursor:pointer}}
{_BW} [data-testid="stRadioOption"]:has(input:checked){{border-color:{FOCUS};background:#eef3fd}}
/* The study title, drawn in the head element: sized like st.title. */
.infact-title{{font-size:2.75rem;font-weight:700;line-height:1.2;padding:1.25rem 0 1rem;margin:0}}
/* A rated response and its scales are one card, drawn here rather than by a bordered container
   per response (each element costs every rerun): the response's top, then its scales. */
{_CARD}{{border:1px solid {EDGE};border-bottom:0;border-radius:.5rem .5rem 0 0;\
padding:calc(1rem - 1px) calc(1rem - 1px) 0}}
{_SCALE}{{border:1px solid {EDGE};border-top:0;border-bottom:0;margin-top:-1rem;padding:.5rem calc(1rem - 1px) 0}}
{_SCALE}:not(:has(+ [data-testid="stElementContainer"] > [data-testid="stRadio"]))\
{{border-bottom:1px solid {EDGE};border-radius:0 0 .5rem .5rem;padding-bottom:calc(1rem - 1px)}}
/* The completion code in the text font: a code font draws its dashes like minus signs. */
.st-key-infact-completion-code code{{font-family:"Source Sans Pro","Source Sans",sans-serif;\
font-size:1.35rem;letter-spacing:.08em}}
/* The withdraw box, set apart from the step (instead of a divider element). */
.st-key-infact-withdraw{{margin-top:1.5rem}}
[class*="st-key-infact-typed-"]{{display:none}}
.st-key-infact-withdraw::before{{content:"";display:block;border-top:1px solid {EDGE};margin-bottom:1.5rem}}
/* Keyboard focus is clearly visible on scales, boxes, buttons and links. */
[data-testid="stRadioOption"]:has(input:focus-visible),
[data-testid="stCheckbox"] label:has(input:focus-visible)\
{{outline:3px solid {FOCUS};outline-offset:2px;border-radius:.3rem}}
button:focus-visible,a:focus-visible,summary:focus-visible{{outline:3px solid {FOCUS} !important;outline-offset:2px}}
/* Captions are read, not decoration: enough contrast (axe: color-contrast). */
[data-testid="stCaptionContainer"]{{color:#4a4f57;opacity:1}}
@media {PHONE} {{
  {_RADIOS}{{flex-direction:column;gap:.1rem}}
  [data-testid="stRadioOption"] p,[data-testid="stWidgetLabel"] p,[data-testid="stCaptionContainer"] p,
  [data-testid="stCheckbox"] p,[data-testid="stMarkdownContainer"] p{{font-size:16px}}
  .infact-progress-text,.infact-caption{{font-size:16px !important}}
  .stMainBlockContainer{{padding-top:3rem}}
  h1{{font-size:1.2rem !important;line-height:1.25 !important;padding:0 0 .25rem !important}}
}}
</style>"""


# A language written right to left (Arabic): the participant page's main area is mirrored — the dialog's
# turns, the scales (flex rows follow the direction) and the buttons. The study title and dataset text
# keep their own direction inside (`unicode-bidi: plaintext`): an English dialog stays readable.
RTL_CSS = """<style>
[data-testid="stMain"],[data-testid="stMain"] .stMainBlockContainer{direction:rtl;text-align:right}
[data-testid="stMain"] .infact-text,[data-testid="stMain"] textarea,[data-testid="stMain"] input\
{unicode-bidi:plaintext}
[data-testid="stMain"] [data-testid="stRadioOption"] p,[data-testid="stMain"] [data-testid="stWidgetLabel"] p,\
[data-testid="stMain"] [data-testid="stCaptionContainer"],[data-testid="stMain"] [data-testid="stMarkdownContainer"]\
{text-align:right}
</style>"""


def page_css() -> str:
    """The participant page's stylesheet in the current language's direction (catalogue.direction)."""
    return CSS + (RTL_CSS if direction() == "rtl" else "")


def _js(value) -> str:
    """A JavaScript literal that cannot close the <script> element."""
    return json.dumps(value).replace("<", "\\u003c")


def page_script(
    step: str,
    *,
    cookie: tuple[str, str, int] | None = None,
    redirect_url: str | None = None,
    guard_ms: int = 600,
    press_ms: int = 1000,
    redirect_ms: int = 1500,
) -> str:
    """The participant page's only JavaScript, run once per step by `st.html(..., unsafe_allow_javascript=True)`.

    - A new step opens at its top: Streamlit keeps the scroll position of the element that
      scrolls (`stMain`) across reruns, so the next situation opened at its responses.
    - Until `guard_ms` after a step change has been drawn, and at least `press_ms` after the press that
      left the previous step, clicks on buttons and scale options are dropped: a late second click on
      Submit must not land on the next page, however fast the server drew it. `<html data-infact-guard>`
      marks it.
    - `cookie` (name, token, max-age seconds) remembers the participant in this browser, so Back,
      reload or the reopened bare link resume them instead of starting a second participant.
    - `redirect_url` (Prolific's completion URL) is opened in the same tab after `redirect_ms`,
      once every answer is stored; the page keeps the link as a fallback.
    """
    parts = [_keep_js(step, "__infactStep", guard_ms, press_ms)]
    if cookie is not None:
        name, value, max_age = cookie
        parts.append(f"document.cookie = {_js(f'{name}={value}; Path=/; Max-Age={int(max_age)}; SameSite=Lax')};")
    if redirect_url:
        parts.append(f"setTimeout(() => window.location.assign({_js(redirect_url)}), {int(redirect_ms)});")
    return "<script>(() => {" + "\n".join(parts) + "})();</script>"


def screen_script(screen: str, *, guard_ms: int = 600, press_ms: int = 1000) -> str:
    """A step drawn as several screens (the live step's chats, rubrics and vote, one step name to `page_script`):
    a new screen opens at its top, its clicks guarded, as a new step does. Without it the next screen kept the
    last one's scroll position: a phone opened the vote scrolled down to where the rubric's Continue had been.
    Drawn with each screen (its first one is already kept at the top by the step's own script)."""
    return "<script>(() => {" + _keep_js(screen, "__infactScreen", guard_ms, press_ms) + "})();</script>"


def _keep_js(key: str, seen: str, guard_ms: int, press_ms: int) -> str:
    """_STEP_JS for `key`, the last key drawn kept in `window[seen]`."""
    js = _STEP_JS.replace("GUARD_MS", str(int(guard_ms))).replace("PRESS_MS", str(int(press_ms)))
    return f"const step = {_js(key)};" + js.replace("__infactStep", seen)


def return_link_html(url: str, label: str) -> str:
    """A link that leaves in the same tab (st.link_button opens a new one)."""
    return (
        f'<a class="infact-return" href="{html.escape(url, quote=True)}" target="_self" '
        f'style="{STYLE["return"]}">{html.escape(label)}</a>'
    )


def forget_script(name: str) -> str:
    """Drop the remembered participant (an explicit "start as a new participant")."""
    return f"<script>document.cookie = {_js(f'{name}=; Path=/; Max-Age=0; SameSite=Lax')};</script>"


_STEP_JS = """
const w = window, doc = document, root = doc.documentElement;
if (w.__infactStep !== step) {
  const changed = w.__infactStep !== undefined;
  w.__infactStep = step;
  // Keep the top until this run has drawn the page: elements arrive one by one and the old
  // ones would otherwise hold the scroll position. A participant's own scrolling, key or press
  // wins: a press on a button they scrolled to must not land on what the top of the page holds.
  // The root's data-infact-top attribute marks the keeping (no angle brackets in this script:
  // the HTML sanitizer drops a script whose text holds a tag).
  const main = doc.querySelector('[data-testid="stMain"]');
  const app = doc.querySelector('[data-testid="stApp"]');
  const top = () => { if (main) main.scrollTop = 0; if (doc.scrollingElement) doc.scrollingElement.scrollTop = 0; };
  let moved = false;
  const stop = () => { moved = true; };
  for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) {
    w.addEventListener(type, stop, {once: true, passive: true});
  }
  const t0 = Date.now(), mine = {};
  w.__infactKeeper = mine;
  root.dataset.infactTop = "keep";
  const keep = () => {
    const running = app && app.getAttribute("data-test-script-state") === "running";
    if (moved || (!running && Date.now() - t0 >= 400) || Date.now() - t0 >= 5000) {
      if (w.__infactKeeper === mine) delete root.dataset.infactTop;
      return;
    }
    top();
    requestAnimationFrame(keep);
  };
  keep();
  if (changed) {
    // The guard lasts until GUARD_MS after this run has drawn the page (at most 10 s): on a busy
    // server drawing the next page can take longer than the guard, which then ended unseen. And
    // until PRESS_MS after the press that left the last step: a fast server draws the next page
    // so soon that a double click's second half would come after GUARD_MS.
    root.dataset.infactGuard = "on";
    const pressed = (w.__infactPressedAt || 0) + PRESS_MS;
    w.__infactGuardUntil = Math.max(Date.now() + GUARD_MS, pressed);
    const hold = () => {
      const running = app && app.getAttribute("data-test-script-state") === "running";
      if (running && Date.now() - t0 < 10000) w.__infactGuardUntil = Math.max(Date.now() + GUARD_MS, pressed);
      if (Date.now() < w.__infactGuardUntil) setTimeout(hold, 50);
      else delete root.dataset.infactGuard;
    };
    hold();
  }
}
if (!w.__infactGuarded) {
  w.__infactGuarded = true;
  doc.addEventListener("click", (e) => {
    if (Date.now() < (w.__infactGuardUntil || 0) && e.target.closest("button, label, input")) {
      e.preventDefault(); e.stopPropagation();
    } else if (e.target.closest("button")) {
      w.__infactPressedAt = Date.now();
    }
  }, true);
}
"""
