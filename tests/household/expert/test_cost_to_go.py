"""The expert's cost-to-go d(s) (household/expert/cost_to_go.py), checked against a search of its own
(tests/household/bfs.py: no code of cost_to_go.py) that steps every sub-goal the robot could say through the world.

States: expert prefixes and a wrong step after one (a walk elsewhere, a wrong pickup, a wrong put) on real scenes,
so also something wrong in hand, an object in the wrong receptacle, a state already made, one of two objects already
placed; and states a few random steps into small generated scenes (several drawers, cabinets, closed containers),
where the independent search goes 8 sub-goals deep. d must equal that search; d must be the one-step minimum of d
over everything sayable (which a consistent underestimate is not); the A* estimate must never overshoot.
"""
from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import pytest

from tests.household.bfs import distance, key, plays, sayable
from tests.household.helpers import make_task

from household.expert.cost_to_go import LIMIT, cost_to_go, lower_bound, shortest_plan
from household.expert.env import Env
from household.expert.expert import solve
from household.world.floorplans import Place
from household.world.layout import ObjectSpec, Scene
from household.world.ontology import accepts
from household.world.tasks import load_tasks
from household.world.world import World

PER_TYPE = 3


def after(world: World, subgoal: str) -> World:
    nxt = world.fork(bounded=False)
    nxt.step(subgoal)
    return nxt


@lru_cache(maxsize=1)
def states() -> list[tuple[str, World]]:
    """(label, world): expert prefixes and a wrong step after some of them, over PER_TYPE tasks of each type."""
    rng = random.Random(0)
    by_type: dict[str, list] = {}
    for t in load_tasks("valid_seen"):
        by_type.setdefault(t.task_type, []).append(t)
    out = []
    for tt, tasks in sorted(by_type.items()):
        for task in rng.sample(tasks, PER_TYPE):
            env = Env(task, seed=0)
            plan = solve(task, 0, env.scene).plan
            world = env.fork(bounded=False)
            for k, step in enumerate(plan):
                out.append((f"{tt} prefix {k}/{len(plan)}", world))
                wrong = [o for o in sayable(world) if o not in plan[k:k + 1]]
                for kind in ("Navigation", "PickupObject", "PutObject"):
                    pick = [o for o in wrong if o.startswith(kind)]
                    if pick and rng.random() < 0.5:
                        out.append((f"{tt} prefix {k}/{len(plan)} + {kind}", after(world, rng.choice(pick))))
                world = after(world, step)
    return out


KNOWN: dict[str, dict[tuple, int]] = {}  # task id -> exact d of the states its searches solved


def d(world: World, limit: int = LIMIT) -> int | None:
    return cost_to_go(world, limit, known=KNOWN.setdefault(world.task.id, {}))


@lru_cache(maxsize=None)
def d_of(index: int) -> int | None:
    return d(states()[index][1])


# Small scenes: a few places of each class, so that `Navigation C` must pick among instances, and the search of
# tests/household/bfs.py can still go 8 and more sub-goals deep.
SPARE = ("CounterTop", "Cabinet", "Cabinet", "Drawer", "Drawer", "DiningTable")
FIXED = ("Microwave", "Fridge", "SinkBasin", "SideTable")
TASKS = (("pick_and_place_simple", "Mug", "Cabinet", "", "", False),
         ("pick_and_place_simple", "Apple", "DiningTable", "", "", True),
         ("pick_two_obj_and_place", "Pencil", "Drawer", "", "", False),
         ("pick_heat_then_place_in_recep", "Apple", "CounterTop", "", "", False),
         ("pick_cool_then_place_in_recep", "Tomato", "SideTable", "", "", False),
         ("pick_clean_then_place_in_recep", "Mug", "Cabinet", "", "", False),
         ("look_at_obj_in_light", "Book", "", "", "DeskLamp", False),
         ("pick_and_place_with_movable_recep", "Apple", "CounterTop", "Bowl", "", False))


def small_world(rng: random.Random, spec: tuple) -> World:
    """A seeded small scene for a task: its parent, the appliances, a side table with a lamp and two spare places
    (random poses), the task's objects and one distractor where the receptacle rules allow."""
    task_type, obj, parent, mrecep, toggle, sliced = spec
    classes = [parent] * bool(parent) + rng.sample(SPARE, 2) + list(FIXED)
    places = tuple(Place(f"Sink|{i}|SinkBasin" if c == "SinkBasin" else f"{c}|{i}", c,
                         (rng.randrange(12) * 0.25, rng.randrange(12) * 0.25, rng.choice((0, 90, 180, 270)),
                          rng.choice((0, 30)))) for i, c in enumerate(classes))
    by_cls = {p.cls: p.id for p in places}
    objects = [ObjectSpec("Faucet_0", "Faucet", by_cls["SinkBasin"]), ObjectSpec("DeskLamp_0", "DeskLamp",
                                                                                 by_cls["SideTable"])]
    wanted = [obj] * (2 if task_type == "pick_two_obj_and_place" else rng.choice((1, 2)))
    wanted += [mrecep] * bool(mrecep) + ["Knife"] * sliced + [rng.choice(("Mug", "Plate", "Pencil", "Tomato"))]
    for cls in wanted:
        where = [p.id for p in places if accepts(p.cls, cls)]
        objects.append(ObjectSpec(f"{cls}_{len(objects)}", cls, rng.choice(where)))
    scene = Scene(0, places, tuple(objects), (rng.randrange(12) * 0.25, 0.0, 0, 30), {"object": ()})
    return World(make_task(task_type, obj, parent, mrecep, toggle, sliced), scene, seed=rng.randrange(100))


