"""Strict parsers for what the LLM writes: plans, critic values, predicted arguments. Garbage yields None/[]."""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from pools.records import ARG_KEYS

# Value parsing (paper: the critic ends with "the value is a/b"). Interpretation: a/b is the share of the task's
# goal conditions the plan reaches; 0 <= a <= b, b > 0. Anything else is rejected (None), never guessed.
_VALUE_RE = re.compile(r"the\s+value\s+is\s*:?\s*(\d+)\s*/\s*(\d+)", re.IGNORECASE)
_INDEXED_VALUE_RE = re.compile(
    r"^\s*(?:plan\s*)?(\d+)\s*[.:)\-]\s*the\s+value\s+is\s*:?\s*(\d+)\s*/\s*(\d+)", re.IGNORECASE | re.MULTILINE)


def parse_value(text: str) -> tuple[int, int] | None:
    """Return (a, b) from the first 'the value is a/b' in text, or None if absent or out of range."""
    match = _VALUE_RE.search(text or "")
    if not match:
        return None
    num, den = int(match.group(1)), int(match.group(2))
    if den <= 0 or num > den:
        return None
    return num, den


def parse_values(text: str, n: int) -> list[tuple[int, int] | None]:
    """Parse n values from one batched critic answer ('1. the value is a/b' lines; unindexed ones in order)."""
    out: list[tuple[int, int] | None] = [None] * n
    indexed = list(_INDEXED_VALUE_RE.finditer(text or ""))
    if indexed:
        for m in indexed:
            i, num, den = int(m.group(1)) - 1, int(m.group(2)), int(m.group(3))
            if 0 <= i < n and out[i] is None and 0 < den and num <= den:
                out[i] = (num, den)
        return out
    for i, m in enumerate(_VALUE_RE.finditer(text or "")):
        if i >= n:
            break
        num, den = int(m.group(1)), int(m.group(2))
        out[i] = (num, den) if 0 < den and num <= den else None
    return out


def split_plan(text: str) -> list[str]:
    """Split a plan continuation ('A; B; C' or one step per line, maybe numbered) into raw step strings."""
    text = (text or "").strip()
    if not text:
        return []
    parts = re.split(r"[;\n]|,\s*(?=[A-Z][a-z]+Object|Navigation|Stop)", text)
    steps = []
    for part in parts:
        part = re.sub(r"^\s*(?:\d+[.):]|-|\*)\s*", "", part).strip().strip(".").strip()
        if part:
            steps.append(part)
    return steps


def format_plan(steps: list[str]) -> str:
    """Join sub-goals the way prompts show them."""
    return "; ".join(steps)


# Adapter arguments, shown compactly in prompts: short key -> TaskArgs field.
ARG_SHORT: dict[str, str] = {
    "object": "object_target", "parent": "parent_target", "mrecep": "mrecep_target", "toggle": "toggle_target",
    "state": "object_state", "sliced": "object_sliced", "two": "two_objects",
}
_STATES = ("clean", "heat", "cool", "none")
_ARG_RE = re.compile(r"(object|parent|mrecep|toggle|state|sliced|two)\s*[=:]\s*([A-Za-z_\-]+)", re.IGNORECASE)


def empty_args() -> dict[str, Any]:
    """Return the seven arguments with their 'nothing known' values."""
    return {"object_target": "", "parent_target": "", "mrecep_target": "", "toggle_target": "",
            "object_state": "none", "object_sliced": False, "two_objects": False}


def format_args(args: dict[str, Any], order: Sequence[str] | None = None) -> str:
    """Render the seven arguments as 'object=Apple parent=Fridge ... two=no' (short keys in `order` if given)."""
    parts = []
    for short in order or ARG_SHORT:
        key = ARG_SHORT[short]
        value = args.get(key, empty_args()[key])
        if isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{short}={value or 'none'}")
    return " ".join(parts)


def parse_args(text: str, canonical: Callable[[str], str | None] = lambda s: s) -> tuple[dict[str, Any], int]:
    """Parse 'key=value' arguments; returns (args with defaults for missing/invalid keys, number parsed)."""
    args = empty_args()
    parsed = 0
    seen: set[str] = set()
    for m in _ARG_RE.finditer(text or ""):
        short, raw = m.group(1).lower(), m.group(2).strip()
        if short in seen:  # the model ran on into another line of arguments: keep the first
            continue
        seen.add(short)
        key = ARG_SHORT[short]
        low = raw.lower()
        if key in ("object_sliced", "two_objects"):
            if low in ("yes", "true", "1", "no", "false", "0"):
                args[key] = low in ("yes", "true", "1")
                parsed += 1
        elif key == "object_state":
            if low in _STATES:
                args[key] = low
                parsed += 1
        elif low in ("none", "null", "-", "empty"):
            args[key] = ""
            parsed += 1
        else:
            cls = canonical(raw)
            if cls:
                args[key] = cls
                parsed += 1
    return args, parsed


def args_accuracy(pred: dict[str, Any], true: dict[str, Any]) -> dict[str, bool]:
    """Return per-argument correctness of predicted arguments against the task's true ones (case-insensitive)."""
    out = {}
    for key in ARG_KEYS:
        p, t = pred.get(key, empty_args()[key]), true.get(key, empty_args()[key])
        out[key] = (str(p).lower() == str(t).lower()) if not isinstance(t, bool) else bool(p) == t
    return out
