"""Tables and exports: stored records to tidy tables, the export files and derived formats.

May import foundations, `infact.study`, the stores and the run (the step kinds declare their tables).
"""
