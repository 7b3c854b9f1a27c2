"""Preferences and ranking: pairwise, best-worst and ratings read as preferences."""
