"""The OpenAI-compatible connector: one way to call an LLM, for every use (docs/llm.md).

    keys.py      the API key: read by name at call time, scrubbed from every message and log line
    limiter.py   at most `max_concurrency` calls in flight per endpoint, process-wide
    calls.py     what one call was (model, parameters, latency, tokens, prompt hash) — never the key
    limits.py    the limits every call keeps: one total time limit per attempt, one cap on the text kept
                 (MAX_TEXT), one retry rule (timeouts, dropped connections, 429/5xx)
    client.py    `LLMClient.complete(messages)`: keeps limits.py's rules, honours Retry-After; every other
                 way to fail becomes a typed `SystemFailure` (infact/errors.py)

Systems under test (infact.chat.llm_chat), generated responses, judges and simulated
participants all call through `LLMClient`; nothing here knows which use it serves.
The run layer's bottom part: may import only foundations and `infact.study` (the `[endpoints]` schema).
"""
