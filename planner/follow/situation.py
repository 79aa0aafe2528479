"""Situations in the task's own terms: what the agent faces before a step, with every class written as the role it
plays, so that a pool sample of one task can advise a state of another.

A situation holds the task type, the task's seven arguments, what is held (its role) and the states it took on in
the trace, and the last `window` executed steps (failed ones with the world's reason, whose class names are
abstracted too). A role is, in this order (`roles`): one the arguments give (ARG_ROLES: the target, its slice, the
parent receptacle, the movable receptacle, the toggle target, a knife when the task slices, the appliance of the
state change), else one the situation gives (`<held>`: the object in hand; `<here>`: the class of the last walk the
world carried out), else `<other>`. A class plays the first role it fits.

`abstract_step` writes a step in roles ('PickupObject <target>'); `instantiate` writes an abstract step back with a
situation's classes, trying the classes of each role in order and keeping the first instance in the legal set given
(an `<other>` or a role the task does not have is never instantiated). The same code reads pool samples (gt,
hindsight, corrections: `pool_situations`) and the live state (`live_situation`).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from household.world.ontology import KNIVES, SLICED_OF, canonical_class
from household.world.subgoals import parse_subgoal
from planner.retrieval.situations import held_after
from planner.scaffold.legal import STATE_PLACE, STATE_TOGGLES
from pools.records import ARG_KEYS, Correction, Sample

OTHER = "<other>"
HELD = "<held>"
HERE = "<here>"
# The roles the arguments give, in the order a class is tried against them.
ARG_ROLES = ("<target>", "<target_sliced>", "<parent>", "<mrecep>", "<toggle>", "<knife>", "<appliance>")
ROLES = ARG_ROLES + (HELD, HERE, OTHER)
# What a step does to the objects it touches, as the trace tells it, from the scaffold's tables of ALFRED's rules:
# the switch of a state turns it on in its place (heat, clean); a state without a switch comes with the put (cool).
STATE_OF_TOGGLE = {switch: (STATE_PLACE[state], state) for state, switches in STATE_TOGGLES.items()
                   for switch in switches}  # switch -> (place, state)
STATE_OF_PUT = {place: state for state, place in STATE_PLACE.items() if state not in STATE_TOGGLES}
_CLASS_WORD = re.compile(r"\b[A-Z][A-Za-z]+\b")


class SituationError(ValueError):
    """A pool record that cannot be read as situations (the message names the field and what was expected)."""


def _truthy(value: Any) -> bool:
    """A yes/no argument as the pools and the adapter write it (True, 'yes'; False, 'no', 'False', '')."""
    return str(value).strip().lower() not in ("", "false", "no", "none", "0")


def arg_roles(args: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each role the arguments give -> the classes that play it, in the order an instance is tried (a role the task
    does not have is absent)."""
    def cls(key: str) -> str:
        value = args.get(key)
        return str(value) if isinstance(value, str) and value and value.lower() != "none" else ""

    target, state = cls("object_target"), str(args.get("object_state") or "none").lower()
    out: dict[str, tuple[str, ...]] = {}
    for role, classes in (
            ("<target>", (target,)),
            ("<target_sliced>", (SLICED_OF.get(target, ""),) if _truthy(args.get("object_sliced")) else ()),
            ("<parent>", (cls("parent_target"),)), ("<mrecep>", (cls("mrecep_target"),)),
            ("<toggle>", (cls("toggle_target"),)),
            ("<knife>", KNIVES if _truthy(args.get("object_sliced")) else ()),
            ("<appliance>", tuple(dict.fromkeys((STATE_PLACE.get(state, ""), *STATE_TOGGLES.get(state, ())))))):
        kept = tuple(c for c in classes if c)
        if kept:
            out[role] = kept
    return out