@lru_cache(maxsize=1)
def small_states() -> list[tuple[str, World, int]]:
    """(label, world, d): a few random sayable steps into small scenes, where d is 6 (one per task type) or 8 (four
    task types): deep enough to tell searches apart, shallow enough for breadth first."""
    rng = random.Random(3)
    out: list[tuple[str, World, int]] = []
    taken: Counter = Counter()
    for i in range(120):
        spec = TASKS[i % len(TASKS)]
        world = small_world(rng, spec)
        for _ in range(rng.randrange(4)):
            world.step(rng.choice(sayable(world)))
        here = cost_to_go(world)
        if not world.done and here in (6, 8) and not taken[spec[0], here] and (here == 6 or taken[8] < 4):
            taken[spec[0], here] += 1
            taken[here] += 1  # type: ignore[index]
            out.append((f"{spec[0]} small scene {i}", world, here))
    return out


def test_the_states_cover_what_matters() -> None:
    got = states()
    assert len(got) >= 300, len(got)
    kinds = Counter(label.split(" + ")[-1] if " + " in label else "prefix" for label, _ in got)
    assert {"prefix", "Navigation", "PickupObject", "PutObject"} <= set(kinds), kinds
    # something wrong in hand, and the state already made on the way of a heat/cool/clean task
    assert any(w.state.held() is not None and w.state.held().cls != w.task.args.object_target for _, w in got)
    assert any(getattr(o, "heated") for _, w in got for o in w.state.objs.values())
    small = small_states()
    assert len({label.split()[0] for label, _, d in small if d >= 8}) >= 4  # d of 8 in several task types


@pytest.mark.slow
def test_d_is_defined_and_the_one_step_minimum_over_everything_sayable() -> None:
    undefined = [label for i, (label, _) in enumerate(states()) if d_of(i) is None]
    # counted and reported, never dropped: there are none on these states (print them if there ever are)
    print(f"\nd undefined on {len(undefined)} of {len(states())} states: {undefined[:5]}")
    assert not undefined
    wrong = []
    for i, (label, world) in enumerate(states()):
        here = d_of(i)
        assert lower_bound(world) <= here, (label, lower_bound(world), here)  # the A* estimate never overshoots
        if here == 0:
            assert world.success, label
            continue
        # the states the options lead to, once each (a refused step leaves the state as it is)
        nexts = {key(w): w for w in (after(world, o) for o in sayable(world))}
        nexts.pop(key(world), None)
        # d of each next state, searched only as deep as d - 1: the minimum is exact where it is d - 1 or less,
        # and None says that every next state needs more (so d is too short)
        best = min((x for x in (d(w, here - 1) for w in nexts.values() if not w.done or w.success)
                    if x is not None), default=None)
        if best is None or here != 1 + best:  # too long (an option is nearer), or too short (none is)
            wrong.append((label, here, best))
    assert not wrong, wrong[:5]


def agrees(world: World, here: int) -> bool:
    """d is right by the independent search: no plan shorter than d (breadth first to d - 1), and the plan the
    cost-to-go found has d sub-goals, each sayable, the last reaching the goal (played in the world)."""
    plan = shortest_plan(world)
    return plan is not None and len(plan) == here and plays(world, plan) and distance(world, here - 1) is None


def test_d_equals_an_independent_search_on_real_scenes_where_short() -> None:
    short = [(label, world, d_of(i)) for i, (label, world) in enumerate(states()) if 0 < (d_of(i) or 9) <= 3]
    assert len(short) >= 100, len(short)
    differ = [(label, here, distance(world, here)) for label, world, here in short if not agrees(world, here)]
    assert not differ, differ[:5]


@pytest.mark.slow
def test_d_equals_an_independent_search_on_small_scenes_up_to_8() -> None:
    differ = [(label, here, distance(world, here), lower_bound(world)) for label, world, here in small_states()
              if not agrees(world, here) or lower_bound(world) > here]
    assert not differ, differ[:5]


def test_the_experts_plan_bounds_d_from_its_prefixes_where_the_robot_could_say_it() -> None:
    # The expert walks to classes the robot has not seen (it knows the scene); d counts only walks the robot's
    # legal set offers, so the rest of the expert's plan bounds d where every step of it is sayable.
    plans = {}
    sayable_tails = 0
    for i, (label, world) in enumerate(states()):
        if " + " not in label:
            k, n = map(int, label.rsplit(" ", 1)[1].split("/"))
            if world.task.id not in plans:
                plans[world.task.id] = solve(world.task, 0).plan
            if plays(world, plans[world.task.id][k:]):
                sayable_tails += 1
                assert d_of(i) <= n - k, (label, d_of(i))
    assert sayable_tails >= 100, sayable_tails
