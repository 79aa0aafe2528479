"""The sub-goals legal now, from what the agent has observed (no hidden scene information).

`legal_now` is the set an actor may answer from: walks to any class seen or named by the predicted arguments (the
world explores for an unseen one), and interactions only with what is where the agent stands (or in its hands), as
the observation shows it (a closed fridge can be opened, not closed). Every member is well formed and allowed by
the classes' affordances; whether it succeeds is still the world's call, and the world says why.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from household.ontology import (
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
SLICES = frozenset(SLICED_OF.values())
# Where an object gets a predicted state, and the word the observation shows once it has it.
STATE_PLACE = {"heat": "Microwave", "cool": "Fridge", "clean": "SinkBasin"}
STATE_WORD = {"heat": "hot", "cool": "cold", "clean": "clean"}


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
    unseen = set()  # named classes the world explores for; a slice exists only once something is sliced
    if nav_targets == "any":
        unseen = {c for c in (named_cls if walk is None else walk) if c not in SLICES}
    nav = set(known) | unseen
    if walk is not None:
        nav = {c for c in nav if c in walk or c in CONTAINERS}
    nav.discard(canonical_class(holding) if holding else None)  # what is in the hands is not somewhere to walk to
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


def _observed_state(cls: str, state: str, observed: Sequence[str]) -> bool:
    """Whether a seen object of `cls` shows the predicted state ('Apple (hot)'); no state asked = True."""
    if state not in STATE_WORD:
        return True
    return any(c == cls and STATE_WORD[state] in words for c, words in map(parse_seen, observed))


def _reachable(classes: Sequence[str], legal: Sequence[str]) -> tuple[str, ...]:
    """The classes a legal step walks to or acts on from here."""
    return tuple(c for c in classes if c and (f"Navigation {c}" in legal or any(a.endswith(f" {c}") for a in legal)))


def goal_gate(legal: Sequence[str], args: dict | None, location: str, observed: Sequence[str],
              inside: Sequence[tuple[str, str]] = (), holding: str = "", here: Sequence[str] | None = None,
              located: Sequence[tuple[str, str]] = ()) -> list[str]:
    """`legal` without the steps that skip or undo what the predicted arguments require (unless nothing is left);
    when a put that does what they require next is legal here, only such puts.

    The goal object (the slice when sliced) goes only where the arguments send it next: where the predicted state
    is made until the state is observed, then into the movable receptacle when one is named, then to the parent;
    while it is held, walks go only there. The receptacle goes to the parent only with the object in it, and then
    only there; once the object is in it, with free hands, walks go only to it and picking it up is the step. The
    appliance that makes the state is switched on only with the object put in its place and until the state is
    observed, and not switched off before. With free hands: while the object is in there and its state
    does not show, walks go only there and switching the appliance on (closing the fridge) is the step; once it
    shows, walks go only there and taking it out (opening the fridge first) is the step; with the object not yet
    placed anywhere, walks go only to it (the world explores for an unseen one) and picking it up is the step where
    it lies. When a slice is asked for, until one is seen: the whole object is not picked up, walks go to a knife
    with free hands (picking one up is the step there) and to the object with the knife in hand (cutting it is the
    step there), and the knife is not put down; once a slice is seen, putting the knife down (not where the slice
    goes) is the step. When what is fetched next was never seen and no walk to it is legal (one found none), walks
    go to closed containers and opening one is the step (so too for what is to be cut, with the knife in hand, and
    for the movable receptacle, with the object in hand).
    Holding the object of a look-at task, walks go only to the lamp and switching it on is the step. Nothing is
    closed except the fridge with the object in it (to cool). An object put in the parent is not picked up again
    there. With two objects and one put in the parent, free hands fetch the other like the first; holding it at a
    parent where the first one is not in view (another cabinet), walking on to the parent is the step.
    `observed`: the seen list with states (a state counts once observed); `inside`: the placements the agent made;
    `holding`: the class in the agent's hands; `here` (the real state only, else None): the place and what is in
    view there; `located`: (object, place class) of each seen object, as last observed.
    """
    args = args or {}
    obj, parent, mrecep, lamp = (canonical_class(str(args.get(k) or "")) or "" for k in
                                 ("object_target", "parent_target", "mrecep_target", "toggle_target"))
    if not obj:  # no arguments, or no object to gate
        return list(legal)
    state = str(args.get("object_state") or "none")
    final = SLICED_OF.get(obj, obj) if args.get("object_sliced") else obj
    maker = STATE_PLACE.get(state, "")
    state_ok = _observed_state(final, state, observed)
    mrecep = "" if mrecep == final else mrecep
    goal_place = maker if maker and not state_ok else (mrecep or parent or lamp)  # look at it: to the lamp
    sliced_seen = final == obj or any(parse_seen(x)[0] == final for x in observed)
    carried = {final: goal_place}  # what is held -> the one place it should go next
    if mrecep and (final, mrecep) in inside:
        carried[mrecep] = parent
    made = bool(maker) and state_ok and (final, maker) in inside  # the state shows; the object is still in there
    making = bool(maker) and not state_ok and (final, maker) in inside  # in there; switch it on (close the fridge)
    slicing = not sliced_seen  # a slice is asked for and none is seen yet: a knife first, then the object
    loaded = bool(mrecep) and (final, mrecep) in inside and (mrecep, parent) not in inside  # the receptacle next
    two = bool(args.get("two_objects"))
    second = two and not holding and (final, parent) in inside  # one is in place: fetch the other
    # holding the second one at a parent without the first in view: the goal wants both in one receptacle
    elsewhere = (two and holding == final and here is not None and location == parent
                 and any(parse_seen(o)[0] == final and p == parent for o, p in located)
                 and final not in {parse_seen(x)[0] for x in here[1:]})
    # where a walk should go: the held object's next place, back to the object left where its state was made, or
    # with free hands to what is fetched next (a knife before a slice, else the goal object not yet placed); before
    # a slice, with a knife in hand, to the object
    want: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    if slicing:
        targets = (obj,) if holding in KNIVES else ()
        want = () if holding else KNIVES
    elif holding:
        targets = (carried.get(holding, ""),)
    elif made or making:
        targets = (maker,)
    elif loaded:
        want = (mrecep,)
    elif all(o != final for o, _ in inside) or second:
        want = (final,)
    # the one already put in the parent is not the one to fetch (it is not picked up again there)
    placed_here = location == parent and (final, parent) in inside
    targets = _reachable(targets or want, [a for a in legal if not (placed_here and a == f"PickupObject {final}")])
    # what is fetched next, cut with the knife in hand, or (holding the object) the movable receptacle it goes into
    # was never seen and no walk to it is legal (one found none): look inside closed containers
    seek = want or ((obj,) if slicing and holding in KNIVES else
                    (mrecep,) if mrecep and holding == final and goal_place == mrecep else ())
    searching = bool(seek) and not targets and not {parse_seen(x)[0] for x in observed} & set(seek)
    if searching:
        targets = _reachable(tuple(c for c, flags in map(parse_seen, observed) if c and "closed" in flags), legal)
    knife_down = holding in KNIVES and not slicing and final != obj  # sliced: the knife is put down, not in the goal

    def progress(step: str) -> bool:
        """A put that does what the arguments require next, picking up the goal object not yet placed anywhere, or
        taking it out once its state shows (opening the closed fridge it cooled in first)."""
        if step == f"PickupObject {final}":  # out of where its state was made, not yet placed anywhere (the critic
            # walked away from it), or the second of two
            return made or (not holding and (all(o != final for o, _ in inside) or second))
        if elsewhere:  # on to the parent that holds the first one
            return step == f"Navigation {parent}"
        if made and step == f"OpenObject {maker}":
            return True
        words = step.split()
        if searching and words[0] == "OpenObject":
            return True
        if lamp and holding == final and step == f"ToggleObjectOn {lamp}":  # look at it in the light
            return True
        if loaded and not holding and step == f"PickupObject {mrecep}":  # the receptacle with the object in it
            return True
        if making and (step in {f"ToggleObjectOn {t}" for t in STATE_TOGGLES.get(state, ())} or
                       (state == "cool" and step == f"CloseObject {maker}")):
            return True
        if slicing:  # the knife with free hands, the cut with the knife in hand
            return (step == f"SliceObject {obj}" and holding in KNIVES) or \
                (not holding and words[0] == "PickupObject" and words[1] in KNIVES)
        if knife_down and words[0] == "PutObject" and len(words) == 3 and words[1] == holding:
            return words[2] not in (parent, mrecep, maker)
        return words[0] == "PutObject" and len(words) == 3 and carried.get(words[1]) == words[2]

    def allowed(step: str) -> bool:
        words = step.split()
        verb, what = words[0], (words[1] if len(words) > 1 else "")
        if verb == "PutObject" and len(words) == 3:
            where = words[2]
            if elsewhere and what == final:
                return False
            if what in carried:
                return progress(step)
            if what == obj and final != obj:
                return where not in (parent, mrecep)
            if what == mrecep and mrecep and where == parent:
                return False  # the receptacle without the object in it
            if what in KNIVES and not sliced_seen:
                return False  # the knife is still needed
        if verb == "Navigation" and targets:
            return what in targets
        if verb == "PickupObject" and what == obj and final != obj:
            return False  # slice it where it is: the goal is on the slice
        if verb == "PickupObject" and what == final and placed_here:
            return False  # it is where it goes (with two objects, the second one is elsewhere)
        if verb == "ToggleObjectOff" and what in STATE_TOGGLES.get(state, ()):
            return state_ok  # switching it off before the state shows undoes the work (on/off loops)
        if verb == "ToggleObjectOn" and what in STATE_TOGGLES.get(state, ()):
            return not state_ok and (final, maker) in inside  # on with the object in, and only until the state shows
        if verb == "CloseObject":
            return state == "cool" and what == maker and not state_ok and (final, maker) in inside
        return True

    kept = [a for a in legal if allowed(a)]
    forward = [a for a in kept if progress(a)]
    if forward:
        return forward
    return kept if [a for a in kept if a != "Stop"] else list(legal)
