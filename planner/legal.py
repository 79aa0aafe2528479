"""What the agent knows of where things are, and the sub-goals that are legal now (no hidden scene information).

`Sightings` remembers, from the observations alone, the place where each object class was last seen and what the
agent moved itself. `legal_now` turns that into the set an actor may answer from: walks to any class seen or named
by the predicted arguments (the world explores for an unseen one), and interactions only with what is where the
agent stands (or in its hands). Every member is well formed and allowed by the classes' affordances; whether it
succeeds is still the world's call (a closed fridge, an object behind a door), and the world says why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from household.ontology import (
    KNIVES, MOVABLE_RECEPTACLES, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES, SLICEABLE, TOGGLEABLE, accepts,
    canonical_class, place_class,
)

NAV_TARGET_MODES = ("any", "seen")


@dataclass
class Sightings:
    """Where each seen object class was last seen (a place class), updated from observations and own actions."""

    at: dict[str, str] = field(default_factory=dict)  # object class -> place class ('' = in hand)
    places: list[str] = field(default_factory=list)  # receptacle/place classes seen, in order of discovery

    def observe(self, classes: Sequence[str], location: str | None) -> None:
        """Record the classes of an observation: new ones were seen where the agent stands now."""
        for cls in classes:
            if _is_place(cls):
                if cls not in self.places:
                    self.places.append(cls)
            elif cls not in self.at:
                self.at[cls] = location or ""

    def acted(self, subgoal: str, ok: bool, location: str | None) -> None:
        """Apply the known effect of the agent's own successful pickup / put on where things are."""
        parts = subgoal.split()
        if not ok or len(parts) < 2:
            return
        if parts[0] == "PickupObject":
            self.at[parts[1]] = ""
        elif parts[0] == "PutObject" and len(parts) == 3:
            self.at[parts[1]] = location or parts[2]

    def here(self, location: str | None) -> list[str]:
        """Classes the agent may act on where it stands: the place itself and objects last seen there."""
        if not location:
            return []
        out = [location]
        out += [c for c, p in self.at.items() if p == location and c != location]
        # Receptacles that sit on or in a place are seen with it (a microwave on a counter): treated as here.
        out += [c for c in self.at if c in MOVABLE_RECEPTACLES and self.at[c] == location and c not in out]
        return out

    def where_text(self, seen: Iterable[str]) -> tuple[str, ...]:
        """'Apple (CounterTop)' for objects, the bare class for places, in observation order (prompt form)."""
        out = []
        for cls in seen:
            p = self.at.get(cls)
            if p is None or _is_place(cls):
                out.append(cls)
            else:
                out.append(f"{cls} ({p or 'in hand'})")
        return tuple(out)


def _is_place(cls: str) -> bool:
    return place_class(cls) in PLACE_RECEPTACLES and cls not in PICKUPABLE


# Appliances a predicted object state calls for (ALFRED's rules as the world implements them).
STATE_TOGGLES = {"heat": ("Microwave",), "clean": ("Faucet",)}


def task_scope(args: dict | None) -> dict[str, set[str]] | None:
    """What the predicted arguments call for: objects to pick up and things to switch (None = no arguments)."""
    if not args:
        return None
    named = {v for k, v in args.items() if isinstance(v, str) and v and k in ("object_target", "mrecep_target")}
    pick = set(named)
    if args.get("object_sliced"):
        pick |= set(KNIVES)
    toggle = {args["toggle_target"]} if args.get("toggle_target") else set()
    toggle |= set(STATE_TOGGLES.get(str(args.get("object_state") or "none"), ()))
    return {"pick": pick, "toggle": toggle}


def legal_now(seen: Sequence[str], here: Sequence[str], holding: str, named: Iterable[str] = (),
              nav_targets: str = "any", scope: dict[str, set[str]] | None = None, allow_stop: bool = True
              ) -> list[str]:
    """The sub-goals legal in this state, canonical text, sorted (Stop last when `allow_stop`).

    `seen`: every class observed; `here`: classes at the agent's place; `named`: classes the predicted arguments
    name. `nav_targets`: 'any' = walk to seen or named classes (the world explores for unseen ones), 'seen' = only
    seen ones. `scope` (from `task_scope`): pick up and switch only what the predicted arguments call for.
    """
    known = [c for c in (canonical_class(x) for x in seen) if c]
    named_cls = [c for c in (canonical_class(x) for x in named) if c]
    nav = set(known) | (set(named_cls) if nav_targets == "any" else set())
    out = {f"Navigation {c}" for c in nav}
    local = [c for c in (canonical_class(x) for x in here) if c]
    for c in local:
        if c in OPENABLE:
            out |= {f"OpenObject {c}", f"CloseObject {c}"}
        if c in TOGGLEABLE and (scope is None or c in scope["toggle"]):
            out |= {f"ToggleObjectOn {c}", f"ToggleObjectOff {c}"}
        if c in SLICEABLE and holding in KNIVES:
            out.add(f"SliceObject {c}")
        if not holding and c in PICKUPABLE and (scope is None or c in scope["pick"]):
            out.add(f"PickupObject {c}")
        if holding and c != holding and (place_class(c) in PLACE_RECEPTACLES or c in MOVABLE_RECEPTACLES) \
                and accepts(place_class(c), holding):
            out.add(f"PutObject {holding} {c}")
    return sorted(out) + (["Stop"] if allow_stop else [])
