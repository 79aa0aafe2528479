"""Navigation: travel costs between a scene's places, and where `Navigation C` leads from the agent's state.

`Navigation C` goes to the nearest place where C is known (a visited receptacle of class C, or a seen object of
class C). If C is unknown it explores unvisited receptacles, cheapest first (seeded tie-break), until a C is seen,
within `explore_budget` steps, else fails "C not found". Standing where a C is, `Navigation C` means "another C":
for an object, the nearest other place where one was seen, else exploration for a new one; for a receptacle,
exploration for a new one, else the least recently visited other known one; if there is none the walk ends back
where it started (still a success). (Walking to the object one stands by would change nothing; "another" is how
a class-level sub-goal reaches the second object of a two-object task.)
"""
from __future__ import annotations

import random
from functools import lru_cache

from household.floorplans import Place, Pose, nav_cost
from household.layout import Scene
from household.ontology import LANDMARKS, MOVABLE_RECEPTACLES, PICKUPABLE, PLACE_RECEPTACLES, place_class
from household.state import HAND, WorldState

NAVIGABLE: frozenset[str] = PLACE_RECEPTACLES | LANDMARKS | PICKUPABLE | MOVABLE_RECEPTACLES | {"DeskLamp", "Faucet"}


@lru_cache(maxsize=64)
def cost_table(places: tuple[Place, ...], start_pose: Pose) -> tuple[dict[str, int], list[list[int]], list[int]]:
    """Pairwise navigation costs between places, and from the start pose (cached: a scene's settling rounds,
    its expert run and its episode share one floorplan; callers must not change the result)."""
    poses = [p.pose for p in places]
    index = {p.id: i for i, p in enumerate(places)}
    matrix = [[nav_cost(a, b) for b in poses] for a in poses]
    start = [nav_cost(start_pose, b) for b in poses]
    return index, matrix, start


class Navigator:
    """Where `Navigation C` leads in one episode, and the low-level cost of walking between places."""

    def __init__(self, scene: Scene, state: WorldState, tie_key: str, explore_budget: int) -> None:
        self.state = state
        self.explore_budget = explore_budget
        self.index, self.cost, self.start_cost = cost_table(scene.places, scene.start_pose)
        rng = random.Random(tie_key)
        self.tie = {p.id: rng.random() for p in scene.places}  # seeded exploration order among equal costs

    def dist(self, a: str | None, b: str) -> int:
        """Low-level steps from place `a` (None: the start pose) to place `b`."""
        if a is None:
            return self.start_cost[self.index[b]]
        return self.cost[self.index[a]][self.index[b]]

    def known_targets(self, cls: str, is_place: bool) -> list[str]:
        """Place ids where a `cls` is known: seen places of that class, or the places holding seen objects of it."""
        st = self.state
        if is_place:
            return [pid for pid in st.seen_places if st.places[pid].cls == cls]
        out = []
        for oid in st.seen_objs:
            o = st.objs.get(oid)
            if o is not None and o.cls == cls:
                root = st.root(o)
                if root != HAND and root not in out:
                    out.append(root)
        return out

    def resolve(self, cls: str) -> tuple[list[str], str]:
        """Places `Navigation cls` would walk through (last = destination) and a failure reason ('' if it arrives).

        Pure: changes nothing.
        """
        st = self.state
        cls = place_class(cls)
        is_place = cls in PLACE_RECEPTACLES or cls in LANDMARKS
        if cls not in NAVIGABLE:
            return [], f"cannot navigate to {cls}"
        at = st.at
        known = self.known_targets(cls, is_place)
        if known and at not in known:
            return [min(known, key=lambda p: (self.dist(at, p), self.tie[p]))], ""
        others = [p for p in known if p != at]
        if others and not is_place:  # another seen object of the class: the nearest one
            return [min(others, key=lambda p: (self.dist(at, p), self.tie[p]))], ""
        # explore unvisited places, cheapest first
        visited = set(st.visited)
        path: list[str] = []
        cur = at
        spent = 0
        unvisited = [p for p in st.places if p not in visited]
        while unvisited:
            nxt = min(unvisited, key=lambda p: (self.dist(cur, p), self.tie[p]))
            spent += self.dist(cur, nxt)
            if spent > self.explore_budget:
                if at in known:
                    return (path + [at] if path else []), ""
                return path, f"{cls} not found"
            path.append(nxt)
            unvisited.remove(nxt)
            cur = nxt
            if is_place:
                if st.places[nxt].cls == cls:
                    return path, ""
            elif any(o.cls == cls for o in st.visible(nxt)):
                return path, ""
        if at in known:
            if others:  # the whole room is known: go round the instances, least recently visited first
                last = st.last_visit
                return path + [min(others, key=lambda p: (last.get(p, -1), self.dist(cur, p), self.tie[p]))], ""
            return (path + [at] if path else []), ""  # no other one: the walk ends back at this one
        return path, f"{cls} not found"
