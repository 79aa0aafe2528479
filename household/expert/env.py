"""The household environment: a `World` (stepping, see `household.world.world`) that builds its task's scene when none
is given. Pass a prebuilt scene (`household.expert.scene.build_scene`) to share it with the expert and avoid building
it twice: `Env(task, seed=s, scene=scene)`."""
from __future__ import annotations

from household.expert.scene import build_scene
from household.world.layout import Scene
from household.world.tasks import Task
from household.world.world import Observation, StepResult, World

__all__ = ["Env", "Observation", "StepResult", "World"]


class Env(World):
    """One episode of a task in the symbolic household world (over `scene`, or the task's seeded scene)."""

    def __init__(self, task: Task, seed: int = 0, max_fails: int = 10, max_steps: int = 1000,
                 scene: Scene | None = None, explore_budget: int = 400, stop_on_success: bool = True) -> None:
        super().__init__(task, scene if scene is not None else build_scene(task, seed), seed=seed,
                         max_fails=max_fails, max_steps=max_steps, explore_budget=explore_budget,
                         stop_on_success=stop_on_success)
