"""Replay: execute a sub-goal sequence in a fresh world from a task's initial state (the verifier of every sample)."""
from __future__ import annotations

from typing import Any, Sequence

from household.backends import open_env
from household.expert.env import Env
from household.expert.scene import Scene
from household.world.tasks import Task
from planner.config import PlannerConfig


def new_env(task: Task, cfg: PlannerConfig | None = None, seed: int | None = None, scene: Scene | None = None
            ) -> Env:
    """A fresh world at the task's initial state, with the configured limits (`scene`: already built for the seed)."""
    cfg = cfg or PlannerConfig()
    return open_env(task, cfg.world.backend, cfg.world.alfworld_games, seed=cfg.world.seed if seed is None else seed,
                    max_fails=cfg.world.max_fails, max_steps=cfg.world.max_steps,
                    explore_budget=cfg.world.explore_budget, scene=scene, max_actions=cfg.world.max_actions,
                    alfworld_view=cfg.world.alfworld_view)


def replay(task: Task, steps: Sequence[str], cfg: PlannerConfig | None = None, seed: int | None = None,
           scene: Scene | None = None) -> dict[str, Any]:
    """Execute sub-goals in a fresh world from the task's initial state; report success, goal conditions, failures.

    `ran` counts the steps executed before the episode ended (on success the steps after the goal never run).
    `scene`: the task's scene for this seed when the caller has built it already (it is built once per task).
    """
    env = new_env(task, cfg, seed, scene)
    failed_step, reason, fails, ran = -1, "", 0, 0
    reasons: list[str] = []
    for i, sg in enumerate(steps):
        if env.done:
            break
        res = env.step(sg)
        ran += 1
        reasons.append(res.reason or "")
        if not res.ok:
            fails += 1
            if failed_step < 0:
                failed_step, reason = i, res.reason or ""
    met, total = env.goal_conditions()
    return {"success": bool(env.success), "gc": (met / total) if total else 0.0, "met": int(met),
            "total": int(total), "failed_step": failed_step, "fails": fails, "reason": reason, "ran": ran,
            "reasons": reasons, "end": env.done_reason}
