"""Advice on a study that loads and runs but may not do what the researcher means: warnings, not errors
(texts: a participant text that speaks of another protocol's task). `infact validate` prints them.

Part of the study layer: imports only the foundations and infact.study's modules (which never import it).
"""
