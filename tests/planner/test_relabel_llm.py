"""`hindsight relabel` with the real embedded model on one short train task, end to end.

This must produce a verified sample: with the stepwise completion (constrained picks in the replayed
world, guided by the expert's plan) Qwen-1.5B does, and the test asserts it.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from flows.cli.cmd_relabel import register
from household.expert.expert import expert_plan
from household.world.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]
TASK_TYPE = "pick_and_place_simple"


def _short_task() -> str:
    """The first train task of the type whose expert plan is the shortest (4 sub-goals)."""
    tasks = [t for t in load_tasks("train") if t.task_type == TASK_TYPE][:40]
    return min(tasks, key=lambda t: (len(expert_plan(t, seed=0)), t.id)).id


@pytest.mark.llm
def test_relabel_one_short_task_end_to_end(tmp_path):
    import argparse

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    # The default models and relabeling; a short practice run keeps the test to a few minutes on 2 cores.
    params["planner"].update({"max_subgoals": 6, "max_idle": 3})
    params["retrieval"].update({"k": 2, "adapter_k": 3})
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    task_id = _short_task()
    args = parser.parse_args(["relabel", task_id, "--json", "--params", str(tmp_path / "params.yaml"),
                              "--pools", str(tmp_path / "no-pools")])
    out = io.StringIO()
    assert args.func(args, stdout=out) == 0
    report = json.loads(out.getvalue())
    assert report["task_id"] == task_id and report["phi"] and report["expert"]
    assert report["critic_sample"]["value"] and report["llm"]["calls"] >= 3
    comp = report["completion"]
    assert "error" not in comp and comp["rounds"], comp
    assert all(r["replay"] and "failure" in r for r in comp["rounds"])
    # The default relabeling (stepwise, expert shown and guiding) yields a verified sample here.
    assert comp["verified"] and comp["replay"]["success"], comp
    assert not comp["reasons"] or len(comp["reasons"]) == len(comp["steps"])  # [] = no step failed
