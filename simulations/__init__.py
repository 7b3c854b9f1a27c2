"""Simulators that the tests and the benchmarks share, outside the product (`infact/` never imports them) and
outside tests/ (so `bench/` imports no test module):

- ratings, ordinal, votes, schedule: simulated studies with known truth (planted strengths, ratings and arrivals)
- openai_stub: a stub OpenAI-compatible server (`python -m simulations.openai_stub`), for judges and live chats
- chat_stub: chat-contract systems that misbehave on purpose (slow, erroring, malformed, leaking, trickling;
  `python -m simulations.chat_stub`), for the live chats
- prolific_stub: Prolific's API in memory, with the faults real servers have (`python -m simulations.prolific_stub`),
  for the Prolific commands, their tests and scripts/prolific_demo.py
- study_folders: study folders written from settings (`make_study`) or copied from a demo (`copy_study`)
- browser: the app in Chromium through Playwright (`start_server`, `wait_idle`, `consent`, `rate_all`, ...)
- deployment, st_client, ws_participants: nginx in front of Streamlit replicas on one PostgreSQL, and participants
  who take a study over Streamlit's websocket
"""
