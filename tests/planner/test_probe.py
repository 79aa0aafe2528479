"""The probe (planner/probe/): states rebuilt by replay give the actor the very prompt `run_episode` built at that step,
the stored cost-to-go is what a fresh search gives, a recovery state's wrong step never lowers d, every kept state can
tell a good pick from a bad one, picks are scored by the cost-to-go with random's exact rate beside them, and a pool
whose examples show a recovery raises the score on such states (and corrections at the probe's own situations lift a
copy-the-nearest-example policy to the optimum there, under step retrieval)."""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace
from functools import lru_cache

import pytest

from household.expert.cost_to_go import cost_to_go
from household.expert.expert import solve
from household.world.ontology import TASK_TYPES
from household.world.tasks import get_task, load_tasks
from planner.config import PlannerConfig
from llm.client import LLMClient
from planner.prompts.parsing import format_args
from llm.scripted import ScriptedEndpoint, grammar_choices
from planner.loop.episode import History, run_episode
from planner.loop.replay import new_env
from planner.probe.picks import actor_pick, chance, random_pick, score
from planner.probe.states import (DROPPED, context, discriminates, make_state, on_policy_states, recovery_states,
                                  replay_state)
from planner.retrieval.examples import ExamplePools
from planner.retrieval.grounding import Grounder
from planner.search.assembly import make_actor
from pools.records import Correction, ProbeState, Sample
from tests.planner.helpers import ListIndex, first_task

CFG = PlannerConfig.from_params(k=2, width=1, max_subgoals=6, scaffold="none")
SEED = CFG.world.seed


@pytest.mark.parametrize("unit", ["task", "step"])
def test_the_probe_asks_with_the_prompt_the_episode_built_at_that_step(task, pools, tmp_path, unit):
    # step: windows retrieved by the situation at each prompt (the real encoder, so the situation decides them)
    cfg = CFG.replace(unit=unit)
    if unit == "step":
        pools = ExamplePools(gt=pools.gt)

    def answer(request):
        if request.prompt.startswith("Read each"):
            return " " + format_args(task.args.as_dict())
        options = grammar_choices(request.body)
        return " " + (options[-2] if len(options) > 1 else options[0])  # some step, the same each time

    with ScriptedEndpoint(answer) as ep, \
            LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / "a") as client:
        r = run_episode(task, "no_hindsight", pools, client, cfg)
        episode = [q.prompt for q in ep.requests if q.prompt.startswith("Robot plans")]
    executed = [s.subgoal for s in r.steps]
    assert len(executed) >= 3 and len(episode) == len(executed)  # one actor call per step: episode[i] is step i's
    asked_at = 0
    for i in range(len(executed)):
        state, _ = make_state(task, "on_policy", "", executed[:i], cfg, SEED, {})
        if state is None:
            continue  # not a probe state (the same prompt is checked at the others)
        with ScriptedEndpoint(answer) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / f"b{i}") as client:
            actor = make_actor("gt", task, pools, client, cfg, Grounder(cfg.retrieval.map_threshold))
            pick = actor_pick(actor, task, state, cfg, SEED)
            asked = [q.prompt for q in ep.requests]
        same = [j for j, p in enumerate(episode) if p == asked[0]]
        assert asked[0] == episode[i], f"step {i}: the probe asked with the prompt of step(s) {same}, not {i}"
        assert pick == executed[i]  # same prompt, same constraint: the same answer
        asked_at += 1
    assert asked_at >= 3, asked_at
    if unit == "step":  # windows of at most `window` steps, not whole plans, and not the same at every step
        shown = [ln.removeprefix("Plan: ").removeprefix("... ") for p in episode
                 for ln in p.splitlines()[:-1] if ln.startswith("Plan: ")]
        assert shown and all(len(s.split("; ")) <= cfg.retrieval.window for s in shown), shown
        assert len({p.rsplit("\nTask:", 1)[0] for p in episode}) > 1


@lru_cache(maxsize=1)
def generated_and_dropped() -> tuple[list[ProbeState], Counter[str]]:
    """Recovery states of a task of each type, and on-policy states along a random legal walk of each; the candidates
    dropped."""
    out: list[ProbeState] = []
    dropped: Counter[str] = Counter()
    for tt in TASK_TYPES:
        t = first_task(tt)
        states, why = recovery_states(t, 5, CFG, SEED, random.Random(f"r:{tt}"), {})
        out += states
        dropped += why
        world, _ = replay_state(t, [], CFG, SEED)
        rng, walk = random.Random(f"w:{tt}"), []
        for _ in range(6):  # a few random legal steps: states a policy could reach
            options = [o for o in context(t, History(), world)[1] if o != "Stop"]
            walk.append(rng.choice(options))
            world.step(walk[-1])
        states, why = on_policy_states(t, walk, 4, CFG, SEED, random.Random(f"o:{tt}"), {})
        out += states
        dropped += why
    return out, dropped


def generated() -> list[ProbeState]:
    return generated_and_dropped()[0]


