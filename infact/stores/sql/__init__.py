"""SQL stores (PostgreSQL, SQLite): the store, its hot path, summaries, URLs and errors."""
