"""Researcher access: password check (`auth`), sign-in throttle (`throttle`), the signed session (`session`).

Part of the run layer; may import foundations, `infact.study`/`infact.deployment` and the stores.
"""
