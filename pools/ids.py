"""Stable ids: content hashes of what defines a record, so two pool versions compare by id."""
from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(obj: Any) -> str:
    """Serialise to JSON with sorted keys and no whitespace (the input of every content hash)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_id(prefix: str, obj: Any, length: int = 16) -> str:
    """Return `prefix-<sha256 of canonical JSON, truncated>`; same content, same id."""
    digest = hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:length]}"
