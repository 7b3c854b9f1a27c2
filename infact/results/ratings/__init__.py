"""Rating analysis: statistics that respect the study's design, and sample-size planning.

May import foundations (`infact.stats`), `infact.study` and `results.tables`/`results.quality`.
"""
