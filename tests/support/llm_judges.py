"""Stub judges with a known behaviour: they know which system wrote each response (an oracle).

`judge_rule(study, quality, mode)` answers the judge prompts of infact/results/judges/prompts.py:
`follow` rates each response at its system's planted quality (and prefers the better one),
`reverse` the opposite, `first` always prefers response A (the first shown), `garbage` never
answers with a label.
"""

from __future__ import annotations

import re
import shutil

from tests.support.paths import DEMO_STUDY

_RESPONSE = re.compile(r"A possible next chatbot response:\n(.*?)\n\n", re.S)
_PAIR = re.compile(r"Response A:\n(.*?)\n\nResponse B:\n(.*?)\n\n", re.S)


def judge_rule(study, quality: dict[str, float], mode: str = "follow"):
    author = {text: system for s in study.situations for system, text in s.responses.items()}
    labels = study.config.scale.labels
    sign = -1 if mode == "reverse" else 1

    def rule(request: dict) -> str:
        prompt = [m for m in request["messages"] if m["role"] == "user"][0]["content"]
        if mode == "garbage":
            return "I think it is rather good, maybe."
        if (m := _RESPONSE.search(prompt)) is not None:
            q = quality[author[m.group(1)]]
            q = q if sign > 0 else (len(labels) + 1 - q)
            return labels[min(len(labels), max(1, round(q))) - 1]
        a, b = _PAIR.search(prompt).groups()
        if mode == "first":
            return "A"
        return "A" if sign * (quality[author[a]] - quality[author[b]]) > 0 else "B"

    return rule


JUDGE_ENDPOINT = (
    '\n[endpoints.judge-llm]\nbase_url = "{url}"\nmodel = "stub-judge"\nmax_concurrency = 4\nmax_retries = 0\n'
)


def judge_study(tmp_path, url: str, judge: str):
    """The demo study with a `[judges.j]` table on endpoint `judge-llm` at `url`; `judge`: its extra lines."""
    from infact.study.loader import load_study

    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    toml = folder / "study.toml"
    extra = JUDGE_ENDPOINT.format(url=url) + '\n[judges.j]\nendpoint = "judge-llm"\n' + judge
    toml.write_text(toml.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return load_study(folder)
