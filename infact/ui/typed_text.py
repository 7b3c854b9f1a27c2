"""The page script that watches typed fields (issue 41, item 3): paste and drop events and how many characters they
brought, keystrokes, and the time from the first to the last change of each field; never what was typed.

One invisible `st.components.v2` component per scope (a step's form, or the live chat outside any form) runs in
the page itself (not an iframe) and listens on the document for events in the fields whose widget key starts with
one of `WATCHED` (Streamlit marks a keyed widget's container with the class `st-key-<key>`). It reports
`{"metrics": {widget key: counts}}` as its state:

- inside an `st.form` on every change: a form keeps it until submitted, so the submit carries the counts of the
  text it submits, and nothing reruns while the participant types;
- for `st.chat_input` (no form) once, when the message is sent (Enter or the send button), just before the chat
  input's own message; the field's counts then start again for the next message. Each report has a `seq`
  number: a report already used for one message is never stored with another (`take`).

With `block` the script cancels paste and drop in those fields (and counts the attempts). A page without the
script (AppTest, a bot) reports nothing: the answer is stored with `typing` null, never with made-up counts.
"""

from __future__ import annotations

import logging

import streamlit as st

from infact.text import typed
from infact.text.catalogue import _

log = logging.getLogger(__name__)

WATCHED = (
    "live-input-",
    "live-vote-reason",
    "*-why",
    "q-comment",
)  # the typed fields' widget keys: prefixes, *suffixes
NAME = "infact_typed_text"
KEY = "infact-typed"  # the components' keys start with it (display.CSS hides their containers)

_JS = r"""
export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const w = window, doc = document;
  const T = w.__infactTyped || (w.__infactTyped = { fields: {}, senders: [], watch: [], block: false });
  const form = parentElement && parentElement.closest ? parentElement.closest('[data-testid="stForm"]') : null;
  const scope = (data && data.scope) || "";
  T.senders = T.senders.filter((s) => s.host.isConnected && s.host !== parentElement && s.form !== form);
  T.senders.push({ host: parentElement, form: form, scope: scope, send: setStateValue, metrics: {} });
  T.watch = (data && data.watch) || [];
  T.block = !!(data && data.block);
  if (T.installed) return;
  T.installed = true;
  const keyOf = (el) => {
    if (!el || (el.tagName !== "TEXTAREA" && el.tagName !== "INPUT") || !el.closest) return null;
    const box = el.closest('[class*="st-key-"]');
    if (!box) return null;
    const cls = Array.from(box.classList).find((c) => c.startsWith("st-key-"));
    const key = cls ? cls.slice(7) : null;
    const hit = (p) => (p.startsWith("*") ? key.endsWith(p.slice(1)) : key.startsWith(p));
    return key && T.watch.some(hit) ? key : null;
  };
  const field = (el) => {
    const key = keyOf(el);
    if (!key) return null;
    const f = el.closest('[data-testid="stForm"]');
    T.senders = T.senders.filter((s) => s.host.isConnected);
    const s = T.senders.find((x) => x.form === f);
    if (!s) return null;
    const id = s.scope + "|" + key;
    const fresh = { pasted: 0, pastes: 0, blocked: 0, keys: 0, first: 0, last: 0, seq: 0 };
    const st = T.fields[id] || (T.fields[id] = fresh);
    return { key: key, s: s, st: st, el: el, inForm: f !== null };
  };
  const touch = (x) => { const now = Date.now(); if (!x.st.first) x.st.first = now; x.st.last = now; };
  const snapshot = (x) => ({
    chars: (x.el.value || "").length, pasted_chars: x.st.pasted, paste_events: x.st.pastes,
    blocked_pastes: x.st.blocked, keystrokes: x.st.keys,
    typing_ms: x.st.first ? x.st.last - x.st.first : 0, seq: x.st.seq,
  });
  const report = (x) => {
    x.s.metrics = Object.assign({}, x.s.metrics, { [x.key]: snapshot(x) });
    x.s.send("metrics", x.s.metrics);
  };
  const sent = (x) => {
    if (!(x.el.value || "").trim()) return;
    x.st.seq += 1;
    report(x);
    Object.assign(x.st, { pasted: 0, pastes: 0, blocked: 0, keys: 0, first: 0, last: 0 });
  };
  const pasted = (e, text) => {
    const x = field(e.target);
    if (!x) return;
    if (T.block) { e.preventDefault(); x.st.blocked += 1; }
    else { x.st.pasted += text.length; x.st.pastes += 1; touch(x); }
    if (x.inForm) report(x);
  };
  const MODIFIERS = ["Shift", "Control", "Alt", "Meta", "CapsLock", "Tab"];
  doc.addEventListener("keydown", (e) => {
    const x = field(e.target);
    if (!x || MODIFIERS.includes(e.key) || e.ctrlKey || e.metaKey) return;
    if (!x.inForm && e.key === "Enter" && !e.shiftKey && !e.isComposing) { sent(x); return; }
    x.st.keys += 1; touch(x);
    if (x.inForm) report(x);
  }, true);
  doc.addEventListener("input", (e) => {
    const x = field(e.target);
    if (!x) return;
    touch(x);
    if (x.inForm) report(x);
  }, true);
  doc.addEventListener("paste", (e) => pasted(e, (e.clipboardData && e.clipboardData.getData("text")) || ""), true);
  doc.addEventListener("drop", (e) => pasted(e, (e.dataTransfer && e.dataTransfer.getData("text")) || ""), true);
  doc.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest('[data-testid="stChatInputSubmitButton"]');
    const box = button && button.closest('[data-testid="stChatInput"]');
    const x = box && field(box.querySelector("textarea"));
    if (x) sent(x);
  }, true);
}
"""


@st.cache_resource(show_spinner=False)
def _component():
    """The component, or None on a Streamlit without `st.components.v2` (before 1.51): answers are then stored
    with `typing` null, and the page works as before."""
    try:
        from streamlit.components.v2 import component
    except ImportError:
        log.warning("INFACT: this Streamlit has no st.components.v2: typed text is not measured (Streamlit >= 1.51)")
        return None
    return component(NAME, js=_JS, isolate_styles=False)


def watch(scope: str, *, block_paste: bool = False) -> dict[str, dict]:
    """Watch this page's typed fields (call it inside the form whose fields it watches, or outside any form for
    the chat input): {widget key: the page's last report}. `scope` (the step, the chat) starts the counts anew."""
    mount = _component()
    if mount is None:
        return {}
    result = mount(
        key=f"{KEY}-{scope}",
        data={"scope": scope, "watch": list(WATCHED), "block": bool(block_paste)},
        default={"metrics": {}},
        on_metrics_change=lambda: None,
    )
    got = result.get("metrics") if hasattr(result, "get") else getattr(result, "metrics", None)
    return dict(got) if isinstance(got, dict) else {}


def take(reports: dict[str, dict], key: str, text: str) -> dict | None:
    """The stored `typing` of the text just sent from field `key` (a chat message): the page's report for it,
    once. A report whose `seq` was already used (the page's report for this message did not arrive) gives None."""
    raw = reports.get(key)
    if not isinstance(raw, dict):
        return None
    used = st.session_state.setdefault("infact_typed_used", set())
    mark = (key, raw.get("seq"))
    if mark in used:
        return None
    used.add(mark)
    return typed.metrics(raw, text)


def note(block_paste: bool, no_ai: str) -> None:
    """The sentence above a typed field: the study's request not to use AI tools, and that pasting is off."""
    words = " ".join(_(x) for x in (no_ai, typed.PASTE_BLOCKED if block_paste else "") if x)
    if words:
        st.caption(words)
