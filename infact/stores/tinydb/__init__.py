"""The embedded TinyDB store: per-participant shard files, their summaries, the change journal and chat log.

May import foundations and the shared store modules (`infact.stores.records`, `summary`, `group_commit`).
"""
