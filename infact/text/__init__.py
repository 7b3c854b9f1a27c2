"""Foundations: text features of dialogs and responses (item names, safe HTML, style covariates)."""
