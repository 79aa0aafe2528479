"""pools: the records and artifacts of the pipeline, and what reads, checks and measures them.

Typed records (records) and the artifact models the schemas are generated from (artifacts, schema_gen); schema-checked
JSONL and JSON I/O, written atomically (jsonl, schemas); stable ids (ids), pool manifests (manifest), pool versions
at a git revision or DVC experiment (versions) and their diff (diff); per-item journals (journal) and timing (timing);
seeded task selection (select); metrics (metrics, probe_metrics), statistics (stats) and paired comparisons (compare).

At the bottom of the layering beside household/: imports nothing from household/, planner/ or flows/.
"""
