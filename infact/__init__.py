"""INFACT: crowdsourced human evaluation of conversational recommender systems.

The package is built in layers (tests/test_layers.py holds the order; each part may import only what is
listed before it): foundations (errors, values, fileio, text, stats) -> study (settings schemas and loading,
deployment settings) -> stores (backends, then the `storage` facade) -> the run (scheduling, llm, chat,
participation.steps, state, participation, access) -> results and importers -> ui, cli, pages.
"""

__version__ = "0.1.0"
