"""The expert's cost-to-go d(s): the fewest sub-goals that reach a task's goal from any state of an episode.

Full knowledge: the search knows where every object is and walks straight to a place instance in one sub-goal
(`World.walk_to`); the agent's `Navigation C` names a class and may need more than one walk to reach the same
instance, so d is what an agent that knew the scene would still have to do. Every other sub-goal is the world's
own (`World.step` on a copy of the episode), so wrong objects in hand, objects in the wrong receptacle, states
already made and objects already placed are taken as they are.

The search is A* over world states (`lower_bound`: an admissible estimate of what is left) with the sub-goals that
can matter for the task: walks to the places that hold or are what the task names (and, holding something else,
one place that takes it), and every interaction that succeeds where the agent stands on those classes. d is None
when no plan exists within `limit` sub-goals (the caller counts such states; they are never dropped silently).
`actions(..., relevant=False)` offers every place and every interaction instead: the test compares the two searches.
"""
from __future__ import annotations

import heapq
from itertools import count
from typing import Iterator

from household.ontology import (KNIVES, LANDMARKS, MOVABLE_RECEPTACLES, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES,
                                SLICED_OF, TOGGLEABLE, accepts, place_class)
from household.state import HAND
from household.world import World

LIMIT = 24  # deeper than any shortest plan from a task's start (the expert's longest plans are ~20 sub-goals)
APPLIANCES = {"pick_heat_then_place_in_recep": ("Microwave",), "pick_cool_then_place_in_recep": ("Fridge",),
              "pick_clean_then_place_in_recep": ("SinkBasin", "Faucet")}


def task_classes(world: World) -> tuple[set[str], set[str]]:
    """(object classes, place classes) the task names or needs: its object (and slice, and a knife when sliced), the
    movable receptacle, the lamp; its parent and the appliance that makes the state."""
    a = world.task.args
    objs = {a.object_target}
    if a.object_sliced:
        objs |= {SLICED_OF[a.object_target], *KNIVES}
    if a.mrecep_target:
        objs.add(a.mrecep_target)
    if a.toggle_target:
        objs.add(a.toggle_target)
    places = {place_class(a.parent_target)} if a.parent_target else set()
    places |= set(APPLIANCES.get(world.task.task_type, ()))
    if a.toggle_target in PLACE_RECEPTACLES or a.toggle_target in LANDMARKS:  # a floor lamp is a place
        places.add(a.toggle_target)
    return objs, places


def _walk_targets(world: World, relevant: bool) -> list[str]:
    st = world.state
    if not relevant:
        return [p for p in st.places if p != st.at]
    objs, places = task_classes(world)
    out = {st.root(o) for o in st.objs.values() if o.cls in objs and o.parent != HAND} | \
          {pid for pid, p in st.places.items() if p.cls in places}
    held = st.held()
    if held is not None and held.cls not in objs:  # somewhere to put down what should not be in hand
        takers = sorted(pid for pid, p in st.places.items() if accepts(p.cls, held.cls))
        out |= set(takers[:1])
    out.discard(HAND)
    out.discard(st.at)  # type: ignore[arg-type]
    return sorted(p for p in out if p in st.places)


def _here_classes(world: World) -> tuple[str, list[str]]:
    """The class of the place the agent stands at and the classes of what is visible there."""
    st = world.state
    if st.at is None:
        return "", []
    return st.places[st.at].cls, sorted({o.cls for o in st.visible(st.at)})


def actions(world: World, relevant: bool = True) -> Iterator[tuple[str, str | None]]:
    """(sub-goal, place id to walk to or None) worth trying from this state (see the module docstring)."""
    for pid in _walk_targets(world, relevant):
        yield f"Navigation {world.state.places[pid].cls}", pid
    here, visible = _here_classes(world)
    if not here:
        return
    objs, places = task_classes(world)
    held = world.state.held()
    # Relevant only: opening what is here (to reach inside) or a movable receptacle the task names; closing only the
    # fridge that cools; switching on only what makes the state or lights the look (switching off never helps).
    closing = {"Fridge"} if world.task.task_type == "pick_cool_then_place_in_recep" else set()
    switching = (places | objs) & TOGGLEABLE
    for cls in [here, *visible]:
        if cls in OPENABLE:
            if not relevant or cls == here or cls in objs:
                yield f"OpenObject {cls}", None
            if not relevant or cls in closing:
                yield f"CloseObject {cls}", None
        if cls in TOGGLEABLE and (not relevant or cls in switching):
            yield f"ToggleObjectOn {cls}", None
            if not relevant:
                yield f"ToggleObjectOff {cls}", None
    for cls in visible:
        if cls in PICKUPABLE and held is None and (not relevant or cls in objs):
            yield f"PickupObject {cls}", None
        if held is not None and held.cls in KNIVES and cls in SLICED_OF:
            yield f"SliceObject {cls}", None
    if held is not None:
        for recep in [here, *(c for c in visible if c in MOVABLE_RECEPTACLES)]:
            yield f"PutObject {held.cls} {recep}", None


