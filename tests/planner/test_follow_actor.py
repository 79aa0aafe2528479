"""The follower as the planner's actor (planner/search/follow_actor.py): a variant whose only actor is the follower
executes its own picks with no LLM call but the adapter's, every step records who proposed each candidate and who
chose, the follower sits beside the LLM actors under the critic, and a follower variant without the adapter or the
beam is refused."""
from __future__ import annotations

from dataclasses import replace

import pytest

from llm.client import LLMClient
from llm.scripted import ScriptedEndpoint, grammar_choices
from planner.config import PlannerConfig
from planner.loop.episode import run_episode
from planner.prompts.parsing import format_args
from planner.retrieval.examples import ExamplePools
from planner.variants import Variant
from tests.planner.helpers import first_task, gt_pools

FOLLOW = Variant.parse("follow_gt", {"actors": ["follow_gt"], "critic": "none", "adapter": True, "search": "beam",
                                     "pool": "gt"})
BESIDE = Variant.parse("follow_llm", {"actors": ["gt", "hind", "follow"], "critic": "critic", "adapter": True,
                                      "search": "beam", "pool": "hindsight", "planner": {"width": 3}})


def _run(task, variant, pools, tmp_path, name):
    def answer(request):
        if request.prompt.startswith("Read each"):
            return " " + format_args(task.args.as_dict())
        if "value is" in request.prompt or "value" in request.prompt.splitlines()[-1]:
            return " 1/2"
        options = grammar_choices(request.body)
        return " " + (options[0] if options else "Stop")

    cfg = PlannerConfig.from_params(variant=variant, scaffold="none", max_subgoals=12)
    with ScriptedEndpoint(answer) as ep, \
            LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / name) as client:
        rollout = run_episode(task, variant, pools, client, cfg)
        prompts = [q.prompt for q in ep.requests]
    return rollout, prompts


def test_a_follower_only_variant_executes_its_own_picks_with_no_llm_call_but_the_adapters(tmp_path):
    task = first_task("pick_and_place_simple")
    rollout, prompts = _run(task, FOLLOW, gt_pools("pick_and_place_simple", 6), tmp_path, "follow")
    assert prompts and all(p.startswith("Read each") for p in prompts)  # the adapter only
    steps = [s for s in rollout.steps if s.chosen_by != "none"]
    assert len(steps) >= 3
    assert {s.chosen_by for s in steps} <= {"follow", "single"} and "follow" in {s.chosen_by for s in steps}
    for s in steps:
        assert s.candidates and {c["proposer"] for c in s.candidates} == {"follow_gt"}
        assert s.subgoal == s.candidates[0]["subgoal"]  # its top pick, executed
    # the gt pool of the same task type walks the follower to the goal's first moves: it picks up the target
    assert any(s.subgoal == f"PickupObject {task.args.object_target}" and s.ok for s in steps), \
        [s.subgoal for s in steps]


def test_the_follower_beside_both_llm_actors_is_chosen_among_by_the_critic(tmp_path):
    task = first_task("pick_and_place_simple")
    gt = gt_pools("pick_and_place_simple", 4)
    pools = ExamplePools(gt=gt.gt, hind=gt.gt[:2], critic=[], index_factory=gt.index_factory)
    rollout, prompts = _run(task, BESIDE, pools, tmp_path, "beside")
    proposers = {c.get("proposer") for s in rollout.steps for c in s.candidates}
    # W = 3: one proposal each (the scripted LLM actors answer alike: a repeated proposal keeps its first proposer)
    assert "follow" in proposers and proposers & {"actor_gt", "actor_hind"}, proposers
    assert {s.chosen_by for s in rollout.steps} <= {"llm", "single", "none"}  # the critic (an LLM) chooses


@pytest.mark.parametrize("definition", [
    {"actors": ["follow"], "critic": "none", "adapter": False, "search": "beam", "pool": "hindsight"},
    {"actors": ["follow_gt"], "critic": "none", "adapter": True, "search": "replan", "pool": "gt"},
])
def test_a_follower_variant_needs_the_adapter_and_the_beam(definition):
    with pytest.raises(ValueError, match="follower actor"):
        Variant.parse("bad", definition)
