"""A scene's data, and a task's initial layout: the floorplan's places, and objects placed where ALFRED's expert
found them or by receptacle rules (before `household.expert.scene` settles it with the expert)."""
from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Mapping

from household.world.floorplans import Place, Pose, get_floorplan, synthetic_pose
from household.world.ontology import (
    CONTAINERS, KNIVES, LAMP_SURFACES, LANDMARKS, MOVABLE_RECEPTACLES, PICKUPABLE, PLACE_RECEPTACLES, SLICED_PARENT, STARTS_OPEN_CLASSES,
    accepts, canonical_class, place_class,
)
from household.world.tasks import Task

log = logging.getLogger(__name__)

APPLIANCE_OF_TYPE = {
    "pick_heat_then_place_in_recep": "Microwave",
    "pick_cool_then_place_in_recep": "Fridge",
    "pick_clean_then_place_in_recep": "SinkBasin",
}


STARTS_OPEN = STARTS_OPEN_CLASSES


@dataclass(frozen=True)
class ObjectSpec:
    """An object's initial state; `parent` is a place id or (inside a bowl, box...) another object's id."""

    id: str
    cls: str
    parent: str
    is_open: bool = False
    is_on: bool = False


@dataclass(frozen=True)
class Scene:
    """A task's initial world: places, objects, the agent's start pose and which objects the task is about."""

    floorplan: int
    places: tuple[Place, ...]
    objects: tuple[ObjectSpec, ...]
    start_pose: Pose
    roles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # role -> object ids (object, mrecep, ...)
    open_places: frozenset[str] = frozenset()
    on_places: frozenset[str] = frozenset()
    source: str = "alfred"


@dataclass(frozen=True)
class Need:
    """An object the ALFRED expert plan uses, and the receptacle class where the plan found it (None: unknown)."""

    cls: str
    hint: str | None


def plan_needs(task: Task) -> list[Need]:
    """Trace ALFRED's high_pddl: every object it picks up or slices, with the place class of the GotoLocation before."""
    needs: list[Need] = []
    loc: str | None = None
    put_at: list[tuple[str, str | None]] = []  # (class, place class) the plan put things at
    sliced: set[str] = set()
    for action, args in task.high_pddl:
        cls = [canonical_class(a) for a in args]
        if any(c is None for c in cls):
            continue
        if action == "GotoLocation" and cls:
            c = place_class(cls[0])
            loc = c if c in PLACE_RECEPTACLES or c in LANDMARKS else None
        elif action == "PickupObject" and cls:
            c = cls[0]
            if (c, loc) in put_at:
                put_at.remove((c, loc))
            elif c in sliced or c in SLICED_PARENT:
                pass  # picking up a piece of an apple the plan sliced
            elif loc is not None and any(n.cls == c and n.hint is None for n in needs):
                i = next(i for i, n in enumerate(needs) if n.cls == c and n.hint is None)
                needs[i] = Need(c, loc)  # now we know where the plan found it
            else:
                needs.append(Need(c, loc))
        elif action == "PutObject" and len(cls) == 2:
            target = place_class(cls[1])
            put_at.append((cls[0], target if target in PLACE_RECEPTACLES else None))
            if target in MOVABLE_RECEPTACLES and not any(n.cls == target for n in needs):
                needs.append(Need(target, None))
        elif action == "SliceObject" and cls:
            c = cls[0]
            if c not in sliced and not any(n.cls == c for n in needs):
                needs.append(Need(c, loc))
            sliced.add(c)
        elif action == "ToggleObject" and cls:
            c = cls[0]
            if c not in PLACE_RECEPTACLES and c not in LANDMARKS and not any(n.cls == c for n in needs):
                needs.append(Need(c, loc))
    return needs


class _Builder:
    """Mutable helper collecting places and objects while a scene is built."""

    def __init__(self, floorplan: int, rng: random.Random) -> None:
        self.fp = get_floorplan(floorplan)
        self.rng = rng
        self.places: list[Place] = list(self.fp.places)
        self.objects: list[ObjectSpec] = []
        self.counts: dict[str, int] = {}

    def places_of(self, cls: str) -> list[Place]:
        return [p for p in self.places if p.cls == cls]

    def ensure_place(self, cls: str) -> None:
        if cls and not self.places_of(cls):
            log.debug("floorplan %s lacks %s; adding one", self.fp.number, cls)
            pose = synthetic_pose(self.rng, [p.pose for p in self.places])
            self.places.append(Place(f"{cls}|{self.fp.number}|x", cls, pose))

    def add(self, cls: str, parent: str, **state: bool) -> str:
        n = self.counts.get(cls, 0) + 1
        self.counts[cls] = n
        oid = f"{cls}_{n}"
        self.objects.append(ObjectSpec(oid, cls, parent, **state))
        return oid

    def rule_place(self, cls: str, exclude: set[str], only_containers: bool = False) -> Place | None:
        """A seeded place accepting `cls` (ALFRED receptacle rules), avoiding the excluded classes."""
        if cls == "DeskLamp":
            cands = [p for p in self.places if p.cls in LAMP_SURFACES]
        else:
            cands = [p for p in self.places if accepts(p.cls, cls) and p.cls not in exclude]
        if only_containers:
            cands = [p for p in cands if p.cls in CONTAINERS]
        return self.rng.choice(cands) if cands else None


