"""The default episode budget fits the tasks it is evaluated on (a cap below the expert's plan makes SR 0)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from statistics import mean

import yaml

from household.expert.expert import expert_plan
from household.world.tasks import load_tasks
from pools.select import stratified

ROOT = Path(__file__).resolve().parents[2]


def _params() -> dict:
    return yaml.safe_load((ROOT / "params.yaml").read_text())


def test_default_budget_covers_every_evaluated_expert_plan():
    params = _params()
    cap = int(params["planner"]["max_subgoals"])
    ev = params["evaluate"]
    seed = int(params["world"]["seed"])
    longest = 0
    for split in ev["splits"]:
        tasks = load_tasks(split)
        rows = [{"id": t.id, "split": split, "task_type": t.task_type} for t in tasks]
        by_id = {t.id: t for t in tasks}
        for row in stratified(rows, int(ev["per_type"]), seed, split=split):
            longest = max(longest, len(expert_plan(by_id[row["id"]], seed=seed)))
    assert longest > 0 and cap >= longest


def test_default_budget_is_twice_the_longest_mean_expert_plan():
    cap = int(_params()["planner"]["max_subgoals"])
    lengths: dict[str, list[int]] = defaultdict(list)
    for t in load_tasks("valid_unseen"):
        lengths[t.task_type].append(len(expert_plan(t, seed=0)))
    assert cap >= 30 and cap >= 2 * max(mean(v) for v in lengths.values())
