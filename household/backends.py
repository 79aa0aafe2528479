"""Which world an episode runs in (`world.backend`): ours (`household`) or ALFWorld's engine (`alfworld`).

Both give the one environment interface the closed loop, practice runs, replays and evaluation use:
`observe() -> Observation`, `step(subgoal) -> StepResult`, `done`, `done_reason`, `success`, `goal_conditions()`,
`scene` (our scene of the task: the expert plans on it), and the counters `subgoals_executed`, `failed_subgoals`,
`low_steps`. The ALFWorld backend plays the game of the task found under `world.alfworld_games`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from household.layout import Scene
from household.tasks import Task

BACKENDS: tuple[str, ...] = ("household", "alfworld")


def check_backend(backend: str, games: str | Path | None, where: str = "params.yaml: world") -> None:
    """Reject an unknown backend, or the ALFWorld backend without a games folder, naming the key."""
    if backend not in BACKENDS:
        raise ValueError(f"{where}.backend: expected one of {list(BACKENDS)}, not {backend!r}")
    if backend == "alfworld" and not games:
        raise ValueError(f"{where}.alfworld_games: the alfworld backend needs a folder of ALFWorld games "
                         f"(TYPE-.../trial_.../game.tw-pddl, as alfworld-download lays them out)")


def open_env(task: Task, backend: str = "household", games: str | Path | None = None, *, seed: int = 0,
             max_fails: int = 10, max_steps: int = 1000, explore_budget: int = 400, scene: Scene | None = None,
             stop_on_success: bool = True) -> Any:
    """A fresh episode of `task` on `backend` (for `alfworld`: the task's game under `games`; `scene` unused)."""
    check_backend(backend, games)
    if backend == "household":
        from household.env import Env

        return Env(task, seed=seed, max_fails=max_fails, max_steps=max_steps, explore_budget=explore_budget,
                   scene=scene, stop_on_success=stop_on_success)
    from household.alfworld_env import AlfworldEnv, game_for

    game = game_for(task.id, games)  # type: ignore[arg-type]
    return AlfworldEnv(task, game, seed=seed, max_fails=max_fails, max_steps=max_steps,
                       explore_budget=explore_budget, stop_on_success=stop_on_success)


def backend_tasks(backend: str, games: str | Path | None) -> list[Task]:
    """The tasks a backend offers for evaluation: for `alfworld`, one per game under `games` (sorted by folder)."""
    check_backend(backend, games)
    if backend != "alfworld":
        raise ValueError("backend_tasks: the household backend's tasks come from data/tasks.jsonl")
    from household.alfworld_env import load_games

    return [g.task for g in load_games(games)]  # type: ignore[arg-type]
