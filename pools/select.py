"""Seeded, stratified choice of tasks (which tasks a stage works on); pure data, no world."""
from __future__ import annotations

import random
from collections import defaultdict
from typing import Any, Iterable

from pools.records import PoolItem, Sample


def stratified(rows: Iterable[dict[str, Any]], per_type: int, seed: int, split: str | None = None) -> list[dict[str, Any]]:
    """Pick `per_type` expert-solvable task rows of each task type (seeded; stable under row order; 0 = all)."""
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if (split is None or row["split"] == split) and row.get("expert_ok", True):
            by_type[row["task_type"]].append(row)
    chosen: list[dict[str, Any]] = []
    for task_type in sorted(by_type):
        group = sorted(by_type[task_type], key=lambda r: r["id"])
        rng = random.Random(f"{seed}:{split}:{task_type}")  # string seed: stable across Python versions
        chosen.extend(group if per_type <= 0 else rng.sample(group, min(per_type, len(group))))
    return chosen


def at_most(rows: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """A seeded sample of at most `n` of `rows`, in their order (0 = all): the same tasks for every variant."""
    if n <= 0 or len(rows) <= n:
        return list(rows)
    keep = set(random.Random(f"{seed}:at_most:{n}").sample(range(len(rows)), n))
    return [row for i, row in enumerate(rows) if i in keep]


def practice_samples(gt_records: Iterable[PoolItem], per_type: int) -> list[Sample]:
    """The gt actor samples to practise on: the first `per_type` of each task type, by id."""
    by_type: dict[str, list[Sample]] = defaultdict(list)
    for rec in sorted(gt_records, key=lambda r: r.id):
        if rec.kind == "gt":
            by_type[rec.task_type].append(rec)
    return [rec for t in sorted(by_type) for rec in by_type[t][:per_type]]


def past_first(samples: list[Sample], first: int) -> set[str]:
    """The ids of the samples after the first `first` of their task type, in the order given (practice_samples'
    order: nested, so the first `first` per type are the same at every collect.per_type)."""
    seen: dict[str, int] = defaultdict(int)
    late = set()
    for rec in samples:
        if seen[rec.task_type] >= first:
            late.add(rec.id)
        seen[rec.task_type] += 1
    return late
