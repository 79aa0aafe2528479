"""ALFRED's goal conditions per task type (alfworld/env/tasks.py), counted over a world state."""
from __future__ import annotations

from household.world.ontology import SLICED_OF, place_class
from household.world.state import WorldState
from household.world.tasks import Task

BASE_CONDITIONS: dict[str, int] = {
    "pick_and_place_simple": 1,
    "pick_two_obj_and_place": 2,
    "look_at_obj_in_light": 2,
    "pick_heat_then_place_in_recep": 3,
    "pick_cool_then_place_in_recep": 3,
    "pick_clean_then_place_in_recep": 3,
    "pick_and_place_with_movable_recep": 3,
}


def total_conditions(task_type: str, sliced: bool) -> int:
    """Number of goal conditions ALFRED counts for a task (sliced adds 1, or 2 for pick_two)."""
    extra = (2 if task_type == "pick_two_obj_and_place" else 1) if sliced else 0
    return BASE_CONDITIONS[task_type] + extra


def count_met(task: Task, state: WorldState) -> tuple[int, int]:
    """(met, total) goal conditions of a task in a world state."""
    a = task.args
    tt = task.task_type
    total = total_conditions(tt, a.object_sliced)
    x_cls = SLICED_OF.get(a.object_target, a.object_target) if a.object_sliced else a.object_target
    p_cls = place_class(a.parent_target) if a.parent_target else ""
    xs = state.objects_of(x_cls)
    met = 0
    if a.object_sliced:
        met += min(2 if tt == "pick_two_obj_and_place" else 1, len(xs))
    if tt == "pick_two_obj_and_place":
        per: dict[str, int] = {}
        for o in xs:
            for anc in state.ancestor_places(o, p_cls):
                per[anc] = per.get(anc, 0) + 1
        met += min(2, max(per.values(), default=0))
    elif tt == "look_at_obj_in_light":
        held = state.held()
        met += int(held is not None and held.cls == x_cls)
        met += int(state.lamp_on_here(a.toggle_target))
    elif tt == "pick_and_place_with_movable_recep":
        ms = state.objects_of(a.mrecep_target)
        x_in_m = [o for o in xs if state.inside_cls(o, a.mrecep_target)]
        met += int(bool(x_in_m))
        m_in_p = [m for m in ms if state.inside_cls(m, p_cls)]
        met += int(bool(m_in_p))
        met += int(any(state.inside_obj(o, m.id) for m in m_in_p for o in x_in_m))
    else:
        in_p = [o for o in xs if state.inside_cls(o, p_cls)]
        met += int(bool(in_p))
        if tt != "pick_and_place_simple":
            flag = {"pick_heat_then_place_in_recep": "heated", "pick_cool_then_place_in_recep": "cooled",
                    "pick_clean_then_place_in_recep": "cleaned"}[tt]
            met += int(any(getattr(o, flag) for o in xs))
            met += int(any(getattr(o, flag) for o in in_p))
    return met, total
