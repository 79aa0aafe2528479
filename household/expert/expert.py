"""The full-knowledge expert: a task's ground-truth sub-goal sequence (LLM-Planner style), and whether it solves it.

The expert's choices live in `household.expert.expert_agent`; this module runs it on a fresh episode of a task's scene.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from household.expert.env import Env
from household.expert.expert_agent import ExpertAgent, Stuck
from household.world.layout import Scene
from household.world.tasks import Task


@dataclass(frozen=True)
class ExpertResult:
    """The expert's plan, whether executing it solved the task, why not, and its low-level step count."""

    plan: list[str] = field(default_factory=list)
    success: bool = False
    reason: str = ""
    low_steps: int = 0


def solve(task: Task, seed: int = 0, scene: Scene | None = None, **env_kwargs: int) -> ExpertResult:
    """Run the expert on a fresh episode (of `scene` when given, else the task's seeded scene); the plan is every
    sub-goal it executed."""
    env = Env(task, seed=seed, scene=scene, **env_kwargs)
    ex = ExpertAgent(env)
    reason = ""
    try:
        ex.run()
    except Stuck as exc:
        reason = str(exc)
    except AssertionError:
        reason = "expert lost track of the held object"
    if not reason and not env.success:
        met, total = env.goal_conditions()
        reason = f"plan ended with {met}/{total} goal conditions met"
    return ExpertResult(ex.plan, env.success, reason if not env.success else "", env.low_steps)


def expert_plan(task: Task, seed: int = 0, scene: Scene | None = None) -> list[str]:
    """The expert's canonical sub-goal sequence for a task (see `solve` for whether it succeeds)."""
    return solve(task, seed, scene).plan
