"""Helpers shared by tests (stub servers, builders); no tests here."""
