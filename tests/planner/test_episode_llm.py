"""One short real episode with the embedded model (gemma3-270m): the loop runs end to end and records usage."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from household.world.tasks import load_tasks
from planner.config import PlannerConfig
from planner.loop.episode import run_episode
from planner.relabel.gt_samples import build_gt_critic_samples, build_gt_samples
from planner.retrieval.examples import ExamplePools
from pools.records import Rollout, Sample

MODEL = "gemma3-270m"


@pytest.fixture(scope="module")
def gemma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from llm.client import LLMClient
    from llm.settings import LLMSettings
    from llm.embedded import stop_owned_servers

    cache: Path = tmp_path_factory.mktemp("planner-llm")
    settings = LLMSettings(endpoint="embedded", model=MODEL, timeout=120, retries=1)
    with LLMClient(settings, cache_dir=cache) as client:
        yield client
    stop_owned_servers()


@pytest.mark.llm
def test_short_episode_end_to_end(gemma) -> None:
    train = load_tasks("train")
    picked = {}
    for t in train:
        picked.setdefault(t.task_type, t)
    gt = build_gt_samples(list(picked.values()), seed=0)
    hind = [Sample.new(**{**{k: v for k, v in s.model_dump().items() if k != "id"}, "kind": "hindsight",
                          "source": "test"}) for s in gt[:3]]
    pools = ExamplePools(gt=gt, hind=hind, critic=build_gt_critic_samples(list(picked.values()), gt, seed=0))
    task = next(t for t in load_tasks("valid_seen") if t.task_type == "pick_and_place_simple")
    # the gate would leave one legal step: no actor call
    cfg = PlannerConfig.from_params(k=2, max_subgoals=2, goal_gate=False)
    rollout = run_episode(task, "hindsight", pools, gemma, cfg)
    d = rollout.model_dump()
    assert Rollout.model_validate(d) == rollout
    assert 1 <= len(rollout.steps) <= 2
    for step in d["steps"]:
        assert set(step) >= {"subgoal", "ok", "reason", "pddl_pred", "candidates"}
        assert set(step["pddl_pred"]) >= {"object_target", "object_state", "two_objects"}
    llm = d["llm"]
    assert llm["calls"] >= 2 and llm["prompt_tokens"] > 0 and "seconds" not in llm  # time: details/timing/
    assert {"adapter", "actor_gt"} <= set(llm["by_role"])
    assert rollout.metrics["per_subgoal"]["calls"] > 0 and "outside_llm_share" not in rollout.metrics
