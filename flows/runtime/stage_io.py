"""A stage's files: the pipeline's data paths, inputs read under their schema, input digests, pools with manifests."""
from __future__ import annotations

import hashlib
from typing import Any, Iterable

from flows.runtime.workspace import path
from pools.jsonl import ReadResult, read_jsonl, write_json, write_jsonl
from pools.manifest import build_manifest

TASKS = "data/tasks.jsonl"
GT_POOL = "data/pools/gt.jsonl"
HINDSIGHT_POOL = "data/pools/hindsight.jsonl"
ROLLOUTS = "data/relabel/rollouts.jsonl"
REFLECTIONS = "data/relabel/reflections.jsonl"
COMPLETIONS = "data/relabel/completions.jsonl"
CRITIC_SAMPLES = "data/relabel/critic_samples.jsonl"


def read_input(rel: str, schema: str, policy: str) -> ReadResult:
    """Read a stage input under its schema (bad rows fail the stage or go to quarantine)."""
    return read_jsonl(path(rel), schema, on_bad=policy)  # type: ignore[arg-type]


def file_digest(*rels: str) -> dict[str, str]:
    """SHA-256 of input files (part of a stage's resume key)."""
    return {rel: hashlib.sha256(path(rel).read_bytes()).hexdigest() for rel in rels}


def write_pool(name: str, records: Iterable[dict[str, Any]], used_params: dict[str, Any],
               models: dict[str, dict[str, str]] | None, quarantined: int = 0) -> dict[str, Any]:
    """Write data/pools/<name>.jsonl and its manifest (`models`: role -> model that contributed); returns it."""
    rows = sorted(records, key=lambda r: r["id"])
    write_jsonl(path(f"data/pools/{name}.jsonl"), rows, "sample")
    manifest = build_manifest(name, rows, "sample", used_params, models, quarantined)
    write_json(path(f"data/pools/{name}.manifest.json"), manifest, "manifest")
    return manifest
