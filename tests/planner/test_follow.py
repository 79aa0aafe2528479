"""The follower (planner/follow/): situations in roles round-trip through abstraction and instantiation, a role the
task does not have is never instantiated, the vote, its tie rule and the fallback do what they say, a record that
cannot be abstracted fails naming file, line and field, and corrections at the probe's own states make the follower
optimal there while an empty pool does not."""
from __future__ import annotations

import time

import pytest

from household.world.tasks import get_task
from planner.config import PlannerConfig
from planner.follow.reader import Follower, follower_from_config
from planner.follow.situation import (OTHER, Advice, Live, Situation, SituationError, abstract_step, arg_roles,
                                      instances, instantiate, live_situation, pool_situations)
from planner.probe.picks import follow_pick, score
from pools.records import Correction, Sample
from tests.planner.test_probe import _corrections_at, generated

CFG = PlannerConfig.from_params(scaffold="none")
SEED = CFG.world.seed
HEAT = {"object_target": "Apple", "parent_target": "Fridge", "mrecep_target": "", "toggle_target": "",
        "object_state": "heat", "object_sliced": False, "two_objects": False}
SLICE = {**HEAT, "object_state": "none", "object_sliced": True, "parent_target": "CounterTop"}


def test_abstraction_and_instantiation_round_trip():
    trace = [("Navigation Apple", ""), ("PickupObject Apple", ""), ("Navigation Microwave", ""),
             ("OpenObject Microwave", ""), ("PutObject Apple Microwave", "Microwave is closed")]
    live = live_situation("pick_heat_then_place_in_recep", HEAT, trace, 3)
    assert live.situation.held == "<target>" and live.situation.recent[-1] == (
        "PutObject <target> <appliance> [failed: <appliance> is closed]")
    for step in ("PutObject Apple Microwave", "ToggleObjectOn Microwave", "Navigation Fridge", "PickupObject Apple",
                 "OpenObject Microwave"):
        abstract = abstract_step(step, live.classes)
        assert OTHER not in abstract
        assert instantiate(abstract, live, [step, "Stop"]) == step  # back to the very step
    # the place the agent stands at and the held object are roles of the situation
    at_sink = live_situation("pick_clean_then_place_in_recep", {**HEAT, "object_state": "clean"},
                             [("Navigation Mug", ""), ("PickupObject Mug", ""), ("Navigation Shelf", "")], 3)
    assert abstract_step("PutObject Mug Shelf", at_sink.classes) == "PutObject <held> <here>"
    assert instantiate("PutObject <held> <here>", at_sink, ["PutObject Mug Shelf"]) == "PutObject Mug Shelf"
    # a slicing task's knife and slice
    sliced = live_situation("pick_and_place_simple", SLICE, [("Navigation Knife", ""), ("PickupObject Knife", "")], 3)
    assert abstract_step("SliceObject Apple", sliced.classes) == "SliceObject <target>"
    assert sliced.situation.held == "<knife>"
    assert abstract_step("PickupObject AppleSliced", sliced.classes) == "PickupObject <target_sliced>"
    assert instantiate("PickupObject <target_sliced>", sliced, ["PickupObject AppleSliced"]) == \
        "PickupObject AppleSliced"


def test_a_role_the_task_does_not_have_is_never_instantiated():
    live = live_situation("pick_and_place_simple", {**HEAT, "object_state": "none"}, [], 3)
    assert "<mrecep>" not in live.classes and "<knife>" not in live.classes and "<held>" not in live.classes
    legal = ["PutObject Apple Plate", "PickupObject Knife", "Navigation Plate", "Navigation Microwave", "Stop"]
    for abstract in ("PutObject <target> <mrecep>", "PickupObject <knife>", "Navigation <other>",
                     "Navigation <appliance>", "PutObject <held> <parent>"):
        assert instances(abstract, live.classes) == []
        assert instantiate(abstract, live, legal) is None
    # the heat task has its appliance, and an instance outside the legal set is not kept
    heat = live_situation("pick_heat_then_place_in_recep", HEAT, [], 3)
    assert instantiate("Navigation <appliance>", heat, legal) == "Navigation Microwave"
    assert instantiate("Navigation <appliance>", heat, ["Stop"]) is None
    assert arg_roles(HEAT)["<appliance>"] == ("Microwave",)
    assert arg_roles({**HEAT, "object_state": "clean"})["<appliance>"] == ("SinkBasin", "Faucet")


def _advice(recent: tuple[str, ...], step: str, kind: str = "gt", held: str = "") -> Advice:
    args = tuple(HEAT.items())
    return Advice(Situation("pick_heat_then_place_in_recep", tuple((k, str(v)) for k, v in args), held, (), recent,
                            False), step, kind, f"x@{len(recent)}")


def _live(recent: tuple[str, ...], held: str = "") -> Live:
    at = live_situation("pick_heat_then_place_in_recep", HEAT, [], 3)
    return Live(Situation(at.situation.task_type, at.situation.args, held, (), recent, False), at.classes)


