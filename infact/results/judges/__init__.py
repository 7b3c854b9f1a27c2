"""Automatic judges (an LLM, a metric) compared with the human raters before anyone trusts them.

May import foundations, `infact.study` and the other results packages below it (tables, ratings, ranking).
"""
