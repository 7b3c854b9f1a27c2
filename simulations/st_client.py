"""A participant without a browser: Streamlit's own websocket protocol, spoken from Python.

The app's pages are driven as the browser drives them, over `/_stcore/stream`, so many
participants fit on a machine where many Chromiums do not (tests/test_nginx_replicas.py,
bench/replicas.py put nginx and several replicas in between). The messages are Streamlit's
protobufs (`streamlit.proto`): the client sends a `BackMsg` *rerun_script* with the page's query
string and the widget values set on screen (a button press is a trigger value), and collects
the `ForwardMsg` deltas of the run that follows, up to its `script_finished` (a run that ends
early for a `st.rerun()` is followed by the next one, as in a browser). What a person sees is
left to the real-browser tests (tests/e2e): no JavaScript runs here, so cookies the page sets
from a script are never set — like a browser that refuses them.

Like a browser, `open` first GETs the page (a load balancer's sticky cookie comes with it) and
sends the cookies with the websocket handshake; `page_info_changed` updates the query string
(the participant token `?p=…`), which a reconnect sends again.
"""

from __future__ import annotations

import asyncio
import re
import urllib.request
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

# Streamlit's element ids: "$$ID-<hash>-<key>" when the widget has a key.
KEYED_ID = re.compile(r"^\$\$ID-[0-9a-f]+-(?P<key>.+)$")
TEXT_TYPES = ("markdown", "html", "alert", "heading", "text", "exception", "metric", "code")
WIDGET_TYPES = ("radio", "checkbox", "button", "text_area", "text_input")
RUN_TIMEOUT_S = 120.0  # one script run, generous for a loaded 2-core machine


@dataclass
class Widget:
    kind: str  # radio, checkbox, button, text_area, text_input
    id: str
    key: str  # the widget's Streamlit key ("" when it has none)
    label: str
    options: tuple[str, ...] = ()
    context: str = ""  # the text drawn just before it (a radio's response card)


@dataclass
class Screen:
    """What one script run drew: its texts in page order and its keyed widgets."""

    texts: list[str] = field(default_factory=list)
    widgets: dict[str, Widget] = field(default_factory=dict)  # by key

    def has(self, text: str) -> bool:
        return any(text in t for t in self.texts)

    def text(self) -> str:
        return "\n".join(self.texts)

    def keys(self, prefix: str = "") -> list[str]:
        return [k for k in self.widgets if k.startswith(prefix)]


def _element_text(element) -> str:
    kind = element.WhichOneof("type")
    part = getattr(element, kind)
    if kind == "metric":
        return f"{part.label}: {part.body}"
    if kind == "exception":
        return f"EXCEPTION {part.type}: {part.message}"
    return getattr(part, "body", "")


def _widget(element, context: str) -> Widget | None:
    kind = element.WhichOneof("type")
    if kind not in WIDGET_TYPES:
        return None
    part = getattr(element, kind)
    match = KEYED_ID.match(part.id)
    options = tuple(part.options) if kind == "radio" else ()
    return Widget(kind, part.id, match["key"] if match else "", part.label, options, context)


class StreamlitClient:
    """One browser tab: a websocket session on `base_url` (http://host:port, no trailing slash)."""

    def __init__(
        self,
        base_url: str,
        *,
        cookies: dict[str, str] | None = None,
        headers: dict[str, str] | list[tuple[str, str]] | None = None,
    ):
        """`headers`: a dict, or (name, value) pairs to send a header more than once (on the websocket; the page
        load sends the last value of each)."""
        self.base_url = base_url.rstrip("/")
        self.cookies: dict[str, str] = dict(cookies or {})
        self.header_pairs = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
        self.headers = dict(self.header_pairs)
        self.query_string = ""
        self.page_name = ""
        self.page_script_hash = ""
        self.screen = Screen()
        self._ws = None

    async def open(self, query_string: str = "", page_name: str = "") -> Screen:
        """Load the page (cookies included) and run it once: what a browser tab does on opening the URL."""
        self.query_string, self.page_name, self.page_script_hash = query_string, page_name, ""
        await asyncio.to_thread(self._load_page)
        ws_url = "ws" + self.base_url.removeprefix("http") + "/_stcore/stream"
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers = [*self.header_pairs, *([("Cookie", cookie)] if cookie else [])]
        self._ws = await connect(
            ws_url, subprotocols=["streamlit"], additional_headers=headers, max_size=None, open_timeout=30
        )
        return await self.rerun()

    def _load_page(self) -> None:
        path = f"/{self.page_name}" if self.page_name else "/"
        url = self.base_url + path + (f"?{self.query_string}" if self.query_string else "")
        request = urllib.request.Request(url, headers=self.headers)
        if self.cookies:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value

    async def rerun(self, values: dict[str, object] | None = None, press: str | None = None) -> Screen:
        """Set widget values (by key: an option label, a bool or a text) and press the button `press`,
        as one rerun; returns the screen that run drew. Values of widgets not named are left unset."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query_string
        state.page_name = self.page_name
        state.page_script_hash = self.page_script_hash
        for key, value in (values or {}).items():
            state.widget_states.widgets.append(self._state(self.screen.widgets[key], value))
        if press is not None:
            ws = WidgetState(id=self.screen.widgets[press].id, trigger_value=True)
            state.widget_states.widgets.append(ws)
        await self._ws.send(msg.SerializeToString())
        self.screen = await asyncio.wait_for(self._collect(), RUN_TIMEOUT_S)
        return self.screen

    @staticmethod
    def _state(widget: Widget, value: object) -> WidgetState:
        ws = WidgetState(id=widget.id)
        if widget.kind == "checkbox":
            ws.bool_value = bool(value)
        elif widget.kind == "radio":
            if value not in widget.options:
                raise ValueError(f"{value!r} is not an option of {widget.key}: {widget.options}")
            ws.string_value = str(value)
        else:
            ws.string_value = str(value)
        return ws

    async def _collect(self) -> Screen:
        """Read messages until a script run (not a fragment's) finishes; each new run starts afresh."""
        elements: dict[tuple[int, ...], object] = {}
        started = False
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await self._ws.recv())
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                started, elements = True, {}
            elif kind == "navigation":  # st.navigation's page: sent back on the next rerun, as a browser does
                self.page_script_hash = msg.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query_string = msg.page_info_changed.query_string
            elif kind == "delta" and started and msg.delta.WhichOneof("type") == "new_element":
                elements[tuple(msg.metadata.delta_path)] = msg.delta.new_element
            elif kind == "script_finished" and started:
                # FINISHED_EARLY_FOR_RERUN: st.rerun(), the next run's new_session follows; a fragment's
                # own run (a live part) changes nothing here.
                if msg.script_finished in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR):
                    return self._screen(elements)

    @staticmethod
    def _screen(elements: dict) -> Screen:
        screen, context = Screen(), ""
        for path in sorted(elements):
            element = elements[path]
            kind = element.WhichOneof("type")
            if kind in TEXT_TYPES:
                context = _element_text(element)
                screen.texts.append(context)
            widget = _widget(element, context)
            if widget is not None:
                screen.widgets[widget.key or widget.id] = widget
                screen.texts.append(widget.label)
        return screen

    @property
    def token(self) -> str | None:
        match = re.search(r"(?:^|&)p=([^&]+)", self.query_string)
        return match[1] if match else None

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
            self._ws = None
