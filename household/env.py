"""The symbolic, partially observable ALFRED world: sub-goal execution with ALFRED's preconditions and effects.

Conventions (documented here because planners rely on them):
- Low-level steps count THOR actions: navigation costs grid moves (0.25 m), 90-degree turns and 15-degree looks
  between the floorplans' recorded agent poses; every interaction attempt (successful or not) costs one step.
- A failed interaction changes nothing in the world. A failed `Navigation` (exploration ran out of budget or room)
  still costs the steps walked and keeps what was seen on the way: the agent did walk and look.
- `Navigation C`: goes to the nearest place where C is known (a visited receptacle of class C, or a seen object
  of class C; staying put if the agent is at one). If C is unknown it explores unvisited receptacles, cheapest
  first (seeded tie-break), until a C is seen, within `explore_budget` steps, else fails "C not found".
  Standing at a C receptacle, `Navigation C` means "another C": the least recently visited other known one, or
  exploration for a new one; if there is none the walk ends back where it started (still a success).
- Heat: objects in a microwave when it is toggled on, or put into one that is on. Cool: objects in a fridge when
  it is closed (ALFRED counts cooling on CloseObject). Clean: objects in a sink basin when its faucet is toggled
  on, or put into a basin whose faucet runs. These are histories, as in ALFRED.
- The episode ends on `Stop`, when every goal condition is met (`stop_on_success`), after `max_fails` failed
  sub-goals or `max_steps` low-level steps.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Iterator

from household.floorplans import Place, nav_cost
from household.goals import count_met
from household.ontology import (
    CONTAINERS, KNIVES, LAMPS, LANDMARKS, MOVABLE_RECEPTACLES, OBJECTS, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES,
    SLICEABLE, SLICED_OF, TOGGLEABLE, accepts, canonical_class, place_class,
)
from household.scene import Scene, build_scene
from household.subgoals import ACTIONS, ARITY, SubGoal, parse_subgoal
from household.tasks import Task

HAND = "#hand"
N_SLICES = 3  # pieces a slice produces (ALFRED makes ~7; two are enough for every goal)
NAVIGABLE: frozenset[str] = PLACE_RECEPTACLES | LANDMARKS | PICKUPABLE | MOVABLE_RECEPTACLES | {"DeskLamp", "Faucet"}


@dataclass(frozen=True)
class Observation:
    """What the agent knows: every object/receptacle class seen so far with its state, where it is, what it holds."""

    objects: tuple[str, ...]
    location: str | None
    holding: str | None

    def text(self) -> str:
        """One compact line for an LLM prompt."""
        seen = ", ".join(self.objects) if self.objects else "nothing yet"
        return f"At: {self.location or 'start'}. Holding: {self.holding or 'nothing'}. Seen: {seen}."


@dataclass(frozen=True)
class StepResult:
    """Outcome of one sub-goal: ok, the failure reason ('' when ok), the new observation, whether the episode ended."""

    ok: bool
    reason: str
    observation: Observation
    done: bool


class _Obj:
    """Mutable object state inside an episode."""

    __slots__ = ("id", "cls", "parent", "is_open", "is_on", "heated", "cooled", "cleaned")

    def __init__(self, oid: str, cls: str, parent: str, is_open: bool, is_on: bool) -> None:
        self.id, self.cls, self.parent, self.is_open, self.is_on = oid, cls, parent, is_open, is_on
        self.heated = self.cooled = self.cleaned = False


def _cost_table(scene: Scene) -> tuple[dict[str, int], list[list[int]], list[int]]:
    """Pairwise navigation costs between the scene's places (cached on the scene: scenes are immutable)."""
    cached = scene.__dict__.get("_costs")
    if cached is None:
        poses = [p.pose for p in scene.places]
        index = {p.id: i for i, p in enumerate(scene.places)}
        matrix = [[nav_cost(a, b) for b in poses] for a in poses]
        start = [nav_cost(scene.start_pose, b) for b in poses]
        cached = (index, matrix, start)
        object.__setattr__(scene, "_costs", cached)
    return cached


