"""pools: the records and artifacts of the pipeline, and what reads, checks and measures them.

Here, the records and their I/O: the records as pydantic models (records) and the other artifacts' models, both the
source of the schemas (artifacts, schema_gen); checked JSONL and JSON I/O, written atomically (jsonl, schemas); stable
ids (ids), pool manifests (manifest), pool versions at a git revision or DVC experiment (versions) and their diff (diff); the
exported dataset and its card (dataset, card); per-item journals (journal) and timing (timing); seeded task
selection (select). In pools/analysis/, what is computed from records: metrics, statistics, paired comparisons and
the probe's figures.

At the bottom of the layering beside household/: imports nothing from household/, planner/ or flows/.
"""
