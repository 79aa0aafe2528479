"""The expert's cost-to-go d(s): the fewest sub-goals that reach a task's goal from any state of an episode.

Every sub-goal is the world's own (`World.attempt` on a copy of the episode), walks included: `Navigation C` goes
where the robot's would from that state (household/world/navigation.py: the nearest known C, "another C" when
standing at one, exploration when none is known), so reaching one drawer of ten may take several walks, as it does
the robot.
The search knows the scene (what is where, what each walk will reveal): d is what an agent that knew the scene would
still have to say in the robot's class-level language. Wrong objects in hand, objects in the wrong receptacle, states
already made and objects already placed are taken as they are; so is what the robot knows (where it has been, what
it has seen, which instance of a class it visited last), since that decides where its walks go.

The search is A* over world states (`lower_bound`: an admissible estimate of what is left) with the sub-goals that
can matter for the task: a walk to every class the paper planner's legal set offers (once per distinct sequence of
places it leads through; one that ends "not found" still walked), and every interaction that succeeds where the agent
stands on the classes the task needs. d is None when no plan exists within `limit` sub-goals (the caller counts such
states; they are never dropped silently). The world's failure and step budgets are lifted (`fork(bounded=False)`):
d counts sub-goals, not those. tests/household/expert/test_cost_to_go.py checks d against a breadth-first search of
its own over every sub-goal the robot could say.
"""
from __future__ import annotations

import heapq
from itertools import count
from typing import Iterable, Iterator

from household.world.navigation import walk_classes
from household.world.ontology import (KNIVES, LANDMARKS, MOVABLE_RECEPTACLES, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES,
                                SLICED_OF, SLICES, TOGGLEABLE, place_class)
from household.world.state import HAND, Obj
from household.world.world import N_SLICES, World

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


def _here_classes(world: World) -> tuple[str, list[str]]:
    """The class of the place the agent stands at and the classes of what is visible there."""
    st = world.state
    if st.at is None:
        return "", []
    return st.places[st.at].cls, sorted({o.cls for o in st.visible(st.at)})


def walk_targets(world: World) -> list[str]:
    """The classes a walk may name: those the paper planner's legal set offers (seen or named by the task, never
    what is in hand; household/world/navigation.py), so that d and the probe's options speak of the same walks."""
    st, a = world.state, world.task.args
    seen = {st.places[p].cls for p in st.seen_places} | {st.objs[o].cls for o in st.seen_objs if o in st.objs}
    held = st.held()
    named = (a.object_target, a.parent_target, a.mrecep_target, a.toggle_target)
    return sorted(walk_classes(seen, [c for c in named if c], held.cls if held else None))


def interactions(world: World) -> Iterator[str]:
    """The interactions worth trying here: opening what is here (to reach inside or to look), closing only the
    fridge that cools, switching on only what makes the state or lights the look (switching off never helps),
    picking up what the task names, cutting with a knife in hand, putting down what is held."""
    here, visible = _here_classes(world)
    if not here:
        return
    objs, places = task_classes(world)
    held = world.state.held()
    closing = {"Fridge"} if world.task.task_type == "pick_cool_then_place_in_recep" else set()
    switching = (places | objs) & TOGGLEABLE
    for cls in [here, *visible]:
        if cls in OPENABLE:
            yield f"OpenObject {cls}"
            if cls in closing:
                yield f"CloseObject {cls}"
        if cls in switching:
            yield f"ToggleObjectOn {cls}"
    for cls in visible:
        if cls in PICKUPABLE and held is None and cls in objs:
            yield f"PickupObject {cls}"
        if held is not None and held.cls in KNIVES and cls in SLICED_OF:
            yield f"SliceObject {cls}"
    if held is not None:
        for recep in [here, *(c for c in visible if c in MOVABLE_RECEPTACLES)]:
            yield f"PutObject {held.cls} {recep}"