class Env:
    """One episode of a task in the symbolic household world."""

    def __init__(self, task: Task, seed: int = 0, max_fails: int = 10, max_steps: int = 1000,
                 scene: Scene | None = None, explore_budget: int = 400, stop_on_success: bool = True) -> None:
        self.task = task
        self.seed = seed
        self.max_fails = max_fails
        self.max_steps = max_steps
        self.explore_budget = explore_budget
        self.stop_on_success = stop_on_success
        self.scene = scene if scene is not None else build_scene(task, seed)
        self._index, self._cost, self._start_cost = _cost_table(self.scene)
        self._places: dict[str, Place] = {p.id: p for p in self.scene.places}
        rng = random.Random(f"explore|{task.id}|{seed}")
        self._tie = {p.id: rng.random() for p in self.scene.places}  # seeded exploration order among equal costs
        self._objs: dict[str, _Obj] = {}
        self._children: dict[str, list[str]] = {}
        for spec in self.scene.objects:
            self._objs[spec.id] = _Obj(spec.id, spec.cls, spec.parent, spec.is_open, spec.is_on)
            self._children.setdefault(spec.parent, []).append(spec.id)
        self._open = {p.id: p.id in self.scene.open_places for p in self.scene.places if p.cls in CONTAINERS}
        self._on = {p.id: p.id in self.scene.on_places for p in self.scene.places if p.cls in TOGGLEABLE}
        self._at: str | None = None
        self._holding: str | None = None
        self._visited: set[str] = set()
        self._seen_places: dict[str, None] = {}
        self._seen_objs: dict[str, None] = {}
        self._last_visit: dict[str, int] = {}
        self._slice_count = 0
        self.low_steps = 0
        self.failed_subgoals = 0
        self.subgoals_executed = 0
        self.history: list[tuple[str, bool, str]] = []
        self._done_reason = ""
        self._version = 0
        self._obs_cache: tuple[int, Observation] | None = None

    # ------------------------------------------------------------------ public state
    @property
    def done(self) -> bool:
        """Whether the episode has ended."""
        return bool(self._done_reason)

    @property
    def done_reason(self) -> str:
        """'' while running; else 'success', 'stop', 'max_fails' or 'max_steps'."""
        return self._done_reason

    @property
    def success(self) -> bool:
        """Every goal condition met (ALFRED's SR criterion)."""
        met, total = self.goal_conditions()
        return met == total

    def goal_conditions(self) -> tuple[int, int]:
        """(met, total) goal conditions, as ALFRED counts them."""
        return count_met(self)

    def observe(self) -> Observation:
        """The current observation (only what the agent has seen)."""
        if self._obs_cache is not None and self._obs_cache[0] == self._version:
            return self._obs_cache[1]
        texts: dict[str, None] = {}
        for pid in self._seen_places:
            texts[self._place_text(pid)] = None
        objs = self._objs
        for oid in self._seen_objs:
            o = objs.get(oid)
            if o is not None:
                texts[self._obj_text(o)] = None
        held = objs[self._holding].cls if self._holding else None
        obs = Observation(tuple(texts), self._places[self._at].cls if self._at else None, held)
        self._obs_cache = (self._version, obs)
        return obs

    # ------------------------------------------------------------------ stepping
    def step(self, subgoal: str | SubGoal) -> StepResult:
        """Execute one sub-goal; failures return a short reason and leave the world unchanged."""
        if self._done_reason:
            return StepResult(False, f"episode is over ({self._done_reason})", self.observe(), True)
        text = str(subgoal)
        sg = subgoal if isinstance(subgoal, SubGoal) else parse_subgoal(subgoal)
        if sg is None:
            reason = _diagnose(text)
        else:
            reason = self._dispatch(sg)
            text = str(sg)
        self.subgoals_executed += 1
        ok = not reason
        self.history.append((text, ok, reason))
        if not ok:
            self.failed_subgoals += 1
        self._version += 1
        if sg is not None and sg.action == "Stop" and ok:
            self._done_reason = "stop"
        elif self.stop_on_success and ok and self.success:
            self._done_reason = "success"
        elif self.failed_subgoals >= self.max_fails:
            self._done_reason = "max_fails"
        elif self.low_steps >= self.max_steps:
            self._done_reason = "max_steps"
        return StepResult(ok, reason, self.observe(), bool(self._done_reason))

    def _dispatch(self, sg: SubGoal) -> str:
        act = sg.action
        if act == "Navigation":
            return self._navigate(sg.args[0])
        if act == "Stop":
            return ""
        self.low_steps += 1  # every interaction attempt is one THOR action
        if act == "PickupObject":
            return self._pickup(sg.args[0])
        if act == "PutObject":
            return self._put(sg.args[0], sg.args[1])
        if act == "OpenObject":
            return self._open_close(sg.args[0], True)
        if act == "CloseObject":
            return self._open_close(sg.args[0], False)
        if act == "ToggleObjectOn":
            return self._toggle(sg.args[0], True)
        if act == "ToggleObjectOff":
            return self._toggle(sg.args[0], False)
        if act == "SliceObject":
            return self._slice(sg.args[0])
        return f"unknown action {act!r}"

    # ------------------------------------------------------------------ world queries
    def _held(self) -> _Obj | None:
        return self._objs[self._holding] if self._holding else None

    def _objects_of(self, cls: str) -> list[_Obj]:
        return [o for o in self._objs.values() if o.cls == cls]

    def _ancestors(self, o: _Obj) -> Iterator[str]:
        parent = o.parent
        while parent != HAND:
            yield parent
            nxt = self._objs.get(parent)
            if nxt is None:
                return
            parent = nxt.parent

    def _root(self, o: _Obj) -> str:
        """Place id holding the object (through bowls, boxes), or HAND."""
        parent = o.parent
        while parent in self._objs:
            parent = self._objs[parent].parent
        return parent

    def _inside_cls(self, o: _Obj, cls: str) -> bool:
        for anc in self._ancestors(o):
            p = self._places.get(anc)
            if (p.cls if p is not None else self._objs[anc].cls) == cls:
                return True
        return False

    def _inside_obj(self, o: _Obj, oid: str) -> bool:
        return any(anc == oid for anc in self._ancestors(o))

    def _ancestor_places(self, o: _Obj, cls: str) -> list[str]:
        return [a for a in self._ancestors(o) if a in self._places and self._places[a].cls == cls]

    def _lamp_on_here(self, cls: str) -> bool:
        """Some lamp of class `cls` is on where the agent stands (visible)."""
        at = self._at
        if at is None:
            return False
        if self._places[at].cls == cls and self._on.get(at):
            return True
        return any(o.cls == cls and o.is_on for o in self._visible(at))

    def _is_closed(self, holder: str) -> bool:
        if holder in self._places:
            return not self._open.get(holder, True)
        o = self._objs[holder]
        return o.cls in CONTAINERS and not o.is_open

    def _visible(self, place_id: str) -> list[_Obj]:
        """Objects the agent sees standing at a place: not inside anything closed."""
        if self._is_closed(place_id):
            return []
        out: list[_Obj] = []
        stack = list(self._children.get(place_id, ()))
        while stack:
            o = self._objs[stack.pop()]
            out.append(o)
            if o.cls in MOVABLE_RECEPTACLES and not (o.cls in CONTAINERS and not o.is_open):
                stack.extend(self._children.get(o.id, ()))
        return out

    def _contents(self, holder: str) -> list[_Obj]:
        """Everything inside a holder, at any depth (what an appliance acts on)."""
        out: list[_Obj] = []
        stack = list(self._children.get(holder, ()))
        while stack:
            o = self._objs[stack.pop()]
            out.append(o)
            stack.extend(self._children.get(o.id, ()))
        return out

    def _find_here(self, cls: str) -> _Obj | None:
        """A visible instance of `cls` where the agent stands (direct contents first)."""
        if self._at is None:
            return None
        best = None
        for o in self._visible(self._at):
            if o.cls == cls:
                if o.parent == self._at:
                    return o
                best = best or o
        return best

    # ------------------------------------------------------------------ knowledge
    def _see(self, objs: list[_Obj]) -> None:
        seen = self._seen_objs
        for o in objs:
            if o.id not in seen:
                seen[o.id] = None

    def _arrive(self, pid: str) -> None:
        self._at = pid
        self._visited.add(pid)
        self._last_visit[pid] = self.low_steps
        if pid not in self._seen_places:
            self._seen_places[pid] = None
        self._see(self._visible(pid))

    def _place_text(self, pid: str) -> str:
        p = self._places[pid]
        states = []
        if pid in self._open:
            states.append("open" if self._open[pid] else "closed")
        if pid in self._on:
            states.append("on" if self._on[pid] else "off")
        return f"{p.cls} ({', '.join(states)})" if states else p.cls

    @staticmethod
    def _obj_text(o: _Obj) -> str:
        states = []
        if o.cls in OPENABLE:
            states.append("open" if o.is_open else "closed")
        if o.cls in TOGGLEABLE:
            states.append("on" if o.is_on else "off")
        if o.heated:
            states.append("hot")
        if o.cooled:
            states.append("cold")
        if o.cleaned:
            states.append("clean")
        return f"{o.cls} ({', '.join(states)})" if states else o.cls

    # ------------------------------------------------------------------ navigation
    def _dist(self, a: str | None, b: str) -> int:
        if a is None:
            return self._start_cost[self._index[b]]
        return self._cost[self._index[a]][self._index[b]]

    def _known_targets(self, cls: str, is_place: bool) -> list[str]:
        if is_place:
            return [pid for pid in self._seen_places if self._places[pid].cls == cls]
        out = []
        for oid in self._seen_objs:
            o = self._objs.get(oid)
            if o is not None and o.cls == cls:
                root = self._root(o)
                if root != HAND and root not in out:
                    out.append(root)
        return out

    def resolve_navigation(self, cls: str) -> tuple[list[str], str]:
        """Places `Navigation cls` would walk through (last = destination) and a failure reason ('' if it arrives).

        Pure: changes nothing. The expert uses it to pick class-level sub-goals that reach a given place.
        """
        cls = place_class(cls)
        is_place = cls in PLACE_RECEPTACLES or cls in LANDMARKS
        if cls not in NAVIGABLE:
            return [], f"cannot navigate to {cls}"
        at = self._at
        known = self._known_targets(cls, is_place)
        if known and not (is_place and at in known):
            if at in known:
                return [], ""
            return [min(known, key=lambda p: (self._dist(at, p), self._tie[p]))], ""
        # explore unvisited places, cheapest first
        visited = set(self._visited)
        path: list[str] = []
        cur = at
        spent = 0
        unvisited = [p for p in self._places if p not in visited]
        while unvisited:
            nxt = min(unvisited, key=lambda p: (self._dist(cur, p), self._tie[p]))
            spent += self._dist(cur, nxt)
            if spent > self.explore_budget:
                if is_place and at in known:
                    return (path + [at] if path else []), ""
                return path, f"{cls} not found"
            path.append(nxt)
            unvisited.remove(nxt)
            cur = nxt
            if is_place:
                if self._places[nxt].cls == cls:
                    return path, ""
            elif any(o.cls == cls for o in self._visible(nxt)):
                return path, ""
        if is_place and at in known:
            others = [p for p in known if p != at]
            if others:  # the whole room is known: go round the instances, least recently visited first
                last = self._last_visit
                return path + [min(others, key=lambda p: (last.get(p, -1), self._dist(cur, p), self._tie[p]))], ""
            return (path + [at] if path else []), ""  # no other one: the walk ends back at this one
        return path, f"{cls} not found"

    def _navigate(self, cls: str) -> str:
        path, reason = self.resolve_navigation(cls)
        cur = self._at
        for pid in path:
            self.low_steps += self._dist(cur, pid)
            self._arrive(pid)
            cur = pid
        return reason

    # ------------------------------------------------------------------ interactions
    def _move(self, o: _Obj, parent: str) -> None:
        self._children[o.parent].remove(o.id)
        o.parent = parent
        self._children.setdefault(parent, []).append(o.id)

    def _pickup(self, cls: str) -> str:
        if cls not in PICKUPABLE:
            return f"{cls} cannot be picked up"
        if self._holding:
            return f"already holding {self._objs[self._holding].cls}"
        o = self._find_here(cls)
        if o is None and cls in SLICED_OF:  # "PickupObject Apple" after slicing it means a piece
            o = self._find_here(SLICED_OF[cls])
        if o is None:
            for oid in self._seen_objs:  # known to be here but shut in: say so (the agent saw it)
                k = self._objs.get(oid)
                if k is not None and k.cls == cls and self._root(k) == self._at:
                    for anc in self._ancestors(k):
                        if self._is_closed(anc):
                            return f"{self._holder_cls(anc)} is closed"
            return f"{cls} not found"
        self._move(o, HAND)
        self._holding = o.id
        return ""

    def _holder_cls(self, holder: str) -> str:
        p = self._places.get(holder)
        return p.cls if p is not None else self._objs[holder].cls

    def _put(self, cls: str, recep: str) -> str:
        held = self._held()
        if held is None:
            return "not holding anything"
        if held.cls != cls and SLICED_OF.get(cls) != held.cls:
            return f"holding {held.cls}, not {cls}"
        recep = place_class(recep)
        if self._at is None:
            return f"{recep} not here"
        if self._places[self._at].cls == recep:
            holder = self._at
        elif recep in MOVABLE_RECEPTACLES:
            target = self._find_here(recep)
            if target is None:
                return f"{recep} not found"
            holder = target.id
        else:
            return f"{recep} not here" if recep in PLACE_RECEPTACLES else f"{recep} is not a receptacle"
        if self._is_closed(holder):
            return f"{recep} is closed"
        if not accepts(recep, held.cls):
            return f"{recep} cannot hold {held.cls}"
        self._move(held, holder)
        self._holding = None
        self._apply_appliances(holder, [held] + self._contents(held.id))
        self._see([held] + self._contents(held.id))
        return ""

    def _apply_appliances(self, holder: str, objs: list[_Obj]) -> None:
        """Putting into a running microwave heats; into a basin under a running faucet cleans."""
        root = holder if holder in self._places else self._root(self._objs[holder])
        place = self._places.get(root)
        if place is None:
            return
        if place.cls == "Microwave" and self._on.get(root):
            for o in objs:
                o.heated = True
        elif place.cls == "SinkBasin" and any(f.cls == "Faucet" and f.is_on for f in self._contents(root)):
            for o in objs:
                o.cleaned = True

    def _target_here(self, cls: str) -> tuple[str, _Obj | None] | None:
        """The place (if the agent stands at a `cls`) or a visible object of `cls` here."""
        if self._at is None:
            return None
        if self._places[self._at].cls == cls:
            return self._at, None
        o = self._find_here(cls)
        return (o.id, o) if o is not None else None

    def _switch(self, cls: str, want: bool, allowed: frozenset[str] | set[str], verb: str, attr: str,
                store: dict, words: tuple[str, str]) -> tuple[str, Any, Any]:
        """Flip an open/on flag of a `cls` here: (error, key, object); error '' when flipped."""
        if cls not in allowed:
            return f"{cls} cannot be {verb}", None, None
        hit = self._target_here(cls)
        if hit is None:
            return (f"{cls} not here" if cls in PLACE_RECEPTACLES else f"{cls} not found"), None, None
        key, obj = hit
        current = getattr(obj, attr) if obj is not None else store[key]
        if current == want:
            return f"{cls} is already {words[0] if want else words[1]}", None, None
        if obj is not None:
            setattr(obj, attr, want)
        else:
            store[key] = want
        return "", key, obj

    def _open_close(self, cls: str, want_open: bool) -> str:
        err, key, _ = self._switch(cls, want_open, OPENABLE, "opened" if want_open else "closed", "is_open",
                                   self._open, ("open", "closed"))
        if err:
            return err
        if want_open:
            self._see(self._visible(self._at))
        elif cls == "Fridge":
            for o in self._contents(key):
                o.cooled = True
        return ""

    def _toggle(self, cls: str, on: bool) -> str:
        err, key, obj = self._switch(cls, on, TOGGLEABLE, "toggled", "is_on", self._on, ("on", "off"))
        if err:
            return err
        if on and cls == "Microwave":
            for o in self._contents(key):
                o.heated = True
        elif on and cls == "Faucet" and obj is not None:
            for o in self._contents(obj.parent):
                if o is not obj:
                    o.cleaned = True
        return ""

    def _slice(self, cls: str) -> str:
        if cls not in SLICEABLE:
            return f"{cls} cannot be sliced"
        held = self._held()
        if held is None or held.cls not in KNIVES:
            return "no Knife in hand"
        o = self._find_here(cls)
        if o is None:
            return f"{cls} not found"
        parent = o.parent
        self._children[parent].remove(o.id)
        del self._objs[o.id]
        sliced_cls = SLICED_OF[cls]
        pieces = []
        for _ in range(N_SLICES):
            self._slice_count += 1
            piece = _Obj(f"{sliced_cls}_{self._slice_count}", sliced_cls, parent, False, False)
            self._objs[piece.id] = piece
            self._children[parent].append(piece.id)
            pieces.append(piece)
        self._see(pieces)
        return ""

    # ------------------------------------------------------------------ snapshots (tests, expert)
    def world_state(self) -> tuple:
        """A hashable snapshot of the world (objects, containers, toggles, agent place, holding)."""
        objs = tuple(sorted((o.id, o.cls, o.parent, o.is_open, o.is_on, o.heated, o.cooled, o.cleaned)
                            for o in self._objs.values()))
        return (objs, tuple(sorted(self._open.items())), tuple(sorted(self._on.items())), self._at, self._holding)

    @property
    def location_id(self) -> str | None:
        """Id of the place the agent stands at (for tools and tests; not part of the observation)."""
        return self._at


_WORD = re.compile(r"[A-Za-z]+")


def _diagnose(text: str) -> str:
    """Reason a sub-goal text does not parse: unknown action, unknown class or wrong number of arguments."""
    words = _WORD.findall(text or "")
    if not words:
        return "empty sub-goal"
    head = words[0]
    action = next((a for a in ACTIONS if a.lower() == head.lower()), None)
    if action is None and parse_subgoal(head + " Apple" * 2) is None and parse_subgoal(head) is None \
            and parse_subgoal(head + " Apple") is None:
        return f"unknown action {head!r}"
    action = action or head
    rest = words[1:]
    unknown = [w for w in rest if canonical_class(w) is None]
    if unknown and not any(canonical_class("".join(rest[i:j])) for i in range(len(rest))
                           for j in range(i + 2, len(rest) + 1)):
        return f"unknown class {unknown[0]!r}"
    want = ARITY.get(action, 1)
    return f"{action} takes {want} argument{'s' if want != 1 else ''}"


__all__ = ["Env", "Observation", "StepResult", "OBJECTS", "LAMPS"]
