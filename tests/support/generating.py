"""A copy of the demo study with one more system for `infact generate` to answer, on an endpoint `llm`."""

from __future__ import annotations

import shutil

from tests.support.paths import DEMO_STUDY

ENDPOINT = '\n[endpoints.llm]\nbase_url = "{url}"\nmodel = "stub-model"\nmax_concurrency = 4\nmax_retries = 0\n'


def study_with(tmp_path, url: str, system: str = "Llama", extra: str = ""):
    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8")
    if system not in ("CineMate", "FlickBot", "ReelTalk"):
        text = text.replace(
            'systems = ["CineMate", "FlickBot", "ReelTalk"]',
            f'systems = ["CineMate", "FlickBot", "ReelTalk", "{system}"]',
        )
    toml.write_text(text + ENDPOINT.format(url=url) + extra, encoding="utf-8")
    return folder


def rule(request: dict) -> str:
    last = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
    return f"LLM answer to: {last[:40]}"