def walks(world: World) -> dict[tuple[str, ...], str]:
    """Each distinct sequence of places a legal walk leads through (last: where it ends), with the first class that
    leads there (classes that lead alike reach the same state; a walk through no place changes nothing)."""
    out: dict[tuple[str, ...], str] = {}
    for cls, (path, _) in world.nav.resolve_all(walk_targets(world)).items():
        out.setdefault(tuple(path), cls)
    out.pop((), None)
    return out


def successors(world: World) -> Iterator[tuple[str, World]]:
    """Each sub-goal that changes the world from here, with the world it leads to: one walk per distinct sequence
    of places, then the interactions the world accepts (a refused one changes nothing: never on a shortest plan)."""
    for cls in walks(world).values():
        nxt = world.fork(bounded=False)
        nxt.attempt(f"Navigation {cls}")  # a walk that ends "not found" still went where it went
        yield f"Navigation {cls}", nxt
    for subgoal in dict.fromkeys(interactions(world)):
        nxt = world.fork(bounded=False)
        if not nxt.attempt(subgoal):
            yield subgoal, nxt


def state_key(world: World) -> tuple:
    """What decides the rest of the episode: the world's state, and what the robot knows that decides where its walks
    go (the places it visited, the objects it saw, per class of place the order of its last visits). The pieces of a
    slice are told apart by class only (they are made alike: which piece is where does not change what can be
    done)."""
    st = world.state
    objs, open_, on, at, holding = st.snapshot()
    by_cls: dict[str, list[str]] = {}
    for pid in st.last_visit:
        by_cls.setdefault(st.places[pid].cls, []).append(pid)
    # "another C" at a known C goes to the least recently visited other one: only the order within a class counts
    order = []
    for _, ids in sorted(by_cls.items()):
        if len(ids) > 1:
            times = sorted({st.last_visit[p] for p in ids})
            order.append(tuple(sorted((times.index(st.last_visit[p]), p) for p in ids)))
    name = {o[0]: o[1] for o in objs if o[1] in SLICES}
    seen = tuple(sorted(name.get(oid, oid) for oid in st.seen_objs))
    if name:
        objs = tuple(sorted((name.get(oid, oid), cls, name.get(parent, parent), *rest)
                            for oid, cls, parent, *rest in objs))
        holding = name.get(holding, holding)
    return objs, open_, on, at, holding, tuple(sorted(st.last_visit)), seen, tuple(order)


def _walks(world: World, routes: list[list[set[str]]]) -> int:
    """The fewest walks along the best of `routes`: each a list of stops, each stop the place ids where a needed
    interaction can happen; consecutive stops at different places need a walk between them. From where the agent
    stands, a place no legal walk ends at needs more (`_walks_to`)."""
    at = world.state.at
    reach = {path[-1] for path in walks(world)} if any(routes) else set()
    best = None
    for stops in routes:
        cost: dict[str | None, int] = {at: 0}
        for i, places in enumerate(stops):
            if not places:
                break
            if i == 0:
                cost = {p: 0 if p == at else 1 if p in reach else _walks_to(world, p) for p in places}
            else:
                cost = {p: min(c + (q != p) for q, c in cost.items()) for p in places}
        else:
            low = min(cost.values())
            best = low if best is None else min(best, low)
    return best or 0


def _via(world: World, routes: list[list[set[str]]], stop: set[str]) -> int:
    """The fewest walks along the best of `routes` with one more stop (at one of `stop`) anywhere on it; a change of
    place counts one walk."""
    best = None
    for stops in routes:
        if not all(stops):
            continue
        for i in range(len(stops) + 1):
            cost: dict[str | None, int] = {world.state.at: 0}
            for places in [*stops[:i], stop, *stops[i:]]:
                cost = {p: min(c + (q != p) for q, c in cost.items()) for p in places}
            low = min(cost.values())
            best = low if best is None else min(best, low)
    return best or 0


