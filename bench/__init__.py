"""Benchmarks of the multi-site platform: `python -m bench` (or `make bench`).

Every benchmark is a ratio against a baseline measured in the same run, on a
database of its own ("dating_bench") that is dropped and recreated at the start.
See docs/bench.md.

Nothing here imports Django at import time: `bench.loadgen` runs in a process of
its own without it.
"""