def test_the_generated_states_cover_every_type_and_kind():
    got = generated()
    assert {s.task_type for s in got} == set(TASK_TYPES)
    kinds = Counter(s.kind for s in got)
    assert kinds["recovery"] >= 20 and kinds["on_policy"] >= 10, kinds
    assert len({s.wrong for s in got if s.kind == "recovery"}) >= 3


def test_a_recovery_states_wrong_step_never_lowers_d():
    lowered = []
    for s in (s for s in generated() if s.kind == "recovery"):
        before = cost_to_go(replay_state(get_task(s.task_id), s.steps[:-1], CFG, SEED)[0])
        # undefined d is worse than any: a wrong step may make it undefined, never defined from undefined
        if (before is None and s.d is not None) or (before is not None and s.d is not None and s.d < before):
            lowered.append((s.id, s.steps[-1], before, s.d))
    assert not lowered, lowered[:5]


def test_the_stored_cost_to_go_is_a_fresh_search_after_each_option():
    differ = []
    for s in generated():
        world, _ = replay_state(get_task(s.task_id), s.steps, CFG, SEED)
        if cost_to_go(world) != s.d:
            differ.append((s.id, "state", s.d, cost_to_go(world)))
        fresh_cache: dict[tuple, int] = {}  # this state's own, not the probe's (shared across a task's states)
        for option, stored in zip(s.legal, s.d_options):
            after = world.fork(bounded=False)
            after.attempt(option)
            fresh = cost_to_go(after, known=fresh_cache)
            if fresh != stored:
                differ.append((s.id, option, stored, fresh))
    assert not differ, differ[:5]


def test_every_kept_state_tells_a_good_pick_from_a_bad_one_and_the_dropped_are_counted(monkeypatch):
    for s in generated():
        steps = [d for o, d in zip(s.legal, s.d_options) if o != "Stop"]
        assert len(set(steps)) > 1, (s.id, s.legal, s.d_options)
    assert discriminates(["Navigation A", "Navigation B", "Stop"], [2, 3, None])
    assert not discriminates(["Navigation A", "Navigation B", "Stop"], [2, 2, None])  # Stop alone is worse
    # A state after the goal is reached (the episode over) and one the legal set cannot split are dropped, by name.
    t = first_task("pick_and_place_simple")
    plan = solve(t, SEED, new_env(t, CFG, SEED).scene).plan
    assert make_state(t, "on_policy", "", plan, CFG, SEED, {}) == (None, "ended")
    assert set(generated_and_dropped()[1]) <= set(DROPPED)
    # Options that all tie but Stop: dropped, and the recovery states say why.
    import planner.probe.states as states
    monkeypatch.setattr(states, "option_costs", lambda world, legal, known: [None if o == "Stop" else 3 for o in legal])
    assert make_state(t, "on_policy", "", [], CFG, SEED, {}) == (None, "no_better")
    kept, dropped = recovery_states(t, 3, CFG, SEED, random.Random(0), {})
    assert not kept and set(dropped) == {"no_better"}, dropped


def test_picks_are_scored_by_the_cost_to_go_and_random_is_exact_from_the_ties():
    state = ProbeState.new(task_id="t", task_type="pick_and_place_simple", split="valid_seen", instruction="i",
                           kind="recovery", wrong="walk", steps=["Navigation Desk"],
                           legal=["Navigation A", "Navigation B", "PickupObject C", "Stop"], d=3,
                           d_options=[2, 2, 4, None])
    assert score(state, "Navigation A") == (True, 1, 0)
    assert score(state, "PickupObject C") == (False, -1, 2)
    assert score(state, "Stop") == (False, -2, 3)  # undefined: one more than the worst defined
    assert score(state, "Navigation Sofa", d_pick=2) == (True, 1, 0)  # outside the options: by its own d
    assert chance(state) == 0.5
    hits = sum(score(state, random_pick(state, seed))[0] for seed in range(4000)) / 4000
    assert abs(hits - chance(state)) < 0.03  # the sampled floor agrees with the exact one


def _recovery_pool(task) -> list[Sample]:
    """Hindsight samples whose traces fail a pickup where the object is not, then walk to it and pick it up."""
    out = []
    for t in [x for x in load_tasks("train") if x.task_type == task.task_type][:2]:
        o, p = t.args.object_target, t.args.parent_target
        steps = [f"PickupObject {o}", f"Navigation {o}", f"PickupObject {o}", f"Navigation {p}", f"PutObject {o} {p}"]
        out.append(Sample.new(kind="hindsight", task_id=t.id, task_type=t.task_type, instruction=t.instruction(0),
                              args=t.args.as_dict(), steps=steps, reasons=[f"{o} not found", "", "", "", ""],
                              verified=True, source="ro-test"))
    return out


