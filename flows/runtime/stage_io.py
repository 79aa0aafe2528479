"""A stage's files: the pipeline's data paths (from dvc.yaml), inputs read under their schema, input digests, pools
with manifests."""
from __future__ import annotations

import hashlib
from pathlib import PurePosixPath
from typing import Any, Callable, Iterable

from flows.runtime.declared import DeclarationError, declaration, output
from flows.runtime.workspace import path
from pools.jsonl import ReadResult, plain, read_jsonl, read_records, write_json, write_jsonl
from pools.manifest import build_manifest
from pools.records import RECORDS, PoolItem

# Each data file is named once, as its stage's first `outs:` entry in dvc.yaml. Read when first imported (PEP 562),
# so a workspace running a pipeline of its own (the reliability tests' driver) can import the rest of this module.
OUTPUT_OF = {"TASKS": "tasks", "GT_POOL": "gt_pool", "ROLLOUTS": "collect", "REFLECTIONS": "reflect",
             "COMPLETIONS": "complete", "CRITIC_SAMPLES": "critic", "CORRECTIONS": "corrections",
             "HINDSIGHT_POOL": "pool"}
# A variant's `pool` (planner/variants.py POOL_FILES) -> the stage that writes that pool.
POOL_STAGES = {"gt": "gt_pool", "hindsight": "pool", "hindsight_corrections": "pool_corrections"}


def __getattr__(name: str) -> str:
    """TASKS, GT_POOL, ...: the path dvc.yaml declares as the producing stage's first output."""
    if name in OUTPUT_OF:
        return output(OUTPUT_OF[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pool_output(pool: str) -> str:
    """The path of a pool file a variant names (`gt`, `hindsight`, `hindsight_corrections`), as dvc.yaml declares it."""
    return output(POOL_STAGES[pool])


def declared_out(stage: str, name: str) -> str:
    """The output of `stage` whose file name is `name` (a stage's other files than its first), as dvc.yaml declares
    it."""
    found = [o for o in declaration(stage).outs if PurePosixPath(o).name == name]
    if not found:
        raise DeclarationError(f"dvc.yaml: stages.{stage}.outs: declare a file named {name}")
    return found[0]


def read_input(rel: str, schema: str, policy: str) -> ReadResult:
    """Read a stage input under its schema (bad rows fail the stage or go to quarantine): typed records where the
    schema is a record's (pools/records.py RECORDS), else JSON objects."""
    read = read_records if schema in RECORDS else read_jsonl
    return read(path(rel), schema, on_bad=policy)  # type: ignore[arg-type]


def file_digest(*rels: str) -> dict[str, str]:
    """SHA-256 of input files (part of a stage's resume key)."""
    return {rel: hashlib.sha256(path(rel).read_bytes()).hexdigest() for rel in rels}


def write_pool(stage: str, records: Iterable[PoolItem], used_params: dict[str, Any],
               models: dict[str, dict[str, str]] | None, quarantined: int = 0,
               quality: Callable[[list[PoolItem]], dict[str, Any]] | None = None,
               kind: str | None = None) -> dict[str, Any]:
    """Write a pool stage's declared outs, the pool (<name>.jsonl) and its manifest (<name>.manifest.json), where
    `models` maps role -> model that contributed and `quality` gives the pool's own quality from its rows (its
    headline: the progress share of the samples of `kind`, by default the pool's name); returns the manifest."""
    outs = declaration(stage).outs
    pool = outs[0]
    name = PurePosixPath(pool).name.removesuffix(".jsonl")
    manifest_file = str(PurePosixPath(pool).with_name(f"{name}.manifest.json"))
    if manifest_file not in outs:
        raise DeclarationError(f"dvc.yaml: stages.{stage}.outs: declare {manifest_file} beside {pool}")
    rows = sorted(records, key=lambda r: r.id)
    write_jsonl(path(pool), rows, "sample")
    manifest = build_manifest(name, [plain(r) for r in rows], "sample", used_params, models, quarantined,
                              quality(rows) if quality else None)
    write_json(path(manifest_file), manifest, "manifest")
    if quality:  # the headline, a DVC metric: the share of progress steps of the pool's own kind
        write_json(path(f"metrics/pools/{name}.json"), {"progress": manifest["quality"][kind or name]["progress"]},
                   "pool_quality")
    return manifest
