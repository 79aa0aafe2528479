"""Split-level statistics of the world: task counts, annotations, and how the expert does (for `hindsight world stats`;
over ALFWorld's games: household.alfworld.stats)."""
from __future__ import annotations

import logging
from collections import Counter, defaultdict
from typing import Any, Iterable

from household.expert.expert import solve
from household.world.layout import Scene
from household.world.tasks import Task, load_tasks

log = logging.getLogger(__name__)


def world_stats(items: Iterable[tuple[Task, Scene | None]], seed: int = 0) -> dict[str, Any]:
    """Tasks, annotations, tasks per type, expert SR, mean expert plan length per type, unsolvable tasks."""
    n = annotations = solved = 0
    by_type: Counter[str] = Counter()
    lengths: dict[str, list[int]] = defaultdict(list)
    unsolvable: list[dict[str, str]] = []
    for task, scene in items:
        n += 1
        annotations += len(task.annotations)
        by_type[task.task_type] += 1
        res = solve(task, seed=seed, scene=scene)
        lengths[task.task_type].append(len(res.plan))
        if res.success:
            solved += 1
        else:
            log.warning("expert cannot solve %s: %s", task.id, res.reason)
            unsolvable.append({"id": task.id, "reason": res.reason})
    return {
        "tasks": n,
        "annotations": annotations,
        "by_type": dict(sorted(by_type.items())),
        "expert_sr": solved / n if n else 0.0,
        "expert_len": {k: round(sum(v) / len(v), 2) for k, v in sorted(lengths.items())},
        "unsolvable": unsolvable,
    }


def split_stats(split: str, seed: int = 0, limit: int | None = None) -> dict[str, Any]:
    """world_stats over an ALFRED split."""
    tasks = load_tasks(split)[:limit] if limit else load_tasks(split)
    out = world_stats(((t, None) for t in tasks), seed)
    return {"split": split, **out}

