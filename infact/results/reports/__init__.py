"""Reports: Markdown/HTML reports of an analysis, and the Altair charts they and the dashboard show.

May import foundations, `infact.study` and the other results packages; never `ui`, `cli` or pages.
"""
