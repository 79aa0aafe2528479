"""Stepping: one episode of a task over a prebuilt scene, executing sub-goals with ALFRED's preconditions and effects.

Conventions (documented here because planners rely on them):
- Low-level steps count THOR actions: navigation costs grid moves (0.25 m), 90-degree turns and 15-degree looks
  between the floorplans' recorded agent poses; every interaction attempt (successful or not) costs one step.
- A failed interaction changes nothing in the world. A failed `Navigation` (exploration ran out of budget or room)
  still costs the steps walked and keeps what was seen on the way: the agent did walk and look.
- `Navigation C`: see `household.world.navigation`.
- Heat: objects in a microwave when it is toggled on, or put into one that is on. Cool: objects in a fridge when
  it is closed (ALFRED counts cooling on CloseObject). Clean: objects in a sink basin when its faucet is toggled
  on, or put into a basin whose faucet runs. These are histories, as in ALFRED.
- The episode ends on `Stop`, when every goal condition is met (`stop_on_success`), after `max_fails` failed
  sub-goals or `max_steps` low-level steps.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from household.world.goals import count_met
from household.world.layout import Scene
from household.world.navigation import Navigator
from household.world.ontology import (
    KNIVES, MOVABLE_RECEPTACLES, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES, SLICEABLE, SLICED_OF, TOGGLEABLE, accepts,
    canonical_class, place_class,
)
from household.world.state import HAND, Obj, WorldState
from household.world.subgoals import ACTIONS, ARITY, SubGoal, parse_subgoal
from household.world.tasks import Task

N_SLICES = 3  # pieces a slice produces (ALFRED makes ~7; two are enough for every goal)


@dataclass(frozen=True)
class Observation:
    """What the agent knows: every object/receptacle class seen so far with its state, where it is, what it holds."""

    objects: tuple[str, ...]
    location: str | None
    holding: str | None
    # What the agent sees where it stands: the place (with its state) and the objects visible there.
    here: tuple[str, ...] = ()
    # Where each seen object is, as last observed: (object text, place class); the agent moves objects only itself.
    located: tuple[tuple[str, str], ...] = ()

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


class World:
    """One episode of a task in the symbolic household world, over a scene built beforehand."""

    def __init__(self, task: Task, scene: Scene, seed: int = 0, max_fails: int = 10, max_steps: int = 1000,
                 explore_budget: int = 400, stop_on_success: bool = True) -> None:
        self.task = task
        self.scene = scene
        self.seed = seed
        self.max_fails = max_fails
        self.max_steps = max_steps
        self.explore_budget = explore_budget
        self.stop_on_success = stop_on_success
        self.state = WorldState(scene)
        self.nav = Navigator(scene, self.state, f"explore|{task.id}|{seed}", explore_budget)
        self.low_steps = 0
        self.failed_subgoals = 0
        self.subgoals_executed = 0
        self.history: list[tuple[str, bool, str]] = []
        self._slice_count = 0
        self._done_reason = ""
        self._version = 0
        self._obs_cache: tuple[int, Observation] | None = None
        self._met_cache: tuple[int, tuple[int, int]] | None = None

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
        # Counted once per state: every step asks (stop_on_success), and searches ask again.
        if self._met_cache is None or self._met_cache[0] != self._version:
            self._met_cache = (self._version, count_met(self.task, self.state))
        return self._met_cache[1]

    def observe(self) -> Observation:
        """The current observation (only what the agent has seen)."""
        if self._obs_cache is not None and self._obs_cache[0] == self._version:
            return self._obs_cache[1]
        st = self.state
        texts: dict[str, None] = {}
        for pid in st.seen_places:
            texts[self._place_text(pid)] = None
        objs = st.objs
        for oid in st.seen_objs:
            o = objs.get(oid)
            if o is not None:
                texts[_obj_text(o)] = None
        held = objs[st.holding].cls if st.holding else None
        here: tuple[str, ...] = ()
        if st.at is not None:
            here = tuple(dict.fromkeys([self._place_text(st.at), *(_obj_text(o) for o in st.visible(st.at))]))
        located = []
        for oid in st.seen_objs:
            o = objs.get(oid)
            root = st.root(o) if o is not None else HAND
            if o is not None and root != HAND and root in st.places:
                located.append((_obj_text(o), st.places[root].cls))
        obs = Observation(tuple(texts), st.places[st.at].cls if st.at else None, held, here,
                          tuple(dict.fromkeys(located)))
        self._obs_cache = (self._version, obs)
        return obs

    def resolve_navigation(self, cls: str) -> tuple[list[str], str]:
        """Places `Navigation cls` would walk through (last = destination) and a failure reason ('' if it arrives).

        Pure: changes nothing. The expert uses it to pick class-level sub-goals that reach a given place.
        """
        return self.nav.resolve(cls)

    def world_state(self) -> tuple:
        """A hashable snapshot of the world (objects, containers, toggles, agent place, holding)."""
        return self.state.snapshot()

    def fork(self, bounded: bool = True) -> "World":
        """An independent copy of this episode (same scene, state copied) to try steps on; `bounded=False` lifts
        ALFRED's failed-action and step budgets (a search counts sub-goals, not those)."""
        # A shallow copy by hand: copy.copy's generic protocol costs as much as the state's own copy.
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.state = self.state.copy()
        out.nav = self.nav.on(out.state)
        out.history = list(self.history)
        out._obs_cache = out._met_cache = None  # a search may change the copy's state by hand (_as_cut)
        if not bounded:
            out.max_fails = out.max_steps = 1 << 30
        return out

    def attempt(self, subgoal: str | SubGoal) -> str:
        """`step` without building the observation (for searches over copies): the failure reason, '' when ok."""
        if self._done_reason:
            return f"episode is over ({self._done_reason})"
        sg, reason = run_subgoal(subgoal, self._dispatch)
        self._version += 1
        self._done_reason = record_step(self, subgoal, sg, reason)
        return reason

    # ------------------------------------------------------------------ stepping
    def step(self, subgoal: str | SubGoal) -> StepResult:
        """Execute one sub-goal; failures return a short reason and leave the world unchanged."""
        reason = self.attempt(subgoal)
        return StepResult(not reason, reason, self.observe(), bool(self._done_reason))

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

    def _place_text(self, pid: str) -> str:
        st = self.state
        p = st.places[pid]
        states = []
        if pid in st.open:
            states.append("open" if st.open[pid] else "closed")
        if pid in st.on:
            states.append("on" if st.on[pid] else "off")
        return f"{p.cls} ({', '.join(states)})" if states else p.cls

    # ------------------------------------------------------------------ navigation
    def _navigate(self, cls: str) -> str:
        path, reason = self.nav.resolve(cls)
        cur = self.state.at
        for pid in path:
            self.low_steps += self.nav.dist(cur, pid)
            self.state.arrive(pid, self.low_steps)
            cur = pid
        return reason

    # ------------------------------------------------------------------ interactions
    def _pickup(self, cls: str) -> str:
        st = self.state
        if cls not in PICKUPABLE:
            return f"{cls} cannot be picked up"
        if st.holding:
            return f"already holding {st.objs[st.holding].cls}"
        o = st.find_here(cls)
        if o is None and cls in SLICED_OF:  # "PickupObject Apple" after slicing it means a piece
            o = st.find_here(SLICED_OF[cls])
        if o is None:
            for oid in st.seen_objs:  # known to be here but shut in: say so (the agent saw it)
                k = st.objs.get(oid)
                if k is not None and k.cls == cls and st.root(k) == st.at:
                    for anc in st.ancestors(k):
                        if st.is_closed(anc):
                            return f"{st.holder_cls(anc)} is closed"
            return f"{cls} not found"
        st.move(o, HAND)
        st.holding = o.id
        return ""

    def _put(self, cls: str, recep: str) -> str:
        st = self.state
        held = st.held()
        if held is None:
            return "not holding anything"
        if held.cls != cls and SLICED_OF.get(cls) != held.cls:
            return f"holding {held.cls}, not {cls}"
        recep = place_class(recep)
        if st.at is None:
            return f"{recep} not here"
        if st.places[st.at].cls == recep:
            holder = st.at
        elif recep in MOVABLE_RECEPTACLES:
            target = st.find_here(recep)
            if target is None:
                return f"{recep} not found"
            holder = target.id
        else:
            return f"{recep} not here" if recep in PLACE_RECEPTACLES else f"{recep} is not a receptacle"
        if st.is_closed(holder):
            return f"{recep} is closed"
        if not accepts(recep, held.cls):
            return f"{recep} cannot hold {held.cls}"
        st.move(held, holder)
        st.holding = None
        self._apply_appliances(holder, [held] + st.contents(held.id))
        st.see([held] + st.contents(held.id))
        return ""

    def _apply_appliances(self, holder: str, objs: list[Obj]) -> None:
        """Putting into a running microwave heats; into a basin under a running faucet cleans."""
        st = self.state
        root = holder if holder in st.places else st.root(st.objs[holder])
        place = st.places.get(root)
        if place is None:
            return
        if place.cls == "Microwave" and st.on.get(root):
            for o in objs:
                o.heated = True
        elif place.cls == "SinkBasin" and any(f.cls == "Faucet" and f.is_on for f in st.contents(root)):
            for o in objs:
                o.cleaned = True

    def _target_here(self, cls: str) -> tuple[str, Obj | None] | None:
        """The place (if the agent stands at a `cls`) or a visible object of `cls` here."""
        st = self.state
        if st.at is None:
            return None
        if st.places[st.at].cls == cls:
            return st.at, None
        o = st.find_here(cls)
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
        st = self.state
        err, key, _ = self._switch(cls, want_open, OPENABLE, "opened" if want_open else "closed", "is_open",
                                   st.open, ("open", "closed"))
        if err:
            return err
        if want_open:
            st.see(st.visible(st.at))  # type: ignore[arg-type]
        elif cls == "Fridge":
            for o in st.contents(key):
                o.cooled = True
        return ""

    def _toggle(self, cls: str, on: bool) -> str:
        st = self.state
        err, key, obj = self._switch(cls, on, TOGGLEABLE, "toggled", "is_on", st.on, ("on", "off"))
        if err:
            return err
        if on and cls == "Microwave":
            for o in st.contents(key):
                o.heated = True
        elif on and cls == "Faucet" and obj is not None:
            for o in st.contents(obj.parent):
                if o is not obj:
                    o.cleaned = True
        return ""

    def _slice(self, cls: str) -> str:
        st = self.state
        if cls not in SLICEABLE:
            return f"{cls} cannot be sliced"
        held = st.held()
        if held is None or held.cls not in KNIVES:
            return "no Knife in hand"
        o = st.find_here(cls)
        if o is None:
            return f"{cls} not found"
        parent = o.parent
        st.remove(o)
        sliced_cls = SLICED_OF[cls]
        pieces = []
        for _ in range(N_SLICES):
            self._slice_count += 1
            piece = Obj(f"{sliced_cls}_{self._slice_count}", sliced_cls, parent, False, False)
            st.add(piece)
            pieces.append(piece)
        st.see(pieces)
        return ""


