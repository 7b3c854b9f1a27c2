"""Automatic judges compared with the human raters."""
