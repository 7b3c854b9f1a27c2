"""The live chat page under AppTest: through the situations to the chat, say something, read the chat back."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from infact.storage import TinyDBStorage
from tests.support.app import give_consent, rate, run, submit_situation
from tests.support.paths import REPO

DEMO_LIVE = REPO / "data" / "demo-live"


def through_situations(at):
    at = give_consent(at)
    while any(r.key.startswith("situation-") for r in at.radio):
        rate(at)
        at = submit_situation(at)
    return at


TURN = re.compile(
    r'class="infact-chat-turn infact-chat-(user|bot)".*?<span class="infact-text">(.*?)</span></div>', re.S
)


def chat_texts(at) -> list[tuple[str, str]]:
    """(role, escaped text) of each turn in the page's conversation block (one HTML element)."""
    chats = [h.proto.body for h in at.get("html") if 'class="infact-chat"' in h.proto.body]
    return [("user" if role == "user" else "assistant", text) for body in chats for role, text in TURN.findall(body)]


def say(at, slot: str, text: str):
    at.chat_input(key=f"live-input-{slot}").set_value(text)
    return run(at)


def live_records(db: Path, kind: str) -> list[dict]:
    return TinyDBStorage(db).records(kind=kind)


def stub_study(tmp_path, monkeypatch, url_a: str, url_b: str, timeout_s: float = 2) -> Path:
    """The live demo (its [live] section is what make_study cannot write), its systems on stub servers."""
    folder = tmp_path / "study"
    shutil.copytree(DEMO_LIVE, folder)
    path = folder / "study.toml"
    text = path.read_text(encoding="utf-8")
    for name, url in (("GenreBot", url_a), ("RetrievalBot", url_b), ("PopBot", url_b)):
        old = text[text.index(f"[live.systems.{name}]") :].split("\n\n")[0]
        text = text.replace(old, f'[live.systems.{name}]\nurl = "{url}"\ntimeout_s = {timeout_s}')
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    return tmp_path / "db"