# The word an observation shows once an object has a made state (a task's object_state -> word).
STATE_WORD = {"heat": "hot", "cool": "cold", "clean": "clean"}


def _obj_text(o: Obj) -> str:
    states = []
    if o.cls in OPENABLE:
        states.append("open" if o.is_open else "closed")
    if o.cls in TOGGLEABLE:
        states.append("on" if o.is_on else "off")
    states += [STATE_WORD[s] for s, made in (("heat", o.heated), ("cool", o.cooled), ("clean", o.cleaned)) if made]
    return f"{o.cls} ({', '.join(states)})" if states else o.cls


_WORD = re.compile(r"[A-Za-z]+")


def run_subgoal(subgoal: str | SubGoal, dispatch: Callable[[SubGoal], str]) -> tuple[SubGoal | None, str]:
    """Parse a sub-goal and run it through a backend's `dispatch`: (the parsed sub-goal, the failure reason or '')."""
    sg = subgoal if isinstance(subgoal, SubGoal) else parse_subgoal(subgoal)
    return sg, (diagnose(str(subgoal)) if sg is None else dispatch(sg))


def record_step(env: Any, subgoal: str | SubGoal, sg: SubGoal | None, reason: str) -> str:
    """Count a step on `env` (any backend: its counters and history) and return why the episode ends ('' = on).

    One rule for every backend: Stop, success (with `stop_on_success`), ALFRED's failed-action and step limits.
    """
    ok = not reason
    env.subgoals_executed += 1
    env.history.append((str(sg if sg is not None else subgoal), ok, reason))
    if not ok:
        env.failed_subgoals += 1
    if sg is not None and sg.action == "Stop" and ok:
        return "stop"
    if env.stop_on_success and ok and env.success:
        return "success"
    if env.failed_subgoals >= env.max_fails:
        return "max_fails"
    if env.low_steps >= env.max_steps:
        return "max_steps"
    return ""


def diagnose(text: str) -> str:
    """Why a sub-goal text does not parse (the reason its failed step reports; shared with other backends)."""
    return _diagnose(text)


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
