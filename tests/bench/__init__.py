"""Benchmarks, run on demand (not collected by pytest): `python -m tests.bench.<name>`."""