def _walks_to(world: World, q: str) -> int:
    """At least how many walks reach place `q`, which no walk from here ends at (so two at least). A walk ends at a
    visited place only as the nearest known one of a class (a place class, or the class of an object seen there), or
    going round the instances of its class, least recently visited first: then every instance visited before `q`
    must be visited again first, one walk each (a walk passes through unvisited places only)."""
    st, nav = world.state, world.nav
    if q not in st.visited or any(st.root(st.objs[o]) == q for o in st.seen_objs if o in st.objs):
        return 2  # exploration may end there; an object seen there may be the nearest of its class from somewhere
    cls = st.places[q].cls
    known = [p for p in st.visited if st.places[p].cls == cls]
    if any(nav.nearest(p, known) == q for p in st.places if p not in known):
        return 2
    last = st.last_visit
    before = sum(1 for c in known if c not in (q, st.at) and last[c] < last[q])
    return max(2, max(before, 0 if st.at in known else 1) + 1)


def _disjoint(sets: list[set[str]]) -> int:
    """The most of `sets` that are pairwise disjoint (each set: containers of which one must be opened; disjoint
    ones need an open each)."""
    sets = [x for x in sets if x]
    best = 0
    for mask in range(1 << len(sets)):
        chosen = [x for i, x in enumerate(sets) if mask >> i & 1]
        if len(chosen) > best and all(not (u & v) for i, u in enumerate(chosen) for v in chosen[i + 1:]):
            best = len(chosen)
    return best


def lower_bound(world: World) -> int:
    """An admissible estimate of the sub-goals left (never more than d): the puts, pickups, cuts, switches and opens
    the goal still needs, plus the walks between the places where they must happen, in the orders the task allows.
    tests/household/expert/test_cost_to_go.py checks d against a search of its own.

    Before a cut: a knife in hand and the cut, then what is left as if the pieces lay where each whole one lies now
    (moving a whole one before the cut costs what moving a piece after it does; the pieces appear where it is cut),
    with a stop at a knife somewhere on the way, and the knife put down after the cut where a piece (or the
    receptacle that holds them) must still be picked up."""
    a = world.task.args
    st = world.state
    if a.object_sliced and not st.objects_of(SLICED_OF[a.object_target]):
        held = st.held()
        if held is not None and held.cls in KNIVES:
            return 1 + _left(_as_cut(world))
        knives = {st.root(o) for k in KNIVES for o in st.objects_of(k)}
        # the knife put down after the cut, unless the pieces may be cut where they end (in p, or in a receptacle
        # already in p): a piece or the receptacle is picked up after
        p = place_class(a.parent_target)
        m_in_p = any(st.inside_cls(m, p) for m in st.objects_of(a.mrecep_target))
        after = world.task.task_type not in ("pick_and_place_simple", "pick_two_obj_and_place") and \
            not (a.mrecep_target and m_in_p) and p not in APPLIANCES.get(world.task.task_type, ())
        return 2 + after + _left(_as_cut(world), knives)
    return _left(world)


def _as_cut(world: World) -> World:
    """A copy of the world with each whole object of the task cut where it lies (in hand: the pieces in hand), seen
    where it was seen."""
    out = world.fork(bounded=False)
    st = out.state
    whole = world.task.args.object_target
    for o in st.objects_of(whole):
        st.remove(o)
        pieces = [Obj(f"{o.id}-piece{i}", SLICED_OF[whole], o.parent, False, False) for i in range(N_SLICES)]
        for piece in pieces:
            st.add(piece)
        if o.id in st.seen_objs:  # known where the whole one was seen: walks to the pieces go there
            st.see(pieces)
        if st.holding == o.id:
            st.holding = pieces[0].id
    return out


