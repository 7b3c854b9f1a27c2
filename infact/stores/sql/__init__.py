"""SQL stores (PostgreSQL, SQLite): the store, its hot path, summaries, URLs and errors.

May import foundations, `infact.deployment` and the shared store modules (`infact.stores.records`, `summary`,
`group_commit`); SQLAlchemy and psycopg are imported only here (the `postgres` extra).
"""
