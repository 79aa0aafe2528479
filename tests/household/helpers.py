"""Shared fixtures-as-functions for the household tests: a tiny hand-made kitchen."""
from __future__ import annotations

from household.world.floorplans import Place
from household.world.layout import ObjectSpec, Scene
from household.world.tasks import Task, load_tasks

PLACES = (
    Place("CounterTop|1", "CounterTop", (0.0, 0.0, 0, 30)),
    Place("Fridge|1", "Fridge", (1.0, 0.0, 90, 0)),
    Place("Microwave|1", "Microwave", (0.0, 1.0, 180, -30)),
    Place("Sink|1|SinkBasin", "SinkBasin", (1.0, 1.0, 270, 30)),
    Place("Cabinet|1", "Cabinet", (2.0, 0.0, 0, 30)),
    Place("Desk|1", "Desk", (2.0, 2.0, 0, 30)),
    Place("DiningTable|1", "DiningTable", (-1.0, 0.0, 0, 30)),
)
OBJECTS = (
    ObjectSpec("Apple_1", "Apple", "CounterTop|1"),
    ObjectSpec("Knife_1", "Knife", "CounterTop|1"),
    ObjectSpec("Tomato_1", "Tomato", "Fridge|1"),
    ObjectSpec("Mug_1", "Mug", "Cabinet|1"),
    ObjectSpec("Faucet_1", "Faucet", "Sink|1|SinkBasin"),
    ObjectSpec("DeskLamp_1", "DeskLamp", "Desk|1"),
    ObjectSpec("Book_1", "Book", "Desk|1"),
    ObjectSpec("Bowl_1", "Bowl", "DiningTable|1"),
)


def kitchen() -> Scene:
    """A small, fully known scene for precondition tests."""
    return Scene(0, PLACES, OBJECTS, (0.0, -1.0, 0, 30), {"object": ("Apple_1",)})


def task_of(task_type: str, sliced: bool = False, split: str = "valid_seen") -> Task:
    """First task of a type (and sliced-ness) in a split."""
    for t in load_tasks(split) + load_tasks("train"):
        if t.task_type == task_type and t.args.object_sliced == sliced:
            return t
    raise LookupError(task_type)


def make_task(task_type: str, obj: str, parent: str = "", mrecep: str = "", toggle: str = "",
              sliced: bool = False) -> Task:
    """A hand-made task over the kitchen scene."""
    from household.world.tasks import task_args

    pddl = {"object_target": obj, "parent_target": parent, "mrecep_target": mrecep, "toggle_target": toggle,
            "object_sliced": sliced}
    return Task(f"test/{task_type}-{obj}", "test", task_type, pddl, 0, (), task_args(task_type, pddl), ())
