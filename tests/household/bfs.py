"""A breadth-first search written apart from household/expert/cost_to_go.py (none of its code): the fewest sub-goals the
robot could say from a state to the goal, each stepped by the world's own `step` on a copy.

The robot's vocabulary, restated here from what it observes: a walk to any class it has seen or the task names
(never to what it holds), and every verb with every class where it stands or in its hands. Two states are the same
when the world and everything the robot knows are (where it stands and has been, what it has seen, the order of its
last visits): nothing is assumed not to matter.
"""
from __future__ import annotations

from household.world.ontology import canonical_class
from household.world.world import World

VERBS = ("OpenObject", "CloseObject", "ToggleObjectOn", "ToggleObjectOff", "PickupObject", "SliceObject")


def _classes(texts) -> set[str]:
    return {c for c in (canonical_class(t.split("(")[0].strip()) for t in texts) if c}


def sayable(world: World) -> list[str]:
    """Every sub-goal the robot could say here (see the module docstring)."""
    obs = world.observe()
    a = world.task.args
    named = {c for c in (a.object_target, a.parent_target, a.mrecep_target, a.toggle_target) if c}
    held = canonical_class(obs.holding) if obs.holding else None
    walks = (_classes(obs.objects) | {c for c in named if not c.endswith("Sliced")}) - {held}
    here = _classes(obs.here)
    out = [f"Navigation {c}" for c in sorted(walks)]
    out += [f"{v} {c}" for c in sorted(here) for v in VERBS]
    if held:
        out += [f"PutObject {held} {c}" for c in sorted(here)]
    return out


def key(world: World) -> tuple:
    """Everything: the world's objects and flags, and the robot's place, hand and knowledge."""
    st = world.state
    order = {t: i for i, t in enumerate(sorted(set(st.last_visit.values())))}
    return (world.world_state(), tuple(sorted(st.visited)), tuple(sorted(st.seen_objs)),
            tuple(sorted((p, order[t]) for p, t in st.last_visit.items())))


def distance(world: World, limit: int) -> int | None:
    """The fewest sub-goals to the goal (None: none within `limit`), breadth first over `sayable`."""
    if world.success:
        return 0
    frontier = [world]
    seen = {key(world)}
    for depth in range(1, limit + 1):
        nxt = []
        for w in frontier:
            for subgoal in sayable(w):
                child = w.fork(bounded=False)
                child.attempt(subgoal)  # a failed walk still went where it went; a refused step changes nothing
                if child.success:
                    return depth
                if depth == limit:  # the last layer is only looked at, never expanded: no key to keep
                    continue
                k = key(child)
                if k not in seen and not child.done:
                    seen.add(k)
                    nxt.append(child)
        frontier = nxt
    return None


def plays(world: World, plan: list[str]) -> bool:
    """Whether `plan` is sayable step by step and reaches the goal at its last step (a plan of len(plan) exists;
    a step may fail, as a walk that ends "not found" after walking)."""
    w = world.fork(bounded=False)
    for i, subgoal in enumerate(plan):
        if subgoal not in sayable(w):
            return False
        w.step(subgoal)
        if w.success != (i == len(plan) - 1):
            return False
    return w.success
