"""The embedded TinyDB store: per-participant shard files, summaries, the chat log."""
