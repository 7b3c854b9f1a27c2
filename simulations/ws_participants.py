"""Participants who take a ratings study over Streamlit's websocket (simulations/st_client.py).

`take_part` consents, then on every step sets the widget values an attentive participant gives —
a rating on every scale, the instructed rating on the attention check, the last option of the
questionnaire (its check asks for it), the first of each demographic — and presses the step's
submit button, until the completion code is shown. A step is *acknowledged* when the next screen
is another step: that is what a person sees as "saved". When the connection drops (a replica
killed), the participant reconnects (a new tab on the same URL, cookies kept: a load balancer
sends it to a live replica) and goes on from the step the app shows, by the token in the URL.
"""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from websockets.exceptions import WebSocketException

from simulations.st_client import Screen, StreamlitClient

RATING = "Somewhat meaningful"
INSTRUCTED = re.compile(r'give a rating of "([^"]+)"')
DONE = "Your completion code is"
RECONNECTS = 20  # per participant: each is a new websocket after a refused or dropped one


@dataclass
class Outcome:
    token: str | None = None
    completed: bool = False
    acknowledged: list[str] = field(default_factory=list)  # step names, in order
    latencies: list[float] = field(default_factory=list)  # seconds from submit to the next step drawn
    presses: Counter = field(default_factory=Counter)  # submit presses per step name (> 1: asked to press again)
    reconnects: int = 0
    error: str | None = None


def submit_key(screen: Screen) -> str | None:
    keys = [k for k, w in screen.widgets.items() if w.kind == "button" and k.startswith(("submit-", "consent_submit"))]
    return keys[0] if keys else None


def step_name(key: str) -> str:
    return "consent" if key == "consent_submit" else key.removeprefix("submit-")


def answers(screen: Screen) -> dict[str, object]:
    """What an attentive participant sets on this screen."""
    values: dict[str, object] = {}
    for key, widget in screen.widgets.items():
        if widget.kind == "checkbox" and key == "consent":
            values[key] = True
        elif widget.kind == "radio" and key.startswith("situation-"):
            asked = INSTRUCTED.search(html.unescape(widget.context))
            values[key] = asked[1] if asked and asked[1] in widget.options else RATING
        elif widget.kind == "radio" and key.startswith("q-"):
            values[key] = widget.options[-1]
        elif widget.kind == "radio":
            values[key] = widget.options[0]
    return values


def dropped(exc: BaseException) -> bool:
    """A connection refused, closed or timed out (a replica gone), not a wrong page."""
    return isinstance(exc, (OSError, EOFError, TimeoutError, asyncio.TimeoutError, WebSocketException))


async def take_part(base_url: str, *, pause: float = 0.0, on_step=None) -> Outcome:
    """One participant from the consent page to the completion code; `on_step(outcome)` after each step.
    Never raises: what went wrong is in `Outcome.error` (and `completed` stays False)."""
    out = Outcome()
    cookies: dict[str, str] = {}
    client: StreamlitClient | None = None
    try:
        while not out.completed:
            try:
                if client is None:
                    client = StreamlitClient(base_url, cookies=cookies)
                    await client.open(f"p={out.token}" if out.token else "")
                await _step(client, out, pause, on_step)
            except Exception as exc:
                if not dropped(exc) or out.reconnects >= RECONNECTS:
                    raise
                out.reconnects += 1
                out.error = f"{type(exc).__name__}: {exc}"
                cookies = client.cookies if client is not None else cookies
                if client is not None:
                    await _quietly(client.close())
                client = None
                await asyncio.sleep(min(2.0, 0.2 * out.reconnects))
        out.error = None
    except Exception as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    finally:
        if client is not None:
            await _quietly(client.close())
    return out


async def _step(client: StreamlitClient, out: Outcome, pause: float, on_step) -> None:
    screen = client.screen
    if screen.has(DONE):
        out.completed = True
        return
    key = submit_key(screen)
    if key is None:
        raise AssertionError(f"no submit button on the screen: {screen.text()[-600:]}")
    if pause:
        await asyncio.sleep(pause)
    started = time.perf_counter()
    out.presses[step_name(key)] += 1
    screen = await client.rerun(answers(screen), press=key)
    out.latencies.append(time.perf_counter() - started)
    out.token = out.token or client.token
    if submit_key(screen) != key:  # the next step is drawn: this one is saved
        out.acknowledged.append(step_name(key))
        if on_step is not None:
            on_step(out)


async def _quietly(awaitable) -> None:
    try:
        await awaitable
    except Exception:  # closing a connection that is already gone
        pass


async def crowd(base_url: str, n: int, at_once: int, **kwargs) -> list[Outcome]:
    """`n` participants, at most `at_once` of them on the study at any moment."""
    gate = asyncio.Semaphore(at_once)

    async def one() -> Outcome:
        async with gate:
            return await take_part(base_url, **kwargs)

    return await asyncio.gather(*(one() for _ in range(n)))