@dataclass(frozen=True)
class Situation:
    """What the agent faces before a step, in roles (the module docstring); `classes` maps each role of this
    situation to the classes that play it (for `instantiate`), and is not part of what is compared."""

    task_type: str
    args: tuple[tuple[str, str], ...]  # the seven arguments as (key, value) pairs (a key for exact matching)
    held: str  # the held object's role ('' = nothing)
    held_state: tuple[str, ...]  # states the held object took on in the trace ('heat', 'cool', 'clean'), sorted
    recent: tuple[str, ...]  # the last `window` executed steps in roles, failed ones 'Step [failed: reason]'
    cut: bool  # earlier steps are not shown

    def key(self) -> tuple[Any, ...]:
        """What an exact match compares: everything but the arguments' values (the task's own classes)."""
        return (self.task_type, self.shape(), self.held, self.held_state, self.recent, self.cut)

    def shape(self) -> tuple[str, ...]:
        """Which argument roles the task has (a sliced task and a plain one differ in what a step can be)."""
        return tuple(sorted(arg_roles(dict(self.args))))


@dataclass(frozen=True)
class Live:
    """A situation with the classes its roles stand for: what `instantiate` reads."""

    situation: Situation
    classes: Mapping[str, tuple[str, ...]]


def roles(args: Mapping[str, Any], held: str, here: str) -> dict[str, tuple[str, ...]]:
    """Role -> classes for a situation: the arguments' roles, then the held object and the place, where set."""
    out = arg_roles(args)
    if held:
        out[HELD] = (held,)
    if here:
        out[HERE] = (here,)
    return out


def role_of(cls: str, classes: Mapping[str, tuple[str, ...]]) -> str:
    """The first role (ROLES order) a class plays, else `<other>`."""
    for role in ROLES[:-1]:
        if cls in classes.get(role, ()):
            return role
    return OTHER


def abstract_step(step: str, classes: Mapping[str, tuple[str, ...]]) -> str:
    """A sub-goal in roles ('PutObject Apple Fridge' -> 'PutObject <target> <appliance>'); an unparsable step is a
    SituationError."""
    sg = parse_subgoal(step)
    if sg is None:
        raise SituationError(f"{step!r} is not a sub-goal (expected 'Action Class [Class]')")
    return " ".join([sg.action, *(role_of(a, classes) for a in sg.args)])


def abstract_reason(reason: str, classes: Mapping[str, tuple[str, ...]]) -> str:
    """The world's failure reason with each class name in it written as its role ('Fridge is closed' ->
    '<appliance> is closed')."""
    def swap(m: re.Match[str]) -> str:
        cls = canonical_class(m.group(0))
        return role_of(cls, classes) if cls else m.group(0)
    return _CLASS_WORD.sub(swap, reason)


