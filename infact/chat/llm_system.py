"""A system under test that is an OpenAI-compatible LLM (`[live.systems.NAME] endpoint = "…"`).

The conversation so far is sent as chat messages — the optional `system_prompt` first (never
shown to participants), then the participant's messages as `user` and the system's usable
answers as `assistant` — and the completion's text is the reply. Failures are the connector's
typed `SystemFailure`s named after the system, so the live page, the transcripts and the
identity-leak flags treat it as any HTTP system. The call's record (model, parameters, latency,
tokens, prompt hash; never the key) is kept with the answer as `extra.llm`.
"""

from __future__ import annotations

from infact.chat.contract import Reply, parse_reply
from infact.llm.client import LLMClient
from infact.study.endpoints import Sampling


def chat_messages(request: dict, system_prompt: str | None) -> list[dict]:
    head = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return head + [{"role": m["role"], "content": m["text"]} for m in request["messages"]]


class LLMSystem:
    def __init__(self, name: str, llm: LLMClient, *, system_prompt: str | None = None,
                 sampling: Sampling | None = None, timeout_s: float | None = None):
        self.name, self.llm, self.system_prompt = name, llm, system_prompt
        self.sampling, self.timeout_s = sampling or Sampling(), timeout_s

    def reply(self, request: dict) -> Reply:
        done = self.llm.complete(chat_messages(request, self.system_prompt), self.sampling, deadline_s=self.timeout_s)
        return parse_reply(self.name, {"text": done.text, "llm": done.record.to_dict()}, done.record.latency_ms or 0.0)