def test_the_vote_the_tie_rule_and_the_fallback():
    legal = ["Navigation Apple", "Navigation Microwave", "Navigation Fridge", "Stop"]
    a, b = ("Navigation <target>",), ("Navigation <appliance>",)
    pool = [_advice(a, "Navigation <parent>"), _advice(a, "Navigation <appliance>"),
            _advice(a, "Navigation <appliance>"), _advice(b, "Navigation <target>")]
    got = Follower(pool).decide(_live(a), legal)
    # an exact match: three voters, the appliance twice
    assert got.how == "exact" and got.picks == ("Navigation Microwave", "Navigation Fridge") and got.neighbours == 3
    # a tie (one vote each): pool_order takes the step voted first in the pool, alphabetical the first by its text
    tie = [_advice(a, "Navigation <parent>"), _advice(a, "Navigation <appliance>")]
    assert Follower(tie, tie="pool_order").decide(_live(a), legal).picks[0] == "Navigation Fridge"
    assert Follower(tie, tie="alphabetical").decide(_live(a), legal).picks[0] == "Navigation Microwave"
    # no exact match: the nearest by the common suffix of recent steps
    near = Follower(pool).decide(_live(("Navigation <parent>",) + b), legal)
    assert near.how == "nearest" and near.picks == ("Navigation Apple",)
    # a level whose steps are not legal here (a role the task lacks, an <other>) gives way to the next level
    backoff = Follower([_advice(a, "PickupObject <knife>"), _advice(a, "Navigation <other>"),
                        _advice(b, "Navigation <appliance>")]).decide(_live(a), legal)
    assert backoff.how == "nearest" and backoff.picks == ("Navigation Microwave",)
    # an empty pool, or a vote with nothing legal: the fallback, a seeded legal option other than Stop, said so
    empty = Follower([], seed=3)
    first = empty.decide(_live(a), legal)
    assert first.how == "fallback" and len(first.picks) == 1 and first.picks[0] in legal[:3]
    assert empty.decide(_live(a), legal) == first  # deterministic
    picks = {Follower([], seed=s).decide(_live(a), legal).picks[0] for s in range(20)}
    assert len(picks) > 1 and "Stop" not in picks  # seeded, not constant
    assert Follower(pool).decide(_live(a), ["Stop"]).how == "fallback"
    with pytest.raises(ValueError, match="follow_tie"):
        Follower(pool, tie="random")


def test_a_record_that_cannot_be_abstracted_names_file_line_and_field():
    bad = Sample.model_construct(id="gt-x", kind="gt", task_id="t", task_type="pick_and_place_simple",
                                 instruction="x", args=dict(HEAT), steps=["Navigation Apple", "Dance Apple"],
                                 verified=True, source="expert", reasons=[])
    with pytest.raises(SituationError, match=r"data/pools/gt\.jsonl:7: field steps\[1\]: 'Dance Apple'"):
        Follower.from_records([(bad, "data/pools/gt.jsonl:7")], 3)
    no_args = Sample.model_construct(**{**dict(bad), "steps": ["Navigation Apple"], "args": None})
    with pytest.raises(SituationError, match=r"gt\.jsonl:2: field args"):
        pool_situations(no_args, 3, "data/pools/gt.jsonl:2")


def test_corrections_at_the_probes_states_make_the_follower_optimal_there_and_an_empty_pool_does_not():
    states = [s for s in generated() if s.kind == "recovery"]
    fixes = []
    for s, c in zip(states, _corrections_at(states)):
        t = get_task(s.task_id)
        live = live_situation(t.task_type, t.args.as_dict(), list(zip(c.steps, c.reasons)), CFG.retrieval.follow_window)
        shown = [o for o in c.optimal if instantiate(abstract_step(o, live.classes), live, s.legal) == o]
        if shown:  # an optimal option the roles can write (a walk to an <other> class cannot be followed)
            fixes.append((s, Correction.new(**{**{k: getattr(c, k) for k in (
                "task_id", "task_type", "instruction", "args", "source", "steps", "reasons", "label", "d",
                "optimal", "shown_by", "robot_next")}, "shown": shown[0]})))
    assert len(fixes) >= 0.5 * len(states) and len(fixes) >= 15, (len(fixes), len(states))
    full = follower_from_config([(c, f"c:{i}") for i, (_, c) in enumerate(fixes)], CFG.retrieval, SEED)
    empty = follower_from_config([], CFG.retrieval, SEED)
    scores = {}
    for name, follower in (("corrections", full), ("empty", empty)):
        t0, rows = time.perf_counter(), []
        for s, _ in fixes:
            pick, how = follow_pick(follower, get_task(s.task_id), s, CFG, SEED)
            rows.append((score(s, pick)[0], how))
        scores[name] = rows
    assert all(opt for opt, _ in scores["corrections"]), scores["corrections"]
    assert {how for _, how in scores["corrections"]} == {"exact"}
    assert {how for _, how in scores["empty"]} == {"fallback"}
    assert sum(opt for opt, _ in scores["empty"]) < len(fixes)  # the fallback is no oracle
