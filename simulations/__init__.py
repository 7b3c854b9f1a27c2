"""Simulators that the tests and the benchmarks share, outside the product (`infact/` never imports them) and
outside tests/ (so `bench/` imports no test module):

- ratings, votes, schedule: simulated studies with known truth (planted strengths, ratings and arrivals)
- openai_stub: a stub OpenAI-compatible server (`python -m simulations.openai_stub`), for judges and live chats
"""
