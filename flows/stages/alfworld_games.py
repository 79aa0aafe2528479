"""The ALFWorld backend's evaluation items: one per game under `world.alfworld_games`, each with its own task (from
the game's traj_data.json), reported under the split name 'alfworld'."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from flows.runtime.workspace import path

SPLIT = "alfworld"


def uses_alfworld(params: dict[str, Any]) -> bool:
    """Whether `world.backend` is the ALFWorld engine."""
    return (params.get("world") or {}).get("backend", "household") == "alfworld"


def games_dir(world: dict[str, Any]) -> Path:
    """`world.alfworld_games`, relative to the workspace unless absolute."""
    from household.backends import check_backend

    check_backend("alfworld", world.get("alfworld_games"))
    p = Path(str(world["alfworld_games"])).expanduser()
    return p if p.is_absolute() else path(str(p))


def game_rows(world: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Items (id, split, task_type, seed) and tasks by id for every game; a missing or malformed game raises naming
    its file."""
    from household.backends import backend_tasks

    tasks = backend_tasks("alfworld", games_dir(world))
    rows = [{"id": t.id, "split": SPLIT, "task_type": t.task_type, "seed": int(world["seed"])} for t in tasks]
    return rows, {t.id: t for t in tasks}


def eval_splits(params: dict[str, Any]) -> list[str]:
    """The splits an evaluation reports: 'alfworld' on the ALFWorld backend, else evaluate.splits."""
    return [SPLIT] if uses_alfworld(params) else list(params["evaluate"]["splits"])
