"""Pool manifests: what a pool holds, how it was made, and a content hash to compare versions by."""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, Iterable, Mapping

from pools.ids import canonical_json
from pools.schemas import schema_version


def content_hash(records: Iterable[dict[str, Any]]) -> str:
    """SHA-256 over the records' canonical JSON in id order (independent of file order)."""
    digest = hashlib.sha256()
    for line in sorted(canonical_json(r) for r in records):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def build_manifest(
    pool: str,
    records: list[dict[str, Any]],
    schema: str,
    params: dict[str, Any],
    models: Mapping[str, Mapping[str, str]] | None = None,
    quarantined: int = 0,
    quality: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Describe a pool: schema version, counts by kind and task type, verified share, hash, params, models, and
    its own quality (`quality`: planner/probe/quality.pool_quality) when given.

    `models` maps each LLM role that contributed to the pool to {model, endpoint, id} (empty: no LLM made it).
    """
    verified = [r.get("verified", True) for r in records]
    return {
        "pool": pool,
        "schema": schema,
        "schema_version": schema_version(schema),
        "records": len(records),
        "by_kind": dict(sorted(Counter(r["kind"] for r in records).items())),
        "by_task_type": dict(sorted(Counter(r["task_type"] for r in records).items())),
        "verified_share": round(sum(verified) / len(verified), 4) if verified else 0.0,
        "content_sha256": content_hash(records),
        "params": params,
        "models": {role: dict(models[role]) for role in sorted(models or {})},
        "quarantined": quarantined,
        **({"quality": quality} if quality is not None else {}),
    }
