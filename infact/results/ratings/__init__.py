"""Rating analysis: statistics that respect the study's design, and sample-size planning.

May import foundations (`infact.stats`), `infact.study` and `results.tables` (the quality checks sit above
the kinds registry, which registers this analysis: tests/test_layers.py).
"""
