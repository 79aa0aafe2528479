"""Planner parts against a scripted OpenAI-compatible endpoint: the LLM's answers are fixed by the test."""
from __future__ import annotations

import re

import pytest

from planner.config import PlannerConfig
from llm.scripted import Request, ScriptedEndpoint
from planner.retrieval.examples import ExamplePools
from planner.retrieval.grounding import Grounder
from planner.search.actors import StepContext
from planner.search.assembly import build_planner
from planner.search.generator import Belief
from planner.variants import get_variant
from tests.planner.helpers import FakeTask, ListIndex, RejectingMapper, critic, sample

import llm.client as llm_client  # a broken import must fail the suite, never skip it

GT = sample("gt", "train-1", "GTEX chill an apple.", ["Navigation Apple", "PickupObject Apple",
                                                       "Navigation Fridge", "OpenObject Fridge"])
HIND = sample("hindsight", "train-2", "HINDEX cool the apple.", ["Navigation Fridge", "OpenObject Fridge"])
CRIT = critic("train-1", "GTEX chill an apple.", ["Navigation Apple"], 0, 3)


def _plan_tail(prompt: str) -> str:
    return prompt.rsplit("Plan:", 1)[1]


def _answer(request: Request) -> str:
    p = request.prompt
    if p.startswith("Read each household task"):
        return " object=Apple parent=Fridge mrecep=none toggle=none state=cool sliced=no two=no"
    if p.startswith("Rate each plan"):
        plans = re.findall(r"^Plan (\d+): (.*)$", p, re.MULTILINE)
        out = []
        for i, text in plans:
            num = 3 if text.startswith("Navigation Apple; PickupObject Apple") else 1
            out.append(f"{i}. the value is {num}/3")
        return " " + "\n".join(out)[3:]  # the prompt already ends with '1.'
    tail = _plan_tail(p)
    gt = "GTEX" in p
    if (request.body or {}).get("seed"):  # a sampled extra proposal
        return " Navigation CounterTop" if gt else " Navigation Cabinet"
    if tail.strip() == "":
        return " Navigation Fridge; OpenObject Fridge" if gt else " Navigation Apple; Navigation Fridge"
    return " PickupObject Apple"


def _client(ep: ScriptedEndpoint, tmp_path):
    return llm_client.LLMClient(ep.settings(), cache_dir=tmp_path)


def _pools() -> ExamplePools:
    return ExamplePools(gt=[GT], hind=[HIND], critic=[CRIT], index_factory=ListIndex)


def test_beam_picks_first_action_of_best_rollout(tmp_path):
    with ScriptedEndpoint(_answer) as ep, _client(ep, tmp_path) as client:
        cfg = PlannerConfig.from_params(k=1, deep_proposals="all")  # the paper: each actor proposes at every depth
        planner = build_planner(FakeTask(), get_variant("hindsight"), _pools(), client, cfg,
                                grounder=Grounder(0.5, RejectingMapper))
        ctx = StepContext("Put a cold apple in the fridge.", ("Apple", "Fridge"), None, ())
        res = planner.decide(ctx, Belief(seen=ctx.seen), last_failed=False)
        # gt proposes Navigation Fridge, hind Navigation Apple; the critic values 'Navigation Apple; PickupObject
        # Apple' highest, so its first action wins even though actor_gt came first.
        assert res.action == "Navigation Apple"
        values = {c["subgoal"]: c["value"] for c in res.candidates}
        assert values == {"Navigation Fridge": pytest.approx(1 / 3), "Navigation Apple": pytest.approx(1.0)}
        roles = client.usage.summary()["by_role"]
        assert roles["critic"]["calls"] == 1  # one critic call scored every final rollout
        assert planner.actors[0].reused + planner.actors[1].reused >= 1  # plan reuse saved at least one call


def test_width_is_split_between_actors(tmp_path):
    with ScriptedEndpoint(_answer) as ep, _client(ep, tmp_path) as client:
        cfg = PlannerConfig.from_params(k=1, width=4, depth=0)
        planner = build_planner(FakeTask(), get_variant("no_adapter"), _pools(), client, cfg,
                                grounder=Grounder(0.5, RejectingMapper))
        ctx = StepContext("Put a cold apple in the fridge.", ("Apple", "Fridge"), None, ())
        res = planner.decide(ctx, Belief(seen=ctx.seen), last_failed=False)
        roles = client.usage.summary()["by_role"]
        # W=4 over two actors: two proposals each = one greedy call + one sampled call per actor
        assert roles["actor_gt"]["calls"] == 2 and roles["actor_hind"]["calls"] == 2
        assert len({n.actions[0] for n in res.rollouts}) == 4


def test_garbage_never_crashes(tmp_path):
    with ScriptedEndpoint(lambda r: "\x00 ###### the value is banana") as ep, _client(ep, tmp_path) as client:
        planner = build_planner(FakeTask(), get_variant("hindsight"), _pools(), client, PlannerConfig.from_params(k=1),
                                grounder=Grounder(0.5, RejectingMapper))
        pred = planner.adapter.predict("Put a cold apple in the fridge.", ("Apple",))
        assert pred["object_target"] == "" and pred["object_state"] == "none"
        ctx = StepContext("Put a cold apple in the fridge.", ("Apple",), pred, ())
        res = planner.decide(ctx, Belief(seen=ctx.seen), last_failed=False)
        assert res.action is None and planner.grounder.stats["rejected"] >= 1


def test_leave_one_out_never_retrieves_own_sample(tmp_path):
    own = sample("gt", "task-under-test", "OWNSAMPLE put a cold apple in the fridge.", ["Navigation Apple"])
    other = sample("gt", "train-9", "OTHER put an apple in the fridge.", ["Navigation Apple"])
    own_critic = critic("task-under-test", "OWNSAMPLE put a cold apple in the fridge.", ["Navigation Apple"], 0, 3)
    pools = ExamplePools(gt=[own, GT, other], hind=[HIND], critic=[own_critic, CRIT], index_factory=ListIndex)
    with ScriptedEndpoint(_answer) as ep, _client(ep, tmp_path) as client:
        planner = build_planner(FakeTask(), get_variant("hindsight"), pools, client, PlannerConfig.from_params(k=9),
                                leave_out=other.id, grounder=Grounder(0.5, RejectingMapper))
        ctx = StepContext("Put a cold apple in the fridge.", ("Apple", "Fridge"), None, ())
        planner.adapter.predict(ctx.instruction, ctx.seen)
        planner.decide(ctx, Belief(seen=ctx.seen), last_failed=False)
        prompts = [r.prompt for r in ep.requests if r.kind == "completions"]
        assert prompts and all("OWNSAMPLE" not in p and "OTHER put" not in p for p in prompts)
        assert any("GTEX" in p for p in prompts)
    assert [s.id for s in pools.retrieve("gt", "x", 9, exclude_task="task-under-test")] == [other.id, GT.id]
