"""Which pairs of systems are compared next (`balanced` or `adaptive`), for pairwise studies and the arena.

Part of the run layer, below chat and participation which both use it; may import foundations
(`infact.stats` for the adaptive scheduler's intervals), `infact.study` and the stores.
"""
