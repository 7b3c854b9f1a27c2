"""Importers: turn researchers' data files (ReDial, INFACT's original files, responses, conversations,
transcripts) into study situations.

Sits beside the results (layer 5): may import everything below, and the results' export formats; never
`ui`, `cli` or pages.
"""
