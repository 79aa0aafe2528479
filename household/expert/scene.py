"""A task's scene, built once: the seeded initial layout, settled with the expert so that ALFRED's plan finds its
objects where it walks. Build it here and hand it to whoever needs it (`Env(task, seed=s, scene=scene)`,
`expert_plan(task, s, scene)`): building it costs several expert runs."""
from __future__ import annotations

from dataclasses import replace

from household.expert.expert_agent import find_relocation
from household.world.layout import APPLIANCE_OF_TYPE, ObjectSpec, Scene, initial_layout
from household.world.tasks import Task

__all__ = ["APPLIANCE_OF_TYPE", "ObjectSpec", "Scene", "build_scene", "settle"]


def build_scene(task: Task, seed: int = 0) -> Scene:
    """The seeded initial scene of an ALFRED task; the same (task, seed) always gives the same scene."""
    layout = initial_layout(task, seed)
    return settle(task, layout, seed, {i for ids in layout.roles.values() for i in ids})


def settle(task: Task, scene: Scene, seed: int, movable_ids: set[str], rounds: int = 6) -> Scene:
    """Move each plan object, still unseen, into the instance of its receptacle class that the expert's
    `Navigation <class>` reaches first: ALFRED's plan found it in "the" countertop it walked to."""
    for _ in range(rounds):
        move = find_relocation(task, scene, seed, movable_ids)
        if move is None:
            break
        oid, place_id = move
        movable_ids = movable_ids - {oid}  # each object moves at most once: no ping-pong
        scene = replace(scene, objects=tuple(replace(o, parent=place_id) if o.id == oid else o
                                             for o in scene.objects))
    return scene
