"""Hindsight relabeling stages over records, with the real world and a scripted LLM."""
from __future__ import annotations

import pytest

from household.expert import expert_plan
from household.tasks import load_tasks
from planner.config import PlannerConfig
from planner.grounding import Grounder
from planner.relabel import build_gt_critic_samples, build_gt_samples, complete, critic_sample, reflect, replay
from pools.records import Reflection, Rollout, StepRecord
from tests.fakes.scripted_endpoint import ScriptedEndpoint
from tests.planner.helpers import RejectingMapper

llm_client = pytest.importorskip("planner.llm.client")


@pytest.fixture(scope="module")
def task():
    return next(t for t in load_tasks("valid_seen") if t.task_type == "pick_and_place_simple")


def _rollout(task, steps_ok: list[str], failed: str) -> Rollout:
    steps = [StepRecord(s, True, "", "", {}, []) for s in steps_ok]
    steps.append(StepRecord(failed, False, "not here", "", {}, []))
    return Rollout.new(task_id=task.id, task_type=task.task_type, instruction=task.instruction(), variant="hindsight",
                       seed=0, leave_out="", success=False, gc=0.0, plw={"sr": 0.0, "gc": 0.0}, steps=steps,
                       split=task.split, gc_met=0, gc_total=1, expert_len=len(steps),
                       metrics={}, llm={})


def test_gt_samples_are_verified_expert_plans(task):
    [s] = build_gt_samples([task], seed=0)
    assert s.kind == "gt" and s.verified and s.steps == expert_plan(task, seed=0)
    critics = build_gt_critic_samples([task], [s], seed=0)
    assert [(c.value_num, c.value_den) for c in critics][-1] == (1, 1)  # the whole plan meets every condition


def test_verification_marks_correct_completion_only(task, tmp_path):
    plan = expert_plan(task, seed=0)
    rollout = _rollout(task, plan[:1], "PickupObject Mug")
    gt = build_gt_samples([task], seed=0)[0]
    cfg = PlannerConfig()
    right = " " + "; ".join(plan[1:])
    # identical prompts would be answered from the response cache: one cache directory per call
    with ScriptedEndpoint(["Pick up the right object and put it on the target.", right, " Navigation Bed; Stop"]) \
            as ep:
        def client(name):
            return llm_client.LLMClient(ep.settings(), cache_dir=tmp_path / name)
        refl = reflect(rollout, gt, client("a"), cfg)
        assert refl.phi and refl.think.startswith("Pick up") and refl.rollout_id == rollout.id
        assert "[failed: not here]" in ep.requests[0].prompt and "; ".join(plan) in ep.requests[0].prompt
        good = complete(refl, rollout, task, client("b"), cfg, grounder=Grounder(0.6, RejectingMapper))
        assert good.verified and good.sample.verified and good.sample.kind == "hindsight"
        assert good.steps == plan and good.replay["success"]
        bad = complete(refl, rollout, task, client("c"), cfg, grounder=Grounder(0.6, RejectingMapper))
        assert not bad.verified and not bad.sample.verified and bad.steps[:1] == plan[:1]
        assert good.id != bad.id and good.sample.source == rollout.id


def test_critic_sample_checked_against_replay(task, tmp_path):
    plan = expert_plan(task, seed=0)
    rollout = _rollout(task, plan[:1], "PickupObject Mug")
    met, total = replay(task, plan[:1])["met"], replay(task, plan[:1])["total"]
    cfg = PlannerConfig()
    refl = Reflection.new(rollout_id=rollout.id, task_id=task.id, phi="Put the book on the side table.", think="")
    with ScriptedEndpoint([f" the value is {met}/{total}", f" the value is {total}/{total}", " garbage"]) as ep:
        right, wrong, junk = (critic_sample(rollout, refl, task, llm_client.LLMClient(ep.settings(), tmp_path / n),
                                            cfg) for n in "abc")
    assert right.verified and (right.value_num, right.value_den) == (met, total)
    assert not wrong.verified and wrong.value_num == total
    assert not junk.verified and (junk.value_num, junk.value_den) == (met, total)


def test_useful_prefix_drops_stop_repeats_and_superseded_walks() -> None:
    from planner.relabel import useful_prefix

    steps = ["Navigation SinkBasin", "Navigation SinkBasin", "Navigation Cabinet", "OpenObject Cabinet",
             "PickupObject Egg", "PickupObject Egg", "Navigation Microwave", "Stop"]
    assert useful_prefix(steps) == ["Navigation Cabinet", "OpenObject Cabinet", "PickupObject Egg",
                                    "Navigation Microwave"]


def test_completion_that_restarts_the_plan_is_replayed_both_ways(task, tmp_path):
    plan = expert_plan(task, seed=0)
    # The practice run wandered to a wrong place first; the model answers with the whole plan from the start.
    rollout = _rollout(task, ["Navigation Bed"], "PickupObject Mug")
    refl = Reflection.new(rollout_id=rollout.id, task_id=task.id, phi="p", think="start over")
    with ScriptedEndpoint([" " + "; ".join(plan)]) as ep:
        client = llm_client.LLMClient(ep.settings(), cache_dir=tmp_path)
        done = complete(refl, rollout, task, client, PlannerConfig(), grounder=Grounder(0.6, RejectingMapper))
    assert done.verified and done.steps == plan
