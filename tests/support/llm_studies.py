"""Studies whose systems are OpenAI-compatible endpoints served by simulations/openai_stub.py.

`demo_rule` makes the stub answer as INFACT's built-in demo systems: the system prompt names
one of infact.chat.demo_systems' functions, and the chat messages are turned back into the
chat contract for it. So endpoint systems keep the demo's clearly different qualities.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from infact.chat import demo_systems

REPO = Path(__file__).resolve().parents[2]
DEMO_LIVE = REPO / "data" / "demo-live"
KEY_ENV = "INFACT_TEST_LLM_KEY"


def demo_rule(request: dict) -> str:
    messages = request.get("messages", [])
    system = next((m["content"] for m in messages if m["role"] == "system"), "genre_recommender")
    turns = [{"role": m["role"], "text": m["content"]} for m in messages if m["role"] != "system"]
    func = getattr(demo_systems, system.split()[0], demo_systems.genre_recommender)
    return func({"study_id": "stub", "conversation_id": "c", "turn": len(turns), "messages": turns})["text"]


def endpoint_live_study(
    folder: Path, base_url: str, *, key_env: str | None = KEY_ENV, max_concurrency: int = 8, timeout_s: float = 10
) -> Path:
    """data/demo-live with every system an endpoint system on `base_url` (the system prompt picks its demo)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO_LIVE / "situations.jsonl", folder / "situations.jsonl")
    text = (DEMO_LIVE / "study.toml").read_text(encoding="utf-8")
    text = re.sub(
        r'callable = "infact\.chat\.demo_systems:(\w+)"',
        lambda m: (
            f'endpoint = "stub"\nsystem_prompt = "{m.group(1)} (you recommend movies)"\n'
            f"temperature = 0.2\ntimeout_s = {timeout_s}"
        ),
        text,
    )
    key = f'api_key_env = "{key_env}"\n' if key_env else ""
    text += (
        f'\n[endpoints.stub]\nbase_url = "{base_url}"\nmodel = "stub-model"\n{key}'
        f"max_concurrency = {max_concurrency}\ntimeout_s = {timeout_s}\n"
    )
    (folder / "study.toml").write_text(text, encoding="utf-8")
    return folder


PERSONA = "You are Sam, 34, a nurse. You love slow, creepy horror films and hate gore. You have seen The Conjuring."


def simulated_user_rule(request: dict) -> str:
    """Systems answer as the demo systems; the simulated user answers the pages (infact/llm/simulated.py) with
    the first label (the attention check's as told), chats twice, then is satisfied, agrees, votes A."""
    from tests.support.simulated_pages import is_page, planted_page_rule

    messages = request["messages"]
    if not messages[0]["content"].startswith("You are taking part in a study"):
        return demo_rule(request)
    if is_page(request):  # a rated situation or the questionnaire: the check's label, else the first label
        return planted_page_rule()(request)
    last = messages[-1]["content"]
    if "How much do you agree" in last or "one of these only" in last and "Agree" in last:
        return "Agree"
    if "Which chatbot helped you better?" in last:
        return "A"
    said = sum(1 for m in messages if m["role"] == "assistant")
    return "[SATISFIED]" if said >= 2 else "Something creepy but not gory, please."
