"""A whole `hindsight` episode under control: adapter, both actors and the critic answer from a script, in the real
world, and the decision at every step is checked (including one where the critic overrules the first actor)."""
from __future__ import annotations

import re

import pytest

from household.world.tasks import load_tasks
from planner.config import PlannerConfig
from planner.prompts.parsing import format_args
from llm.scripted import Request, ScriptedEndpoint
from planner.loop.episode import run_episode
from planner.loop.replay import replay
from planner.retrieval.examples import ExamplePools
from tests.planner.helpers import ListIndex, critic, sample

import llm.client as llm_client  # a broken import must fail the suite, never skip it


def _task_and_plan():
    """A pick-and-place task where 'walk to the target, then find the object' solves it in the real world."""
    for t in load_tasks("valid_seen"):
        if t.task_type != "pick_and_place_simple":
            continue
        a = t.args.as_dict()
        obj, parent = a["object_target"], a["parent_target"]
        plan = [f"Navigation {parent}", f"Navigation {obj}", f"PickupObject {obj}", f"Navigation {parent}",
                f"PutObject {obj} {parent}"]
        rep = replay(t, plan)
        if rep["success"] and rep["fails"] == 0:
            return t, plan
    raise AssertionError("no suitable task")


def _steps_in(prompt: str) -> list[str]:
    tail = prompt.rsplit("Plan:", 1)[1]
    return [re.sub(r"\s*\[failed:.*\]$", "", s).strip() for s in tail.split(";") if s.strip()]


def test_hindsight_episode_decisions_step_by_step(tmp_path):
    task, plan = _task_and_plan()
    args = task.args.as_dict()
    first_gt = plan[1]  # actor_gt's first proposal: walk to the object; the critic prefers actor_hind's walk
    critic_calls: list[str] = []

    def answer(req: Request) -> str:
        p = req.prompt
        if p.startswith("Read each household task"):
            return " " + format_args(args)
        if p.startswith("Rate each plan"):
            critic_calls.append(p)
            plans = re.findall(r"^Plan (\d+): (.*)$", p.split("Values:")[-2] if "Values:" in p else p, re.M)
            out = [f"the value is {1 if text.startswith(plan[0]) else 0}/2" for _, text in plans]
            return " " + "\n".join(f"{i}. {v}" if i > 1 else v for i, v in enumerate(out, 1))
        done = _steps_in(p)
        if "GTEX" in p and not done:
            return " " + first_gt
        return " " + plan[min(len(done), len(plan) - 1)]

    gt = sample("gt", "train-1", "GTEX put a thing somewhere.", plan)
    hind = sample("hindsight", "train-2", "HINDEX put a thing somewhere.", plan)
    crit = critic("train-1", "GTEX put a thing somewhere.", plan[:2], 1, 2)
    pools = ExamplePools(gt=[gt], hind=[hind], critic=[crit], index_factory=ListIndex)
    cfg = PlannerConfig.from_params(k=1, beam=2, width=2, depth=1, max_subgoals=8,
                                    goal_gate=False)  # the gate would fetch first
    with ScriptedEndpoint(answer) as ep, llm_client.LLMClient(ep.settings(constrain="grammar"),
                                                              cache_dir=tmp_path) as client:
        rollout = run_episode(task, "hindsight", pools, client, cfg)
        bodies = [r.body for r in ep.requests]
    chosen = [s.subgoal for s in rollout.steps]
    assert chosen == plan and rollout.success
    # Step 0: actor_gt proposed the walk to the object, actor_hind the walk to the receptacle; the critic valued
    # the receptacle-first rollouts higher and overruled the first actor.
    values = {c["subgoal"]: c["value"] for c in rollout.steps[0].candidates}
    assert values == {first_gt: pytest.approx(0.0), plan[0]: pytest.approx(0.5)}
    # Later steps: both actors agree, so the answer is forced and the critic is never asked again.
    assert len(critic_calls) == 1
    assert all(len(s.candidates) == 1 for s in rollout.steps[1:])
    # The adapter ran at every step whose observation changed and its answers are the task's arguments.
    assert rollout.steps[0].pddl_pred["object_target"] == args["object_target"]
    assert rollout.metrics["adapter_acc"]["object_target"] == 1.0
    # Every actor call asked for one legal sub-goal through the grammar; the answers were legal.
    actor_bodies = [b for b in bodies if "Robot plans" in (b.get("prompt") or "")]
    assert actor_bodies and all("grammar" in b and "Navigation" in b["grammar"] for b in actor_bodies)
    assert rollout.metrics["actor_illegal"] == 0
