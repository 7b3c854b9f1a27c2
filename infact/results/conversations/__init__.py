"""Conversation annotations (the conversation protocol): annotations.csv, CRSArena-Eval's aggregated JSON,
and their analysis (per aspect and system, agreement, halo, judges in the FACE run-file shape)."""
