"""Simulated studies with known truth, for tests and benchmarks."""
