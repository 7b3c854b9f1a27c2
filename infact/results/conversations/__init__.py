"""Conversation annotations (the conversation protocol): annotations.csv rows as a frame, CRSArena-Eval's
aggregated JSON (tables.py), and their analysis: per aspect and system, agreement, halo, judges in the FACE
run-file shape (analysis.py). May import foundations, `infact.study`, the step kinds' column lists and
`results.ratings` (bootstrap helpers); it never imports `results.tables`, which imports it."""
