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
from typing import Iterable, Iterator

from household.world.floorplans import Place, Pose, nav_cost
from household.world.layout import Scene
from household.world.ontology import LANDMARKS, MOVABLE_RECEPTACLES, PICKUPABLE, PLACE_RECEPTACLES, SLICES, place_class
from household.world.state import HAND, WorldState

NAVIGABLE: frozenset[str] = PLACE_RECEPTACLES | LANDMARKS | PICKUPABLE | MOVABLE_RECEPTACLES | {"DeskLamp", "Faucet"}


def walk_classes(seen: Iterable[str], named: Iterable[str], holding: str | None) -> set[str]:
    """The classes the paper planner may name in `Navigation C`: those seen, and those the task's arguments name (the
    world explores for an unseen one; a slice exists only once something is cut), never what is in hand (the legal
    set, planner/scaffold/legal.py, and the cost-to-go's walks, household/expert/cost_to_go.py, share this rule)."""
    out = set(seen) | {c for c in named if c not in SLICES}
    out.discard(holding)  # type: ignore[arg-type]
    return out


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
        self._rank: dict[str | None, dict[str, tuple[int, float]]] = {}  # from -> place -> (cost, tie); forks share it

    def on(self, state: WorldState) -> "Navigator":
        """The same navigator over another state (a forked world's): the scene's tables are shared."""
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.state = state
        return out

    def dist(self, a: str | None, b: str) -> int:
        """Low-level steps from place `a` (None: the start pose) to place `b`."""
        if a is None:
            return self.start_cost[self.index[b]]
        return self.cost[self.index[a]][self.index[b]]

    def nearest(self, a: str | None, places: Iterable[str]) -> str:
        """The place nearest to `a` (seeded tie-break)."""
        rank = self._rank.get(a)
        if rank is None:  # once per place of a scene: searches ask millions of times
            rank = self._rank[a] = {p: (self.dist(a, p), t) for p, t in self.tie.items()}
        return min(places, key=rank.__getitem__)

    def _known(self, is_place: bool) -> dict[str, list[str]]:
        """Per class, the place ids where one is known (seen places, or the places holding seen objects, in the
        order they were seen)."""
        st = self.state
        out: dict[str, list[str]] = {}
        if is_place:
            for pid in st.seen_places:
                out.setdefault(st.places[pid].cls, []).append(pid)
            return out
        for oid in st.seen_objs:
            o = st.objs.get(oid)
            if o is not None:
                root = st.root(o)
                where = out.setdefault(o.cls, [])
                if root != HAND and root not in where:
                    where.append(root)
        return out

    def resolve(self, cls: str) -> tuple[list[str], str]:
        """Places `Navigation cls` would walk through (last = destination) and a failure reason ('' if it arrives).

        Pure: changes nothing.
        """
        return self.resolve_all([cls])[cls]

    def resolve_all(self, classes: Iterable[str]) -> dict[str, tuple[list[str], str]]:
        """`resolve` of each class (the cost-to-go asks for every walk of a state): what is known and the order of
        exploration are worked out once."""
        st = self.state
        at = st.at
        known_at: dict[bool, dict[str, list[str]]] = {}
        chain = _Exploration(self)
        out: dict[str, tuple[list[str], str]] = {}
        for asked in classes:
            cls = place_class(asked)
            is_place = cls in PLACE_RECEPTACLES or cls in LANDMARKS
            if cls not in NAVIGABLE:
                out[asked] = [], f"cannot navigate to {cls}"
                continue
            if is_place not in known_at:
                known_at[is_place] = self._known(is_place)
            known = known_at[is_place].get(cls, [])
            if known and at not in known:
                out[asked] = [self.nearest(at, known)], ""
                continue
            others = [p for p in known if p != at]
            if others and not is_place:  # another seen object of the class: the nearest one
                out[asked] = [self.nearest(at, others)], ""
                continue
            out[asked] = self._explore(cls, is_place, known, others, chain)
        return out

    def _explore(self, cls: str, is_place: bool, known: list[str], others: list[str], chain: "_Exploration"
                 ) -> tuple[list[str], str]:
        """`Navigation cls` when it explores: along the chain until a `cls` is seen; at a known one with the room
        explored, round the known instances; else back where it started, or "not found"."""
        st, at = self.state, self.state.at
        path: list[str] = []
        for nxt in chain:
            path.append(nxt)
            if is_place:
                if st.places[nxt].cls == cls:
                    return path, ""
            elif any(o.cls == cls for o in st.visible(nxt)):
                return path, ""
        if chain.cut:
            if at in known:
                return (path + [at] if path else []), ""
            return path, f"{cls} not found"
        if at in known:
            if others:  # the whole room is known: go round the instances, least recently visited first
                last = st.last_visit
                cur = path[-1] if path else at
                return path + [min(others, key=lambda p: (last.get(p, -1), self.dist(cur, p), self.tie[p]))], ""
            return (path + [at] if path else []), ""  # no other one: the walk ends back at this one
        return path, f"{cls} not found"


class _Exploration:
    """Exploration from where the agent stands, worked out as far as asked: the unvisited places, each the cheapest
    from the one before (seeded tie-break), while the steps spent stay within `explore_budget`; `cut` once the
    budget ran out before every place was visited."""

    def __init__(self, nav: Navigator) -> None:
        self.nav = nav
        self.places: list[str] = []
        self.unvisited = [p for p in nav.state.places if p not in nav.state.visited]
        self.cur, self.spent, self.cut = nav.state.at, 0, False

    def __iter__(self) -> Iterator[str]:
        i = 0
        while i < len(self.places) or self._extend():
            yield self.places[i]
            i += 1

    def _extend(self) -> bool:
        nav = self.nav
        if self.cut or not self.unvisited:
            return False
        nxt = nav.nearest(self.cur, self.unvisited)
        self.spent += nav.dist(self.cur, nxt)
        if self.spent > nav.explore_budget:
            self.cut = True
            return False
        self.places.append(nxt)
        self.unvisited.remove(nxt)
        self.cur = nxt
        return True
