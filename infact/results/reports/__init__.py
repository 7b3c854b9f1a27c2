"""Reports: Markdown/HTML reports of an analysis (each kind's, analyses.py), and the Altair charts they and the
dashboard show.

May import foundations, `infact.study` and the results packages below it (tables, quality, ratings, ranking,
judges, crowd, conversations): it sits below the kinds that name their reports (tests/test_layers.py), so never
the kinds, the export, live, study_results or analyze; never `ui`, `cli` or pages.
"""
