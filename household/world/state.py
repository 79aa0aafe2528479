"""World state inside one episode: objects, their holders, the agent's place and hand, and what it has seen.

Public to the other household modules: the stepping `World`, the goal conditions, navigation and the expert all
read it through the queries below. Only the `World` changes it (through `move`, `see` and `arrive`).
"""
from __future__ import annotations

from typing import Iterator

from household.world.floorplans import Place
from household.world.layout import Scene
from household.world.ontology import CONTAINERS, MOVABLE_RECEPTACLES, TOGGLEABLE

HAND = "#hand"  # the holder of whatever the agent carries


class Obj:
    """Mutable object state inside an episode; `parent` is a place id, another object's id or HAND."""

    __slots__ = ("id", "cls", "parent", "is_open", "is_on", "heated", "cooled", "cleaned")

    def __init__(self, oid: str, cls: str, parent: str, is_open: bool, is_on: bool) -> None:
        self.id, self.cls, self.parent, self.is_open, self.is_on = oid, cls, parent, is_open, is_on
        self.heated = self.cooled = self.cleaned = False


class WorldState:
    """Places, objects and holders of a scene in play, with the agent's position, hand and knowledge."""

    def __init__(self, scene: Scene) -> None:
        self.places: dict[str, Place] = {p.id: p for p in scene.places}
        self.objs: dict[str, Obj] = {}
        self.children: dict[str, list[str]] = {}  # holder id -> ids of the objects directly in/on it
        for spec in scene.objects:
            self.objs[spec.id] = Obj(spec.id, spec.cls, spec.parent, spec.is_open, spec.is_on)
            self.children.setdefault(spec.parent, []).append(spec.id)
        # open/on flags of places (objects carry their own)
        self.open = {p.id: p.id in scene.open_places for p in scene.places if p.cls in CONTAINERS}
        self.on = {p.id: p.id in scene.on_places for p in scene.places if p.cls in TOGGLEABLE}
        self.at: str | None = None  # place id the agent stands at (None: the start pose)
        self.holding: str | None = None  # id of the object in hand
        self.visited: set[str] = set()
        self.seen_places: dict[str, None] = {}  # insertion-ordered sets: the observation lists in seen order
        self.seen_objs: dict[str, None] = {}
        self.last_visit: dict[str, int] = {}  # place id -> low-level step of the last arrival

    # ------------------------------------------------------------------ queries
    def held(self) -> Obj | None:
        """The object in hand, if any."""
        return self.objs[self.holding] if self.holding else None

    def objects_of(self, cls: str) -> list[Obj]:
        """Every object of a class."""
        return [o for o in self.objs.values() if o.cls == cls]

    def ancestors(self, o: Obj) -> Iterator[str]:
        """Holders around an object, innermost first (object ids, then a place id; nothing when in hand)."""
        parent = o.parent
        while parent != HAND:
            yield parent
            nxt = self.objs.get(parent)
            if nxt is None:
                return
            parent = nxt.parent

    def root(self, o: Obj) -> str:
        """Place id holding the object (through bowls, boxes), or HAND."""
        parent = o.parent
        while parent in self.objs:
            parent = self.objs[parent].parent
        return parent

    def holder_cls(self, holder: str) -> str:
        """Class of a holder id (a place or an object)."""
        p = self.places.get(holder)
        return p.cls if p is not None else self.objs[holder].cls

    def inside_cls(self, o: Obj, cls: str) -> bool:
        """Whether some holder around the object is of class `cls`."""
        for anc in self.ancestors(o):
            p = self.places.get(anc)
            if (p.cls if p is not None else self.objs[anc].cls) == cls:
                return True
        return False

    def inside_obj(self, o: Obj, oid: str) -> bool:
        """Whether the object is (at any depth) inside object `oid`."""
        return any(anc == oid for anc in self.ancestors(o))

    def ancestor_places(self, o: Obj, cls: str) -> list[str]:
        """Place ids of class `cls` around the object."""
        return [a for a in self.ancestors(o) if a in self.places and self.places[a].cls == cls]

    def is_closed(self, holder: str) -> bool:
        """Whether a holder (place or object) is a closed container."""
        if holder in self.places:
            return not self.open.get(holder, True)
        o = self.objs[holder]
        return o.cls in CONTAINERS and not o.is_open

    def visible(self, place_id: str) -> list[Obj]:
        """Objects the agent sees standing at a place: not inside anything closed."""
        if self.is_closed(place_id):
            return []
        out: list[Obj] = []
        stack = list(self.children.get(place_id, ()))
        while stack:
            o = self.objs[stack.pop()]
            out.append(o)
            if o.cls in MOVABLE_RECEPTACLES and not (o.cls in CONTAINERS and not o.is_open):
                stack.extend(self.children.get(o.id, ()))
        return out

    def contents(self, holder: str) -> list[Obj]:
        """Everything inside a holder, at any depth (what an appliance acts on)."""
        out: list[Obj] = []
        stack = list(self.children.get(holder, ()))
        while stack:
            o = self.objs[stack.pop()]
            out.append(o)
            stack.extend(self.children.get(o.id, ()))
        return out

    def find_here(self, cls: str) -> Obj | None:
        """A visible instance of `cls` where the agent stands (direct contents first)."""
        if self.at is None:
            return None
        best = None
        for o in self.visible(self.at):
            if o.cls == cls:
                if o.parent == self.at:
                    return o
                best = best or o
        return best

    def lamp_on_here(self, cls: str) -> bool:
        """Some lamp of class `cls` is on where the agent stands (visible)."""
        at = self.at
        if at is None:
            return False
        if self.places[at].cls == cls and self.on.get(at):
            return True
        return any(o.cls == cls and o.is_on for o in self.visible(at))

    def snapshot(self) -> tuple:
        """A hashable snapshot (objects, containers, toggles, agent place, holding)."""
        objs = tuple(sorted((o.id, o.cls, o.parent, o.is_open, o.is_on, o.heated, o.cooled, o.cleaned)
                            for o in self.objs.values()))
        return (objs, tuple(sorted(self.open.items())), tuple(sorted(self.on.items())), self.at, self.holding)

    def copy(self) -> "WorldState":
        """An independent copy (objects, holders, flags, place, hand and knowledge); places are shared (frozen)."""
        out = WorldState.__new__(WorldState)
        out.places = self.places
        out.objs = {}
        for oid, o in self.objs.items():
            c = Obj(o.id, o.cls, o.parent, o.is_open, o.is_on)
            c.heated, c.cooled, c.cleaned = o.heated, o.cooled, o.cleaned
            out.objs[oid] = c
        out.children = {k: list(v) for k, v in self.children.items()}
        out.open, out.on = dict(self.open), dict(self.on)
        out.at, out.holding = self.at, self.holding
        out.visited = set(self.visited)
        out.seen_places, out.seen_objs = dict(self.seen_places), dict(self.seen_objs)
        out.last_visit = dict(self.last_visit)
        return out

    # ------------------------------------------------------------------ changes
    def move(self, o: Obj, parent: str) -> None:
        """Put an object into/onto another holder (HAND: into the agent's hand)."""
        self.children[o.parent].remove(o.id)
        o.parent = parent
        self.children.setdefault(parent, []).append(o.id)

    def add(self, o: Obj) -> None:
        """A new object (a slice) appears in its parent."""
        self.objs[o.id] = o
        self.children.setdefault(o.parent, []).append(o.id)

    def remove(self, o: Obj) -> None:
        """An object leaves the world (sliced into pieces)."""
        self.children[o.parent].remove(o.id)
        del self.objs[o.id]

    def see(self, objs: list[Obj]) -> None:
        """Add objects to what the agent has seen."""
        seen = self.seen_objs
        for o in objs:
            if o.id not in seen:
                seen[o.id] = None

    def arrive(self, pid: str, step: int) -> None:
        """The agent arrives at a place at low-level step `step` and looks around."""
        self.at = pid
        self.visited.add(pid)
        self.last_visit[pid] = step
        if pid not in self.seen_places:
            self.seen_places[pid] = None
        self.see(self.visible(pid))
