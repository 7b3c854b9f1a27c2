"""Foundations: text features of dialogs and responses, defined once.

    items.py     item names (movie titles) in text: what counts as one, ReDial mentions
    display.py   dataset text -> safe HTML with the item names highlighted
    style.py     style covariates of a response (length, items recommended)
    neutral.py   invisible controls: dropped from participants' pages, shown as code points to researchers

Imports nothing from INFACT above the foundations (errors, values, fileio).
"""
