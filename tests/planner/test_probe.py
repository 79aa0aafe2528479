"""The probe (planner/probe/): states rebuilt by replay give the actor the very prompt `run_episode` built there,
picks are scored by the cost-to-go, and a pool whose examples show a recovery raises the score on such states."""
from __future__ import annotations

import random
import re
from dataclasses import replace

from household.tasks import load_tasks
from planner.config import PlannerConfig
from planner.llm.client import LLMClient
from planner.llm.parsing import format_args
from planner.llm.scripted import ScriptedEndpoint, grammar_choices
from planner.loop.episode import run_episode
from planner.probe.picks import actor_pick, score
from planner.probe.states import make_state, recovery_states
from planner.retrieval.examples import ExamplePools
from planner.retrieval.grounding import Grounder
from planner.search.assembly import make_actor
from pools.records import Sample
from tests.planner.helpers import ListIndex

CFG = PlannerConfig.from_params(k=2, width=1, max_subgoals=6, scaffold="none")


def test_the_probe_asks_with_the_prompt_the_episode_built(task, pools, tmp_path):
    def answer(request):
        if request.prompt.startswith("Read each"):
            return " " + format_args(task.args.as_dict())
        options = grammar_choices(request.body)
        return " " + (options[-2] if len(options) > 1 else options[0])  # some step, the same each time

    with ScriptedEndpoint(answer) as ep, \
            LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / "a") as client:
        r = run_episode(task, "no_hindsight", pools, client, CFG)
        episode = [q.prompt for q in ep.requests if q.prompt.startswith("Robot plans")]
    executed = [s.subgoal for s in r.steps]
    assert len(executed) >= 3
    for i in range(len(executed)):
        state = make_state(task, "on_policy", "", executed[:i], CFG, CFG.world.seed, {})
        with ScriptedEndpoint(answer) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / f"b{i}") as client:
            actor = make_actor("gt", task, pools, client, CFG, Grounder(CFG.retrieval.map_threshold))
            pick = actor_pick(actor, task, state, CFG, CFG.world.seed)
            asked = [q.prompt for q in ep.requests]
        assert asked[0] in episode, f"step {i}: the probe's prompt is not one the episode built"
        assert pick == executed[i]  # same prompt, same constraint: the same answer


def test_recovery_states_are_wrong_steps_and_picks_are_scored(task):
    states = recovery_states(task, 4, CFG, CFG.world.seed, random.Random(0), {})
    assert states and {s.kind for s in states} == {"recovery"}
    for s in states:
        assert len(s.legal) >= 2 and len(s.d_options) == len(s.legal)
        best = min(d for d in s.d_options if d is not None)
        optimal, progress, regret = score(s, s.legal[s.d_options.index(best)])
        assert optimal and regret == 0 and progress == s.d - best
        if "Stop" in s.legal:  # Stop ends the episode: d undefined, never optimal
            assert s.d_options[s.legal.index("Stop")] is None
            assert not score(s, "Stop")[0] and score(s, "Stop")[2] > 0


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
    state = make_state(task, "recovery", "refused", [f"PickupObject {o}"], CFG, CFG.world.seed, {})
    assert state is not None and f"Navigation {o}" in state.legal
    scores = {}
    for name, hind in (("with", _recovery_pool(task)), ("without", [])):
        with_pool = ExamplePools(gt=pools.gt, hind=hind, index_factory=ListIndex)
        with ScriptedEndpoint(answer) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / name) as client:
            actor = make_actor("hind", task, with_pool, client, CFG, Grounder(CFG.retrieval.map_threshold))
            scores[name] = score(state, actor_pick(actor, task, state, CFG, CFG.world.seed))
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
    state = make_state(task, "recovery", "refused", [f"PickupObject {o}"], CFG, CFG.world.seed, {})
    with ScriptedEndpoint(answer) as ep, \
            LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path) as client:
        pick = full_step_pick(task, state, pools, client, CFG, get_variant("no_hindsight"))
        actor_prompts = [q.prompt for q in ep.requests if q.prompt.startswith("Robot plans")]
    assert pick in state.legal  # true arguments from the adapter: the same legal set
    # the step was planned after the state's steps: the actor saw the failed pickup in its plan
    assert actor_prompts and all(f"PickupObject {o} [failed:" in p for p in actor_prompts)
