"""phi: the task text rewritten from its PDDL arguments (hindsight relabeling's canonical task description)."""
from __future__ import annotations

from typing import Any

from household.world.ontology import class_words

_STATE_VERB = {"clean": "clean", "heat": "heat", "cool": "cool"}


def phi(task_type: str, args: dict[str, Any]) -> str:
    """Return a plain instruction built only from the task type and its seven arguments (deterministic)."""
    obj = class_words(args.get("object_target") or "object")
    if args.get("object_sliced"):
        obj = f"sliced {obj}"
    parent = class_words(args.get("parent_target") or "")
    mrecep = class_words(args.get("mrecep_target") or "")
    toggle = class_words(args.get("toggle_target") or "")
    state = str(args.get("object_state") or "none")
    where = f" in the {parent}" if parent else ""
    if task_type == "pick_two_obj_and_place" or args.get("two_objects"):
        return f"Put two {obj}s{where}."
    if task_type == "look_at_obj_in_light":
        return f"Look at the {obj} under the {toggle or 'lamp'}."
    if task_type == "pick_and_place_with_movable_recep":
        return f"Put the {obj} in the {mrecep or 'container'}, then put the {mrecep or 'container'}{where}."
    if state in _STATE_VERB:
        return f"{_STATE_VERB[state].capitalize()} the {obj}, then put it{where}."
    return f"Put the {obj}{where}."