def _left(world: World, knife_at: set[str] | None = None) -> int:
    """`lower_bound` once nothing is left to cut; `knife_at`: places of which one the walks must also stop at."""
    st, a, tt = world.state, world.task.args, world.task.task_type

    def walk(routes: list[list[set[str]]]) -> int:
        return _walks(world, routes) if not knife_at else max(_walks(world, routes), _via(world, routes, knife_at))

    x = SLICED_OF[a.object_target] if a.object_sliced else a.object_target
    p = place_class(a.parent_target) if a.parent_target else ""
    held = st.held()
    holding_x = held is not None and held.cls == x
    xs = st.objects_of(x)

    def roots(cls: str) -> set[str]:
        return {st.root(o) for o in st.objects_of(cls) if o.parent != HAND}

    def at_class(cls: str) -> set[str]:
        return {pid for pid, q in st.places.items() if q.cls == cls} | roots(cls)

    def hidden(classes: Iterable[str]) -> set[str]:
        """The closed holders around the objects of `classes` outside the hand when every one is shut in (one of
        them must be opened to pick one up); else nothing."""
        out: set[str] = set()
        for o in (o for c in classes for o in st.objects_of(c) if o.parent != HAND):
            shut = {h for h in st.ancestors(o) if st.is_closed(h)}
            if not shut:
                return set()
            out |= shut
        return out

    def closed(cls: str) -> set[str]:
        """The places of class `cls` when all are closed (one must be opened to put into it); else nothing."""
        ids = {pid for pid, q in st.places.items() if q.cls == cls}
        return ids if ids and all(st.is_closed(i) for i in ids) else set()

    h = 0
    fetch: list[set[str]] = [] if holding_x else [roots(x)]
    drop = int(held is not None and not holding_x)  # a put-down before x is picked up
    opens: list[set[str]] = [set() if holding_x else hidden([x])]
    if tt == "look_at_obj_in_light":
        if not holding_x:
            h += 1 + drop  # put down what is held, pick it up
        lit = st.lamp_on_here(a.toggle_target)
        return h + (not lit) + _disjoint(opens) + \
            (0 if holding_x and lit else walk([fetch + [at_class(a.toggle_target)]]))
    if tt == "pick_and_place_with_movable_recep":
        ms = st.objects_of(a.mrecep_target)
        in_m = [o for o in xs if any(st.inside_obj(o, m.id) for m in ms)]
        m_in_p = [m for m in ms if st.inside_cls(m, p)]
        if any(st.inside_obj(o, m.id) for m in m_in_p for o in in_m):
            return h
        held_m = held is not None and held.cls == a.mrecep_target
        if not in_m:  # x into a receptacle (picked up first), that one into p (picked up first) unless there
            if held_m and not m_in_p:
                drop = 0  # the receptacle in hand can go into p first
            h += 1 + (not holding_x) * (1 + drop) + (0 if m_in_p else 1 + (not held_m))
            if not m_in_p:
                opens += [closed(p), set() if held_m else hidden([a.mrecep_target])]
            m_at = set() if held_m else roots(a.mrecep_target)
            routes = [fetch + [m_at] + [at_class(p)], [m_at, at_class(p)] + fetch + [at_class(p)]]
            if m_in_p:
                routes.append(fetch + [at_class(p)])
            return h + _disjoint(opens) + walk([[s for s in r if s] if held_m else r for r in routes])
        # a put into p (after its pickup, with the hand empty)
        h += 1 + (not held_m) * (1 + (held is not None))
        opens = [closed(p), set() if held_m else hidden([a.mrecep_target])]
        return h + _disjoint(opens) + walk([([] if held_m else [roots(a.mrecep_target)]) + [at_class(p)]])
    flag = {"pick_heat_then_place_in_recep": "heated", "pick_cool_then_place_in_recep": "cooled",
            "pick_clean_then_place_in_recep": "cleaned"}.get(tt)
    done_x = [o for o in xs if (flag is None or getattr(o, flag)) and st.inside_cls(o, p)]
    if tt == "pick_two_obj_and_place":
        per: dict[str, int] = {}
        for o in xs:
            for anc in st.ancestor_places(o, p):
                per[anc] = per.get(anc, 0) + 1
        need = 2 - min(2, max(per.values(), default=0))
        if need and any(sum(st.inside_obj(o, m.id) for o in xs) >= need for m in st.objs.values()
                        if m.cls in MOVABLE_RECEPTACLES):
            return h + 1 + walk([[at_class(p)]])  # carried in together: one put into p at least
        if need == 2:  # one at a time: the second fetched after the first is put
            fetch = fetch + [at_class(p), roots(x)]
        elif need == 1:  # the second into a place with one (moving the one there is no shorter)
            if not holding_x:
                fetch = [{st.root(o) for o in xs if o.parent != HAND and (len(per) > 1 or not st.inside_cls(o, p))}]
            return h + 1 + (0 if holding_x else 1 + drop) + _disjoint(opens) + walk([fetch + [set(per)]])
    else:
        need = 0 if done_x else 1
    if not need:
        return h
    opens.append(closed(p))
    appliance = APPLIANCES.get(tt, ("",))[0]
    if flag and not any(getattr(o, flag) for o in xs):
        inside = [o for o in xs if st.inside_cls(o, appliance)]
        # made in the appliance: switched on (the fridge closed) unless it runs already and x goes in now; the
        # fridge opened again after closing; taken out (the hand empty first) and put into p
        running = any(q.cls == "Microwave" and st.on.get(pid) for pid, q in st.places.items()) if flag == "heated" \
            else any(o.cls == "Faucet" and o.is_on for o in st.objs.values()) if flag == "cleaned" else False
        h += (1 if inside or not running else 0) + (flag == "cooled" and p != appliance) + 2
        if inside:
            h += held is not None
            stops = [at_class(appliance), at_class(p)]
        else:
            h += (not holding_x) * (1 + drop) + 1  # picked up (the hand empty first), put into the appliance
            opens.append(closed(appliance))
            stops = fetch + [at_class(appliance), at_class(p)]
        return h + _disjoint(opens) + walk([stops])
    pickups = max(0, need - holding_x)
    h += need + pickups + (drop if pickups else 0)  # each put into p, each pickup of what is not in hand
    return h + _disjoint(opens) + walk([fetch + [at_class(p)]])


