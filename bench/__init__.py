"""Benchmarks of the engine (issue 6): `python -m bench` prints the table and writes JSON."""