def successors(world: World, relevant: bool = True, walked: bool = False) -> Iterator[tuple[str, World]]:
    """Each sub-goal that changes the world from here, with the world it leads to. After a walk (`walked`), no other
    walk: two walks in a row are never shorter than the second alone (a walk changes only where the agent is)."""
    for subgoal, pid in actions(world, relevant):
        if walked and pid is not None:
            continue
        nxt = world.fork(bounded=False)
        if pid is not None:
            nxt.walk_to(pid)
        elif nxt.attempt(subgoal):
            continue  # a refused step changes nothing: never on a shortest plan
        yield subgoal, nxt


SLICES = frozenset(SLICED_OF.values())


def state_key(world: World) -> tuple:
    """The world's state with the pieces of a slice told apart by class only (they are made alike: which piece is
    where does not change what can be done)."""
    snapshot = world.world_state()
    objs, open_, on, at, holding = snapshot
    name = {o[0]: o[1] for o in objs if o[1] in SLICES}
    if not name:
        return snapshot
    canon = tuple(sorted((name.get(oid, oid), cls, name.get(parent, parent), *rest)
                         for oid, cls, parent, *rest in objs))
    return canon, open_, on, at, name.get(holding, holding)


def _walks(world: World, routes: list[list[set[str]]]) -> int:
    """The fewest walks along the best of `routes`: each a list of stops, each stop the place ids where a needed
    interaction can happen; consecutive stops at different places need a walk between them."""
    at = world.state.at
    best = None
    for stops in routes:
        cost: dict[str | None, int] = {at: 0}
        for places in stops:
            if not places:
                break
            cost = {p: min(c + (q != p) for q, c in cost.items()) for p in places}
        else:
            low = min(cost.values())
            best = low if best is None else min(best, low)
    return best or 0


def lower_bound(world: World) -> int:
    """An admissible estimate of the sub-goals left (never more than d): the puts, pickups, cuts and switches the
    goal still needs, plus the walks between the places where they must happen, in the orders the task allows.
    tests/household/test_cost_to_go.py checks d against the search without it."""
    st, a, tt = world.state, world.task.args, world.task.task_type
    x = SLICED_OF[a.object_target] if a.object_sliced else a.object_target
    p = place_class(a.parent_target) if a.parent_target else ""
    held = st.held()
    holding_x = held is not None and held.cls == x
    xs = st.objects_of(x)

    def roots(cls: str) -> set[str]:
        return {st.root(o) for o in st.objects_of(cls) if o.parent != HAND}

    def at_class(cls: str) -> set[str]:
        return {pid for pid, q in st.places.items() if q.cls == cls} | roots(cls)

    h = 0
    fetch: list[set[str]] = [] if holding_x else [roots(x)]
    if a.object_sliced and not xs:  # cut it: a knife in hand, the cut where the whole one is
        knife = held is not None and held.cls in KNIVES
        h += 1 + (not knife)
        fetch = ([] if knife else [set().union(*(roots(k) for k in KNIVES))]) + [roots(a.object_target)] * 2
    if tt == "look_at_obj_in_light":
        if not holding_x:
            h += 1 + (held is not None)  # put down what is held, pick it up
        lit = st.lamp_on_here(a.toggle_target)
        return h + (not lit) + (0 if holding_x and lit else _walks(world, [fetch + [at_class(a.toggle_target)]]))
    if tt == "pick_and_place_with_movable_recep":
        ms = st.objects_of(a.mrecep_target)
        in_m = [o for o in xs if any(st.inside_obj(o, m.id) for m in ms)]
        m_in_p = [m for m in ms if st.inside_cls(m, p)]
        if any(st.inside_obj(o, m.id) for m in m_in_p for o in in_m):
            return h
        held_m = held is not None and held.cls == a.mrecep_target
        if not in_m:  # x into a receptacle (picked up first), that one into p (picked up first) unless there
            h += 1 + (not holding_x) + (0 if m_in_p else 1 + (not held_m))
            m_at = set() if held_m else roots(a.mrecep_target)
            routes = [fetch + [m_at] + [at_class(p)], [m_at, at_class(p)] + fetch + [at_class(p)]]
            if m_in_p:
                routes.append(fetch + [at_class(p)])
            return h + _walks(world, [[s for s in r if s] if held_m else r for r in routes])
        h += 1 + (not held_m)  # a put into p (after its pickup)
        return h + _walks(world, [[] if held_m else [roots(a.mrecep_target)]] + [[at_class(p)]])
    flag = {"pick_heat_then_place_in_recep": "heated", "pick_cool_then_place_in_recep": "cooled",
            "pick_clean_then_place_in_recep": "cleaned"}.get(tt)
    done_x = [o for o in xs if (flag is None or getattr(o, flag)) and st.inside_cls(o, p)]
    if tt == "pick_two_obj_and_place":
        per: dict[str, int] = {}
        for o in xs:
            for anc in st.ancestor_places(o, p):
                per[anc] = per.get(anc, 0) + 1
        need = 2 - min(2, max(per.values(), default=0))
        fetch = fetch if need else []
    else:
        need = 0 if done_x else 1
    if not need:
        return h
    h += need + max(0, need - holding_x)  # each put into p, each pickup of what is not in hand
    appliance = APPLIANCES.get(tt, ("",))[0]
    if flag and not any(getattr(o, flag) for o in xs):
        inside = [o for o in xs if st.inside_cls(o, appliance)]
        # in there, not yet made: switch on (close the fridge); else into the appliance (and out: the pickup above)
        h += 1
        stops = [at_class(appliance), at_class(p)] if inside else fetch + [at_class(appliance), at_class(p)]
        return h + _walks(world, [stops])
    return h + _walks(world, [fetch + [at_class(p)]])


