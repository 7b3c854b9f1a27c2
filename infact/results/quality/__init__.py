"""Quality: one function per flag, which participants the analysis keeps, and the participant funnel.

May import foundations, `infact.study`, the stores and the run; never `ui`, `cli` or pages.
"""
