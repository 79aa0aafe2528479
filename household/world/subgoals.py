"""The sub-goal language (LLM-Planner / HLSM style): parsing, canonical text and the legal sub-goal set."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from household.world.ontology import (
    CONTAINERS, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES, MOVABLE_RECEPTACLES, SLICEABLE, TOGGLEABLE, accepts,
    canonical_class, place_class,
)

ACTIONS: tuple[str, ...] = (
    "Navigation", "PickupObject", "PutObject", "OpenObject", "CloseObject",
    "ToggleObjectOn", "ToggleObjectOff", "SliceObject", "Stop",
)
ARITY: dict[str, int] = {a: 1 for a in ACTIONS} | {"PutObject": 2, "Stop": 0}
_ACTION_KEY = {a.lower(): a for a in ACTIONS}
_ACTION_KEY.update({"goto": "Navigation", "gotolocation": "Navigation", "navigate": "Navigation",
                    "pickup": "PickupObject", "put": "PutObject", "open": "OpenObject", "close": "CloseObject",
                    "toggleon": "ToggleObjectOn", "toggleoff": "ToggleObjectOff", "slice": "SliceObject",
                    "noop": "Stop", "end": "Stop", "done": "Stop"})
_TOKEN = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class SubGoal:
    """One sub-goal: an action and its class arguments, e.g. SubGoal('PutObject', ('Apple', 'Fridge'))."""

    action: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return " ".join((self.action, *self.args))


@lru_cache(maxsize=1 << 16)  # pure (SubGoal is frozen); a search parses the same few texts again and again
def parse_subgoal(text: str) -> SubGoal | None:
    """Parse 'PutObject apple fridge', "('PutObject','Apple', 'Fridge')" or 'navigation sink basin'; None if malformed."""
    if isinstance(text, SubGoal):
        return text
    tokens = _TOKEN.findall(text or "")
    if not tokens:
        return None
    action = _ACTION_KEY.get(tokens[0].lower())
    if action is None:
        return None
    want = ARITY[action]
    rest = tokens[1:]
    if want == 0:
        return SubGoal(action) if not rest else None
    args: list[str] = []
    i = 0
    # greedy longest match so multi-word names ("sink basin", "butter knife") fold into one class
    while i < len(rest) and len(args) < want:
        for j in range(len(rest), i, -1):
            cls = canonical_class("".join(rest[i:j]))
            if cls is not None:
                args.append(cls)
                i = j
                break
        else:
            return None
    if len(args) != want or i != len(rest):
        return None
    return SubGoal(action, tuple(args))


def legal_subgoals(classes: Iterable[str]) -> list[str]:
    """Every well-formed sub-goal over these classes that the affordances allow (canonical text, sorted)."""
    cls = sorted({c for c in (canonical_class(x) for x in classes) if c})
    out: list[str] = []
    for c in cls:
        out.append(f"Navigation {c}")
        if c in PICKUPABLE:
            out.append(f"PickupObject {c}")
        if c in OPENABLE:
            out += [f"OpenObject {c}", f"CloseObject {c}"]
        if c in TOGGLEABLE:
            out += [f"ToggleObjectOn {c}", f"ToggleObjectOff {c}"]
        if c in SLICEABLE:
            out.append(f"SliceObject {c}")
    receptacles = [r for r in cls if place_class(r) in PLACE_RECEPTACLES or r in MOVABLE_RECEPTACLES]
    for obj in cls:
        if obj not in PICKUPABLE:
            continue
        for r in receptacles:
            if r != obj and accepts(place_class(r), obj):
                out.append(f"PutObject {obj} {r}")
    out.append("Stop")
    return out


__all__ = ["ACTIONS", "ARITY", "SubGoal", "parse_subgoal", "legal_subgoals", "CONTAINERS"]