def _search(world: World, limit: int, relevant: bool, known: dict[tuple, int] | None
            ) -> tuple[int, list[str]] | None:
    """A* (breadth-first when not `relevant`): the length of a shortest plan and its sub-goals (the tail after a
    state of `known`, whose exact d is reused, is left out); None beyond `limit`. Fills `known` along the plan."""
    start = world.fork(bounded=False)
    estimate = lower_bound if relevant else (lambda w: 0)
    known = {} if known is None else known
    start_key = state_key(start)
    if start.success:
        return 0, []
    if start.done:  # ended without the goal (Stop, or ALFRED's budgets): nothing can reach it any more
        return None
    best = {start_key: 0}
    parent: dict[tuple, tuple[tuple, str] | None] = {start_key: None}
    tie = count()
    heap = [(estimate(start), 0, next(tie), start, start_key)]

    def finish(key: tuple, total: int) -> tuple[int, list[str]]:
        path: list[str] = []
        step = parent[key]
        known[key] = total - best[key]
        while step is not None:
            key, subgoal = step
            path.append(subgoal)
            known[key] = total - best[key]
            step = parent[key]
        return total, path[::-1]

    while heap:
        f, g, _, node, key = heapq.heappop(heap)
        if g > best.get(key, g):
            continue
        if node.success:
            return finish(key, g)
        if relevant and key in known:  # its exact d is known: done once nothing on the heap can be shorter
            if g + known[key] > f:  # it became known after it was queued with an estimate: queue it exactly
                heapq.heappush(heap, (g + known[key], g, next(tie), node, key))
                continue
            return finish(key, g + known[key])
        if g >= limit:
            continue
        walked = parent[key] is not None and parent[key][1].startswith("Navigation ")  # type: ignore[index]
        for subgoal, nxt in successors(node, relevant, walked):
            nkey = state_key(nxt)
            if g + 1 >= best.get(nkey, limit + 1):
                continue
            best[nkey], parent[nkey] = g + 1, (key, subgoal)
            if not relevant and nxt.success:  # breadth-first: the first goal generated is a nearest one
                return finish(nkey, g + 1)
            h = known[nkey] if relevant and nkey in known else estimate(nxt)
            heapq.heappush(heap, (g + 1 + h, g + 1, next(tie), nxt, nkey))
    return None


def shortest_plan(world: World, limit: int = LIMIT, relevant: bool = True) -> list[str] | None:
    """The fewest sub-goals from `world`'s state to the goal (a plan of them), or None beyond `limit`: A* over
    world states with `lower_bound` (breadth-first over every sub-goal when not `relevant`)."""
    found = _search(world, limit, relevant, None)
    return None if found is None else found[1]


def cost_to_go(world: World, limit: int = LIMIT, relevant: bool = True,
               known: dict[tuple, int] | None = None) -> int | None:
    """d(s): the length of the shortest plan from `world`'s state to the goal; None when none within `limit`.
    `known` (state_key -> d, one task's episode) is read as exact and filled along each plan found: the states one
    step away from a solved one mostly finish at once."""
    found = _search(world, limit, relevant, known if relevant else None)
    return None if found is None else found[0]
