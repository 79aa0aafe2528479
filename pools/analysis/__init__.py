"""pools.analysis: arithmetic on records, no I/O of its own. ALFRED's episode metrics over rollout records (metrics),
seeded bootstrap intervals, McNemar's test and the task-level sign-flip test (stats), paired comparisons of two
variants on the tasks both ran (compare), and the probe's figures over pick records (probe_metrics).

May import: pools (its records and ids); nothing from household/, llm/, planner/ or flows/.
"""
