"""Benchmarks: measured figures with targets (each bench_*.py exits 1 on a miss), their shared helpers (floors.py,
sample.py) and the results page's generator (results.py, which writes docs/results.md and README's Results table from
the outputs kept in benchmarks/results/). Run each from the repository root as a module, `python -m benchmarks.NAME`.

May import: household, pools, llm, planner, flows, testing. No package of the project imports benchmarks; tests do.
"""
