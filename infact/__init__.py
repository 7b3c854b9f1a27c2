"""INFACT: crowdsourced human evaluation of conversational recommender systems."""

__version__ = "0.1.0"
