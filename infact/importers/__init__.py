"""Importers: turn researchers' data files into study situations."""