def instances(abstract: str, classes: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Every sub-goal an abstract step stands for in a situation, in the roles' class order ([] when a role in it
    has no class here: `<other>`, or a role the task does not have)."""
    action, *rs = abstract.split()
    options = [classes.get(r, ()) for r in rs]
    if any(not o for o in options):
        return []
    return [" ".join([action, *combo]) for combo in itertools.product(*options)]


def instantiate(abstract: str, live: Live, legal: Sequence[str]) -> str | None:
    """The first instance of the abstract step that is in the legal set, else None."""
    allowed = set(legal)
    return next((s for s in instances(abstract, live.classes) if s in allowed), None)


def _place(step: str, reason: str, here: str) -> str:
    sg = parse_subgoal(step)
    return sg.args[0] if sg is not None and not reason and sg.action == "Navigation" else here


def _states(trace: Sequence[tuple[str, str]], held: str) -> tuple[str, ...]:
    """The states the held object took on in the trace: put in a place, then that place's switch turned on (heat,
    clean), or put in the fridge (cool); the trace's own record, not the world's."""
    inside: dict[str, str] = {}  # object -> the place it was last put in
    got: dict[str, set[str]] = {}
    for step, reason in trace:
        sg = parse_subgoal(step)
        if sg is None or reason:
            continue
        if sg.action == "PutObject":
            inside[sg.args[0]] = sg.args[1]
            if sg.args[1] in STATE_OF_PUT:
                got.setdefault(sg.args[0], set()).add(STATE_OF_PUT[sg.args[1]])
        elif sg.action == "PickupObject":
            inside.pop(sg.args[0], None)
        elif sg.action == "ToggleObjectOn" and sg.args[0] in STATE_OF_TOGGLE:
            place, state = STATE_OF_TOGGLE[sg.args[0]]
            for obj, where in inside.items():
                if where == place:
                    got.setdefault(obj, set()).add(state)
    return tuple(sorted(got.get(held, ()))) if held else ()


def situation_at(task_type: str, args: Mapping[str, Any], trace: Sequence[tuple[str, str]], window: int) -> Live:
    """The situation after `trace` ((sub-goal, failure reason or '') pairs, executed in order)."""
    trace = [(str(s), str(r or "")) for s, r in trace]
    held = held_after(trace)
    here = ""
    for step, reason in trace:
        here = _place(step, reason, here)
    classes = roles(args, held, here)
    shown = trace[-window:] if window > 0 else []
    # Each step is written in the roles of the situation it ends in: one picture of the recent past.
    recent = tuple(abstract_step(s, classes) + (f" [failed: {abstract_reason(r, classes)}]" if r else "")
                   for s, r in shown)
    pairs = tuple((k, str(args.get(k, ""))) for k in ARG_KEYS)
    return Live(Situation(task_type, pairs, role_of(held, classes) if held else "", _states(trace, held), recent,
                          len(shown) < len(trace)), classes)


@dataclass(frozen=True)
class Advice:
    """A pool situation and the step taken from it, in roles; `source` names the record and position."""

    situation: Situation
    next_step: str
    kind: str  # the record's kind: gt, hindsight, correction
    source: str  # '<record id>@<position>'


def _checked_trace(record: Any, where: str) -> list[tuple[str, str]]:
    try:
        trace = record.trace()
    except Exception as exc:  # a record without steps, or reasons that do not match them
        raise SituationError(f"{where}: field steps/reasons: expected a trace of sub-goals ({exc})") from exc
    for i, (step, _) in enumerate(trace):
        if parse_subgoal(str(step)) is None:
            field = "shown" if isinstance(record, Correction) and i == len(trace) - 1 else f"steps[{i}]"
            raise SituationError(f"{where}: field {field}: {step!r} is not a sub-goal (expected 'Action Class "
                                 "[Class]')")
    return trace


def pool_situations(record: Sample | Correction, window: int, where: str = "") -> list[Advice]:
    """A pool record's advice: for a sample, the situation before each step the world carried out and that step (a
    failed step is never advice); for a correction, the situation at its state and the step it shows. A record that
    cannot be read is a SituationError naming `where` (file and line) and the field."""
    where = where or f"record {getattr(record, 'id', '?')}"
    if not isinstance(getattr(record, "args", None), Mapping):
        raise SituationError(f"{where}: field args: expected the task's seven arguments as a mapping")
    if not getattr(record, "task_type", ""):
        raise SituationError(f"{where}: field task_type: expected one of ALFRED's task types")
    trace = _checked_trace(record, where)
    ends = [len(trace) - 1] if isinstance(record, Correction) else [i for i, (_, r) in enumerate(trace) if not r]
    out = []
    for i in ends:
        live = situation_at(record.task_type, record.args, trace[:i], window)
        out.append(Advice(live.situation, abstract_step(trace[i][0], live.classes), record.kind, f"{record.id}@{i}"))
    return out


def live_situation(task_type: str, args: Mapping[str, Any], trace: Iterable[tuple[str, str]], window: int) -> Live:
    """The live state's situation (the same reading as a pool sample's): `trace` its executed steps with failure
    reasons, `args` the arguments the step would have (predicted, or the true ones for an upper bound)."""
    return situation_at(task_type, args, list(trace), window)
