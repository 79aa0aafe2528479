"""The ALFWorld backend's items: which games evaluate plays and which practice tasks collect runs, from the folder
`world.alfworld_games`.

Two layouts are understood. alfworld-download's own (`json_2.1.1/`): split folders `train/`, `valid_seen/`,
`valid_unseen/` (and `valid_train/`), each holding `TYPE-.../trial_.../game.tw-pddl`; evaluate plays the games of
the split folders `evaluate.splits` names (valid_unseen: the 134 games peers report on) that `evaluate.task_set`
holds (as in our world: heldout = outside the dev set; profiles/alfworld.yaml plays all 134 and its figures are
also given outside the dev set) and reports each under its split name; collect practises on the ground-truth
pool's tasks that have a game in `train/`. Or a folder of bare games (the three samples): one split, 'alfworld',
that evaluate plays (in `evaluate.task_set` too); collect has no train games there and stops, saying what to point
at.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from household.alfworld.env import game_dir_for
from household.backends import backend_tasks, check_backend
from household.world import resources
from household.world.tasks import in_task_set
from pools.records import PoolItem, Sample
from pools.select import practice_samples, stratified

SPLIT = "alfworld"  # the split of a folder of bare games
SPLITS = ("train", "valid_seen", "valid_unseen", "valid_train")  # alfworld-download's split folders
TRAIN = "train"


def eval_params(params: dict[str, Any]) -> dict[str, Any]:
    """The `world` and `evaluate` sections evaluate plays with: `evaluate.world`'s keys over `world` (ALFWorld's
    protocol for the evaluation alone, the pools built in ours); an unknown key is an error naming it."""
    world, ev = params["world"], params["evaluate"]
    over = dict(ev.get("world") or {})
    unknown = sorted(set(over) - set(world))
    if unknown:
        raise ValueError(f"params.yaml: evaluate.world.{unknown[0]}: not a key of world ({', '.join(world)})")
    return {"world": {**dict(world), **over}, "evaluate": ev}


def uses_alfworld(params: dict[str, Any]) -> bool:
    """Whether `world.backend` is the ALFWorld engine."""
    return (params.get("world") or {}).get("backend", "household") == "alfworld"


def evaluates_in_alfworld(params: dict[str, Any]) -> bool:
    """Whether evaluate plays in ALFWorld's engine: `evaluate.world.backend`, else `world.backend` (reads those two
    keys alone, so a stage that only reports declares `world.backend` and `evaluate`)."""
    over = ((params.get("evaluate") or {}).get("world") or {}).get("backend")
    return (over or (params.get("world") or {}).get("backend", "household")) == "alfworld"


def games_dir(world: dict[str, Any]) -> Path:
    """`world.alfworld_games`, relative to the data directory unless absolute."""
    check_backend("alfworld", world.get("alfworld_games"))
    return resources.games_dir(str(world["alfworld_games"]))


def split_dirs(root: Path) -> dict[str, Path]:
    """alfworld-download's split folders present under `root` ({} for a folder of bare games)."""
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: ALFWorld games folder not found (params.yaml: world.alfworld_games)")
    return {s: root / s for s in SPLITS if (root / s).is_dir()}


def eval_split_dirs(params: dict[str, Any]) -> list[tuple[str, Path]]:
    """(split name, folder) of the games evaluate plays: the split folders `evaluate.splits` names, or the whole
    folder as split 'alfworld' when it holds bare games."""
    root = games_dir(params["world"])
    layout = split_dirs(root)
    if not layout:
        return [(SPLIT, root)]
    wanted = list(params["evaluate"]["splits"])
    chosen = [(s, layout[s]) for s in wanted if s in layout]
    if not chosen:
        raise ValueError(f"params.yaml: evaluate.splits {wanted}: no such split folder under world.alfworld_games "
                         f"{root} (it holds {sorted(layout)}); name one of those, e.g. valid_unseen")
    return chosen


def game_rows(params: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Items (id, split, task_type, seed) and tasks by id for the games evaluate plays: the games of each split in
    `evaluate.task_set` (as in our world: heldout = the games whose ALFRED spec is outside the dev set,
    household/data/dev_set.json; dev; all), then all of them or `evaluate.alfworld_per_type` of each type, seeded
    by world.seed (the same games for every variant); each task carries its split's name. A missing or malformed
    game raises naming its file."""
    seed = int(params["world"]["seed"])
    per_type = int(params["evaluate"].get("alfworld_per_type", 0))
    task_set = str(params["evaluate"]["task_set"])
    rows: list[dict[str, Any]] = []
    tasks: dict[str, Any] = {}
    for split, folder in eval_split_dirs(params):
        games = [t for t in backend_tasks("alfworld", folder) if in_task_set(t.id, task_set)]
        found = [{"id": t.id, "split": split, "task_type": t.task_type, "seed": seed} for t in games]
        keep = {r["id"] for r in stratified(found, per_type, seed, split=split)}
        tasks.update({t.id: replace(t, split=split) for t in games if t.id in keep})  # the split it was played in
        rows += [r for r in found if r["id"] in keep]
    return rows, tasks


def eval_splits(params: dict[str, Any]) -> list[str]:
    """The splits an evaluation reports: on the ALFWorld backend those of the games played, else evaluate.splits."""
    return [s for s, _ in eval_split_dirs(params)] if uses_alfworld(params) else list(params["evaluate"]["splits"])


def train_games(world: dict[str, Any]) -> Path:
    """The `train/` folder of alfworld-download's layout, or a clear error saying what to point at."""
    root = games_dir(world)
    layout = split_dirs(root)
    if TRAIN not in layout:
        raise ValueError(
            f"params.yaml: world.alfworld_games: {root} has no {TRAIN}/ folder of ALFWorld games. On the alfworld "
            f"backend collect practises on the ground-truth pool's tasks in their ALFWorld train games: point "
            f"world.alfworld_games at the folder alfworld-download fills (json_2.1.1, holding train/ and "
            f"valid_unseen/). A folder of bare games (such as the three samples) serves evaluate only.")
    return layout[TRAIN]


def practice_on_games(gt_records: list[PoolItem], per_type: int, world: dict[str, Any]) -> list[Sample]:
    """The gt actor samples to practise on in ALFWorld's engine: as on our world (the first `per_type` of each task
    type, by id), among those whose task has a game in `train/` (not every ALFRED train trial is an ALFWorld
    game)."""
    train = train_games(world)
    gt = [r for r in gt_records if r.kind == "gt"]
    playable = [r for r in gt if game_dir_for(r.task_id, train) is not None]
    if gt and not playable:
        raise ValueError(f"{train}: none of the ground-truth pool's {len(gt)} tasks has an ALFWorld game here "
                         f"(TYPE-.../trial_.../game.tw-pddl); collect practises on the pool's tasks "
                         f"(leave-one-out), each in the ALFWorld train game of the same ALFRED trial")
    return practice_samples(playable, per_type)
