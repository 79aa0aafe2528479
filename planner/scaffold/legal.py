"""The sub-goals legal now, from what the agent has observed (no hidden scene information).

`legal_now` is the set an actor may answer from: walks to any class seen or named by the predicted arguments (the
world explores for an unseen one), and interactions only with what is where the agent stands (or in its hands), as
the observation shows it (a closed fridge can be opened, not closed). Every member is well formed and allowed by
the classes' affordances; whether it succeeds is still the world's call, and the world says why. The scaffold's
goal gate (`planner.scaffold.gate`) narrows it further to what the predicted arguments require.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from household.world.navigation import walk_classes
from household.world.ontology import (
    CONTAINERS, KNIVES, MOVABLE_RECEPTACLES, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES, SLICEABLE, SLICED_OF, TOGGLEABLE,
    accepts, canonical_class, place_class,
)

NAV_TARGET_MODES = ("any", "seen")


def parse_seen(text: str) -> tuple[str | None, frozenset[str]]:
    """'Fridge (closed)' -> ('Fridge', {'closed'}); 'Apple' -> ('Apple', {})."""
    head, _, rest = text.partition("(")
    return canonical_class(head.strip()), frozenset(w.strip() for w in rest.rstrip(")").split(",") if w.strip())


def where_text(seen: Sequence[str], located: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The seen list as the prompt shows it: 'Apple (CounterTop)' for an object, the bare class for a place."""
    place_of: dict[str, str] = {}
    for obj, place in located:
        cls, _ = parse_seen(obj)
        if cls:
            place_of.setdefault(cls, place)
    return tuple(f"{c} ({place_of[c]})" if c in place_of and c != place_of[c] else c for c in seen)


# Appliances a predicted object state calls for (ALFRED's rules as the world implements them).
STATE_TOGGLES = {"heat": ("Microwave",), "clean": ("Faucet",)}
# Where an object gets a predicted state.
STATE_PLACE = {"heat": "Microwave", "cool": "Fridge", "clean": "SinkBasin"}


def named_classes(args: dict | None) -> list[str]:
    """The classes the predicted arguments name (object, parent, mrecep, toggle target)."""
    return [v for k, v in (args or {}).items() if isinstance(v, str) and v and k != "object_state"]


def task_scope(args: dict | None, walk: bool = False) -> dict[str, set[str]] | None:
    """What the predicted arguments call for: objects to pick up and things to switch (None = no arguments).

    With `walk`, also the classes worth walking to (key 'walk'): those the arguments name, the slice, a knife when
    sliced, the place the predicted state is made in; `legal_now` adds seen containers (to search)."""
    if not args:
        return None
    named = {v for k, v in args.items() if isinstance(v, str) and v and k in ("object_target", "mrecep_target")}
    pick = set(named)
    if args.get("object_sliced"):  # a knife to slice with, then the slice itself (the goal is on 'PotatoSliced')
        pick |= set(KNIVES) | {SLICED_OF[c] for c in named if c in SLICED_OF}
    toggle = {args["toggle_target"]} if args.get("toggle_target") else set()
    state = str(args.get("object_state") or "none")
    toggle |= set(STATE_TOGGLES.get(state, ()))
    scope = {"pick": pick, "toggle": toggle}
    if walk:
        # `pick` already holds the slice and the knives when sliced
        scope["walk"] = set(named_classes(args)) | pick | ({STATE_PLACE[state]} if state in STATE_PLACE else set())
    return scope


def legal_now(seen: Sequence[str], here: Sequence[str], holding: str, named: Iterable[str] = (),
              nav_targets: str = "any", scope: dict[str, set[str]] | None = None, allow_stop: bool = True
              ) -> list[str]:
    """The sub-goals legal in this state, canonical text, sorted (Stop last when `allow_stop`).

    `seen`: every class observed; `here`: what is where the agent stands, as observed ('Fridge (closed)': opening
    is legal, closing is not; without a state both are); `named`: classes the predicted arguments name.
    `nav_targets`: 'any' = walk to seen or named classes (the world explores for unseen ones), 'seen' = only seen
    ones. `scope` (from `task_scope`): pick up and switch only what the predicted arguments call for; with its
    'walk' key, walk only to those classes and to seen containers (to look inside).
    """
    known = [c for c in (canonical_class(x.split("(")[0].strip()) for x in seen) if c]
    named_cls = [c for c in (canonical_class(x) for x in named) if c]
    walk = scope.get("walk") if scope else None
    explored = (named_cls if walk is None else walk) if nav_targets == "any" else ()  # the world explores for these
    nav = walk_classes(known, explored, canonical_class(holding) if holding else None)
    if walk is not None:
        nav = {c for c in nav if c in walk or c in CONTAINERS}
    out = {f"Navigation {c}" for c in nav}
    local: list[str] = []
    closed: set[str] = set()
    for text in here:
        c, states = parse_seen(text)
        if c is None:
            continue
        local.append(c)
        if "closed" in states:
            closed.add(c)
        if c in OPENABLE:
            out |= {f"OpenObject {c}"} if "closed" in states else set()
            out |= {f"CloseObject {c}"} if "open" in states else set()
            if not states & {"open", "closed"}:
                out |= {f"OpenObject {c}", f"CloseObject {c}"}
        if c in TOGGLEABLE and (scope is None or c in scope["toggle"]):
            out |= {f"ToggleObjectOn {c}"} if "on" not in states else set()
            out |= {f"ToggleObjectOff {c}"} if "off" not in states else set()
    for c in local:
        if c in SLICEABLE and holding in KNIVES and (scope is None or c in scope["pick"]):
            out.add(f"SliceObject {c}")
        if not holding and c in PICKUPABLE and (scope is None or c in scope["pick"]):
            out.add(f"PickupObject {c}")
        if holding and c != holding and c not in closed \
                and (place_class(c) in PLACE_RECEPTACLES or c in MOVABLE_RECEPTACLES) and accepts(place_class(c), holding):
            out.add(f"PutObject {holding} {c}")
    return sorted(out) + (["Stop"] if allow_stop else [])