def _search(world: World, limit: int, known: dict[tuple, int] | None) -> tuple[int, list[str]] | None:
    """A*: the length of a shortest plan and its sub-goals (the tail after a state of `known`, whose exact d is
    reused, is left out); None beyond `limit`. Fills `known` along the plan."""
    start = world.fork(bounded=False)
    known = {} if known is None else known
    start_key = state_key(start)
    if start.success:
        return 0, []
    if start.done:  # ended without the goal (Stop, or ALFRED's budgets): nothing can reach it any more
        return None
    best = {start_key: 0}
    parent: dict[tuple, tuple[tuple, str] | None] = {start_key: None}
    tie = count()
    heap = [(lower_bound(start), 0, next(tie), start, start_key)]

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
        if key in known:  # its exact d is known: done once nothing on the heap can be shorter
            if g + known[key] > f:  # it became known after it was queued with an estimate: queue it exactly
                heapq.heappush(heap, (g + known[key], g, next(tie), node, key))
                continue
            return finish(key, g + known[key])
        if g >= limit or f > limit:  # f never overshoots: nothing through here is within `limit`
            continue
        for subgoal, nxt in successors(node):
            nkey = state_key(nxt)
            if g + 1 >= best.get(nkey, limit + 1):
                continue
            best[nkey], parent[nkey] = g + 1, (key, subgoal)
            h = known[nkey] if nkey in known else lower_bound(nxt)
            heapq.heappush(heap, (g + 1 + h, g + 1, next(tie), nxt, nkey))
    return None


def shortest_plan(world: World, limit: int = LIMIT) -> list[str] | None:
    """The fewest sub-goals from `world`'s state to the goal (a plan of them), or None beyond `limit`."""
    found = _search(world, limit, None)
    return None if found is None else found[1]


def cost_to_go(world: World, limit: int = LIMIT, known: dict[tuple, int] | None = None) -> int | None:
    """d(s): the length of the shortest plan from `world`'s state to the goal; None when none within `limit`.
    `known` (state_key -> d, one task's episode) is read as exact and filled along each plan found: the states one
    step away from a solved one mostly finish at once."""
    found = _search(world, limit, known)
    return None if found is None else found[0]