def test_a_pool_that_shows_the_recovery_raises_the_score_on_such_states(task, pools, tmp_path):
    # The scripted actor reads only its prompt: when an example recovers from a failed pickup by walking to the
    # object, it walks to the object after its own failed pickup; otherwise it gives up (Stop, never optimal).
    def answer(request):
        options = grammar_choices(request.body)
        prompt = request.prompt
        shown = re.search(r"PickupObject (\w+) \[failed: \w+ not found\]; Navigation \1", prompt.rsplit("\n\n", 1)[0])
        last = re.search(r"PickupObject (\w+) \[failed: [^\]]*\];?$", prompt.rstrip())
        want = f"Navigation {last.group(1)}" if shown and last else ""
        return " " + (want if want in options else "Stop")

    o = task.args.object_target
    state, _ = make_state(task, "recovery", "refused", [f"PickupObject {o}"], CFG, SEED, {})
    assert state is not None and f"Navigation {o}" in state.legal
    scores = {}
    for name, hind in (("with", _recovery_pool(task)), ("without", [])):
        with_pool = ExamplePools(gt=pools.gt, hind=hind, index_factory=ListIndex)
        with ScriptedEndpoint(answer) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / name) as client:
            actor = make_actor("hind", task, with_pool, client, CFG, Grounder(CFG.retrieval.map_threshold))
            scores[name] = score(state, actor_pick(actor, task, state, CFG, SEED))
    assert scores["with"][0] and scores["with"][2] == 0  # optimal: the walk to the object
    assert not scores["without"][0] and scores["without"][2] > 0


def test_the_full_step_is_run_episode_from_the_state(task, pools, tmp_path):
    from planner.probe.picks import full_step_pick
    from planner.variants import get_variant

    def answer(request):
        if request.prompt.startswith("Read each"):
            return " " + format_args(task.args.as_dict())
        options = grammar_choices(request.body)
        return " " + (options[0] if options else "the value is 1/2")

    o = task.args.object_target
    state, _ = make_state(task, "recovery", "refused", [f"PickupObject {o}"], CFG, SEED, {})
    with ScriptedEndpoint(answer) as ep, \
            LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path) as client:
        pick = full_step_pick(task, state, pools, client, CFG, get_variant("no_hindsight"))
        actor_prompts = [q.prompt for q in ep.requests if q.prompt.startswith("Robot plans")]
    assert pick in state.legal  # true arguments from the adapter: the same legal set
    # the step was planned after the state's steps: the actor saw the failed pickup in its plan
    assert actor_prompts and all(f"PickupObject {o} [failed:" in p for p in actor_prompts)


def _corrections_at(states: list[ProbeState]) -> list[Correction]:
    """The expert's correction at each probe state: its steps (failures as the world gives them), its optimal options,
    the first of them shown."""
    out = []
    for s in states:
        t = get_task(s.task_id)
        env, reasons = new_env(t, CFG, SEED), []
        for sg in s.steps:
            r = env.step(sg)
            reasons.append("" if r.ok else r.reason or "failed")
        least = min(d for d in s.d_options if d is not None)
        optimal = [o for o, d in zip(s.legal, s.d_options) if d == least]
        out.append(Correction.new(task_id=t.id, task_type=t.task_type, instruction=s.instruction,
                                  args=t.args.as_dict(), source="ro-test", steps=list(s.steps), reasons=reasons,
                                  label="neutral", d=s.d, optimal=optimal, shown=optimal[0], shown_by="first",
                                  robot_next=""))
    return out


def test_corrections_at_the_probes_situations_lift_a_copy_the_nearest_example_policy_to_the_optimum(pools, tmp_path):
    # The scripted actor copies the step its nearest example (shown last) takes next; with no example it stops.
    def copy_nearest(request):
        options = grammar_choices(request.body)
        shown = [line for line in request.prompt.splitlines() if line.startswith("Plan:")][:-1]  # the last: live
        step = shown[-1].removeprefix("Plan: ").split("; ")[-1].strip() if shown else ""
        return " " + (step if step in options else "Stop")

    cfg = replace(CFG, retrieval=replace(CFG.retrieval, unit="step", window=3, k=1))
    states = [s for s in generated() if s.kind == "recovery" and s.task_type in (
        "pick_and_place_simple", "pick_heat_then_place_in_recep")]
    assert len(states) >= 6
    fixes = _corrections_at(states)
    scores: dict[str, list[bool]] = {}
    for name, hind in (("corrections", fixes), ("empty", [])):
        with_pool = ExamplePools(gt=pools.gt, hind=hind)
        with ScriptedEndpoint(copy_nearest) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / name) as client:
            picks = []
            for s in states:
                t = get_task(s.task_id)
                actor = make_actor("hind", replace(t, id=f"other:{t.id}"), with_pool, client, cfg,
                                   Grounder(cfg.retrieval.map_threshold))  # not the task's own: its pool is shown
                picks.append(actor is not None and score(s, actor_pick(actor, t, s, cfg, SEED))[0])
            scores[name] = picks
    assert all(scores["corrections"]), scores["corrections"]  # the nearest situation is the state's own correction
    assert sum(scores["empty"]) == 0  # no example: no pick
