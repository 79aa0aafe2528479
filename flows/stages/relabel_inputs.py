"""What the relabeling stages after `reflect` read: reflections, the rollouts they reflect on, and the gt pool."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flows.runtime.stage_io import GT_POOL, REFLECTIONS, ROLLOUTS, read_input
from planner.retrieval.examples import ExamplePools
from pools.records import Reflection, Rollout


@dataclass
class Reflected:
    """One item per reflection whose rollout exists; each rollout's expert sample found by its leave-out id."""
    items: list[tuple[str, Reflection]]  # (reflection id, reflection)
    rollouts: dict[str, Rollout]  # rollout id -> Rollout
    pools: Any  # planner.retrieval.examples.ExamplePools of the gt pool
    experts: dict[str, Any]  # gt sample id -> Sample (the expert's rollout of a practice task)
    quarantined: int  # rows of the three inputs set aside under the quarantine policy


def read_reflected(policy: str) -> Reflected:
    """Read the three inputs under their schemas (bad rows fail or go to quarantine per `policy`)."""
    reflections = read_input(REFLECTIONS, "reflection", policy)
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    gt = read_input(GT_POOL, "sample", policy)
    by_id = {r.id: r for r in rollouts.records}
    pools = ExamplePools.from_records(gt.records)
    return Reflected(items=[(r.id, r) for r in reflections.records if r.rollout_id in by_id],
                     rollouts=by_id, pools=pools, experts={s.id: s for s in pools.gt},
                     quarantined=len(reflections.rejected) + len(rollouts.rejected) + len(gt.rejected))
