"""Crowd label models (Dawid–Skene, MACE) over the ratings, through the optional crowd-kit (extra `crowd`).

May import foundations, `infact.study` and the results packages below it (tables, ratings).
"""
