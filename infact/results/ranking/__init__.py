"""Preferences and ranking: pairwise votes, best-worst choices and ratings read as preferences.

Builds on `infact.stats` (the models); may import foundations, `infact.study`, `results.tables`, `results.ratings`.
"""
