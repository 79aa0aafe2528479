"""The whole pipeline through real `dvc repro` and real Prefect on a tiny profile (scripted LLM endpoint)."""
from __future__ import annotations

import json
import re

import pytest

from pools.jsonl import read_json, read_jsonl

pytestmark = pytest.mark.slow

OUTPUTS = {
    "data/tasks.jsonl": "task",
    "data/pools/gt.jsonl": "sample",
    "data/relabel/rollouts.jsonl": "rollout",
    "data/relabel/reflections.jsonl": "reflection",
    "data/relabel/completions.jsonl": "completion",
    "data/relabel/critic_samples.jsonl": "critic_sample",
    "data/pools/hindsight.jsonl": "sample",
    "data/eval/hindsight.jsonl": "rollout",
    "data/eval/llm_planner.jsonl": "rollout",
    "data/eval/expert.jsonl": "rollout",
}


def ran_stages(output: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", output))


def test_repro_every_stage_then_only_downstream_of_a_critic_param(project) -> None:
    first = project.run("dvc", "repro")
    assert ran_stages(first.stdout) == {"tasks", "gt_pool", "collect", "reflect", "complete", "critic", "pool",
                                        "evaluate@hindsight", "evaluate@llm_planner", "evaluate@expert",
                                        "compare@0", "report"}
    for rel, schema in OUTPUTS.items():
        assert read_jsonl(project.path / rel, schema).records, rel
    gt = read_json(project.path / "data/pools/gt.manifest.json", "manifest")
    assert set(gt["by_task_type"]) == {"pick_and_place_simple", "pick_heat_then_place_in_recep"}
    assert gt["records"] > 0
    expert = read_json(project.path / "metrics/eval/expert/valid_seen.json", "eval_metrics")
    assert expert["sr"] == 1.0 and expert["episodes"] == 2
    hs = read_json(project.path / "metrics/eval/hindsight/valid_seen.json", "eval_metrics")
    assert hs["calls/subgoal"] > 0
    details = read_json(project.path / "details/eval/hindsight.json", "eval_details")
    assert set(details["by_split"]["valid_seen"]["by_type"]) == set(gt["by_task_type"])

    assert "up to date" in project.run("dvc", "repro").stdout.lower() or not ran_stages(project.run("dvc", "status").stdout)

    project.set_param("relabel.critic_examples", 1)
    second = ran_stages(project.run("dvc", "repro").stdout)
    # critic reruns; pool and evaluate rerun when what they read changed; nothing upstream ever does.
    assert "critic" in second
    assert second <= {"critic", "pool", "evaluate@hindsight", "evaluate@llm_planner", "evaluate@expert", "compare@0",
                      "report"}
    metrics = json.loads(project.run("dvc", "metrics", "show", "--json").stdout)
    assert metrics
