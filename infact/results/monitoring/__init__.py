"""Watching a study as it runs: anytime-valid "settled" (`sequences`) and the declared stopping rule (`stopping`).

Imports only the foundations (infact.stats.confseq, infact.stats.horizon): the ranking, ratings and analyze modules
above build on it.
"""
