"""A profile's keys over params, as `hindsight profile` applies them: key by key, so a nested mapping is merged."""
from __future__ import annotations

from typing import Any


def with_profile(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`base` with every leaf of `over` set (an empty mapping in `over` is itself a value)."""
    out = dict(base)
    for key, value in over.items():
        out[key] = with_profile(base.get(key) or {}, value) if isinstance(value, dict) and value else value
    return out