def initial_layout(task: Task, seed: int = 0) -> Scene:
    """The seeded, unsettled layout of an ALFRED task; the same (task, seed) always gives the same layout."""
    rng = random.Random(f"{task.id}|{seed}")
    b = _Builder(task.floorplan, rng)
    a = task.args
    x_cls, p_cls, m_cls, t_cls = a.object_target, a.parent_target, a.mrecep_target, a.toggle_target
    for cls in (p_cls, APPLIANCE_OF_TYPE.get(task.task_type, "")):
        b.ensure_place(place_class(cls))
    if t_cls in LANDMARKS:
        b.ensure_place(t_cls)
    needs = plan_needs(task)
    for n in needs:
        if n.hint:
            b.ensure_place(n.hint)
    # the task must be solvable even when ALFRED's plan is truncated: make sure its objects exist
    want = {x_cls: 2 if a.two_objects else 1}
    if m_cls:
        want[m_cls] = 1
    if a.object_sliced:
        want.setdefault("Knife", 0)
    if t_cls and t_cls not in LANDMARKS:
        want[t_cls] = 1
    have: dict[str, int] = {}
    for n in needs:
        have[n.cls] = have.get(n.cls, 0) + 1
    for cls, k in want.items():
        if cls == "Knife" and any(have.get(kn, 0) for kn in KNIVES):
            continue
        for _ in range(max(k, 1 if cls == "Knife" else k) - have.get(cls, 0)):
            needs.append(Need(cls, None))
    exclude = {x_cls: {place_class(p_cls), m_cls}, m_cls: {place_class(p_cls)}} if m_cls else {x_cls: {place_class(p_cls)}}
    exclude = {k: {c for c in v if c} for k, v in exclude.items()}
    roles: dict[str, list[str]] = {"object": [], "mrecep": [], "toggle": [], "knife": []}
    for n in needs:
        ex = exclude.get(n.cls, set())
        target = None
        if n.hint and n.hint not in ex:  # never start the task half done (ALFRED's hint may name P itself)
            target = rng.choice(b.places_of(n.hint))
        if target is None:
            target = b.rule_place(n.cls, ex)
        if target is None and ex:  # no accepting place outside the goal receptacle: any open surface will do
            free = [p for p in b.places if p.cls not in ex and p.cls not in CONTAINERS and p.cls not in LANDMARKS]
            target = rng.choice(free) if free else None
        if target is None:
            target = b.rule_place(n.cls, set())
        if target is None:
            target = rng.choice(b.places)
        oid = b.add(n.cls, target.id, is_open=n.cls in STARTS_OPEN)
        role = ("object" if n.cls == x_cls else "mrecep" if n.cls == m_cls else "toggle" if n.cls == t_cls
                else "knife" if n.cls in KNIVES else "")
        if role:
            roles[role].append(oid)
    # the rest of the room: one (sometimes two) of each pickupable class the floorplan has, by receptacle rules
    required = {n.cls for n in needs}
    for cls in sorted(b.fp.object_classes):
        if cls == "DeskLamp" and cls not in required:
            spot = b.rule_place(cls, set())
            if spot:
                b.add(cls, spot.id)
            continue
        if cls not in PICKUPABLE:
            continue
        ex = exclude.get(cls, set())
        if cls in required:
            # a distractor of a task class hides in a closed container, never in the goal receptacle
            if rng.random() < 0.5:
                spot = b.rule_place(cls, ex, only_containers=True)
                if spot:
                    b.add(cls, spot.id, is_open=cls in STARTS_OPEN)
            continue
        for _ in range(2 if rng.random() < 0.25 else 1):
            spot = b.rule_place(cls, ex)
            if spot:
                b.add(cls, spot.id, is_open=cls in STARTS_OPEN)
    for p in b.places:  # every sink basin has its faucet
        if p.cls == "SinkBasin":
            b.add("Faucet", p.id)
    start = synthetic_pose(rng, [p.pose for p in b.places])
    return Scene(task.floorplan, tuple(b.places), tuple(b.objects), start, {k: tuple(v) for k, v in roles.items()})
