"""A pool's own quality, without the LLM: every executed step of every actor sample labeled by the expert's
cost-to-go d (household/expert/cost_to_go.py) before and after it, replayed from the task's initial state.

- *progress*: d falls by one (the step is on a shortest way to the goal);
- *neutral*: d stays;
- *regress*: d rises, or the goal becomes unreachable;
- *refused*: the world said no (the state does not change).

A sample's share of progress steps says whether it teaches the way to the goal or noise; a gt sample (the expert's
plan) is all progress where the expert's walks are the robot's. Steps after the episode ended are not executed and
not labeled.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from household.expert.cost_to_go import cost_to_go
from household.world.tasks import Task
from planner.config import PlannerConfig
from planner.loop.replay import new_env
from pools.records import PoolItem, Sample

LABELS = ("progress", "neutral", "regress", "refused")
ACTOR_KINDS = ("gt", "hindsight")  # the samples an actor reads (critic samples hold no steps to a goal of theirs)


def step_labels(task: Task, steps: Sequence[str], cfg: PlannerConfig, seed: int) -> list[str]:
    """One label per executed step of `steps`, replayed on `task` from its initial state."""
    env = new_env(task, cfg, seed)
    known: dict[tuple, int] = {}  # d of states already solved on this task (exact; shared by the steps)
    d = cost_to_go(env, known=known)
    out: list[str] = []
    for sg in steps:
        if env.done:
            break
        if not env.step(sg).ok:
            out.append("refused")
            continue
        after = cost_to_go(env, known=known)
        out.append(label(d, after))
        d = after
    return out


def label(before: int | None, after: int | None) -> str:
    """How one executed step moved d (None: no plan within the search's limit, worse than any d)."""
    if after is None:
        return "neutral" if before is None else "regress"
    if before is None or after < before:
        return "progress"  # a consistent d falls by at most one per step
    return "neutral" if after == before else "regress"


def share(labels: Mapping[str, int]) -> float:
    """The share of progress steps among executed ones (0 when none ran)."""
    n = sum(labels.values())
    return round(labels.get("progress", 0) / n, 4) if n else 0.0


def counts(labels: Iterable[str]) -> dict[str, int]:
    """Every label with its count (zeros included, in LABELS order)."""
    c = Counter(labels)
    return {k: c.get(k, 0) for k in LABELS}


def pool_quality(labeled: Sequence[tuple[Sample, Sequence[str]]]) -> dict[str, Any]:
    """The pool's figures from (sample row, its step labels) pairs: per kind, the steps by label and the progress
    share, overall and per task type, and each sample's progress share."""
    out: dict[str, Any] = {}
    for kind in ACTOR_KINDS:
        rows = [(r, ls) for r, ls in labeled if r.kind == kind]
        total = counts(x for _, ls in rows for x in ls)
        by_type: dict[str, Any] = {}
        for tt in sorted({r.task_type for r, _ in rows}):
            c = counts(x for r, ls in rows if r.task_type == tt for x in ls)
            by_type[tt] = {"samples": sum(r.task_type == tt for r, _ in rows), "steps": c, "progress": share(c)}
        out[kind] = {"samples": len(rows), "steps": total, "progress": share(total), "by_type": by_type,
                     "by_sample": {r.id: share(counts(ls)) for r, ls in rows}}
    return out


def quality_of(rows: Sequence[PoolItem], cfg: PlannerConfig, seed: int) -> dict[str, Any]:
    """A pool's figures (pool_quality) from its records: each actor sample's steps replayed on its task."""
    from household.world.tasks import get_task

    return pool_quality([(r, step_labels(get_task(r.task_id), r.steps, cfg, seed))
                         for r in rows if r.kind in ACTOR_KINDS])
