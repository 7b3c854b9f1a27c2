"""Live chats analysed: per-system statistics from transcripts, and the live overview of a store.

May import foundations, `infact.study`, the stores, `infact.chat` (transcripts) and the other results packages.
"""
