"""The real evaluate path hands each actor its own pool: a hindsight sample in data/pools/hindsight.jsonl appears in
Actor_hind's prompt, and a variant that does not read that pool never opens it."""
from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from llm.scripted import ScriptedEndpoint
from testing.harness import evaluate_workspace, planner_answer

# A recovery the gt pool cannot hold: a failed step with the world's reason inline, then the way out.
MARK = "PickupObject Spatula [failed: Spatula not found]"


def _hindsight_pool(root: Path, with_sample: bool, name: str = "hindsight") -> None:
    from pools.jsonl import write_jsonl
    from pools.records import Sample

    sample = Sample.new(kind="hindsight", task_id="pick_and_place_simple-Spatula-None-Drawer-1/trial_T0",
                        task_type="pick_and_place_simple", instruction="put the probe spatula in a drawer",
                        args={"object_target": "Spatula", "parent_target": "Drawer", "mrecep_target": "",
                              "toggle_target": "", "object_state": "none", "object_sliced": False,
                              "two_objects": False},
                        steps=["PickupObject Spatula", "Navigation Spatula", "PickupObject Spatula",
                               "Navigation Drawer", "OpenObject Drawer", "PutObject Spatula Drawer"],
                        reasons=["Spatula not found", "", "", "", "", ""], verified=True, source="ro-probe")
    write_jsonl(root / f"data/pools/{name}.jsonl", [sample.model_dump()] if with_sample else [], "sample")


def _actor_prompts(root: Path, ep: ScriptedEndpoint, variant: str) -> list[str]:
    """Run the evaluate stage's plan for `variant` on its first task; the actor prompts the endpoint got."""
    from flows.runtime.llm_stage import llm_client
    from flows.runtime.params import load_params, stage_params
    from flows.stages.evaluate import plan

    with contextlib.chdir(root):
        params = stage_params("evaluate", load_params(), variant)
        planned = plan(params, variant, "fail")
        with llm_client(params) as client:
            planned.work(client, planned.items[0][1])
    return [r.prompt for r in ep.requests if r.prompt.startswith("Robot plans")]


@pytest.mark.parametrize("with_sample", [True, False])
def test_a_hindsight_sample_reaches_actor_hinds_prompt(tmp_path: Path, inproc_prefect: str, with_sample: bool,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedEndpoint(planner_answer) as ep:
        root = evaluate_workspace(tmp_path / "ws", ep.url, ep.model, per_type=1, types=("pick_and_place_simple",))
        _hindsight_pool(root, with_sample)
        prompts = _actor_prompts(root, ep, "hindsight")
    assert prompts, "no actor call: the paper's planner should leave the LLM a choice"
    hind = [p for p in prompts if MARK in p]
    # With the sample pooled, Actor_hind's prompt shows it; with the pool emptied, no prompt does.
    assert bool(hind) is with_sample
    if with_sample:
        assert "Task: put the probe spatula in a drawer" in hind[0]


def test_a_variant_that_reads_no_hindsight_pool_never_opens_it(tmp_path: Path, inproc_prefect: str) -> None:
    with ScriptedEndpoint(planner_answer) as ep:
        root = evaluate_workspace(tmp_path / "ws", ep.url, ep.model, per_type=1, types=("pick_and_place_simple",))
        (root / "data/pools/hindsight.jsonl").write_text("not json\n", encoding="utf-8")  # would fail if read
        prompts = _actor_prompts(root, ep, "no_hindsight")
    assert prompts and not [p for p in prompts if MARK in p]


def test_a_variant_naming_the_corrections_pool_reads_it_and_not_the_default(tmp_path: Path,
                                                                           inproc_prefect: str) -> None:
    import yaml

    with ScriptedEndpoint(planner_answer) as ep:
        root = evaluate_workspace(tmp_path / "ws", ep.url, ep.model, per_type=1, types=("pick_and_place_simple",))
        params = yaml.safe_load((root / "params.yaml").read_text())
        params["evaluate"]["variants"]["pick"] = {**params["evaluate"]["variants"]["hindsight"],
                                                  "pool": "hindsight_corrections"}
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        _hindsight_pool(root, True, name="hindsight_corrections")
        (root / "data/pools/hindsight.jsonl").write_text("not json\n", encoding="utf-8")  # would fail if read
        prompts = _actor_prompts(root, ep, "pick")
    assert [p for p in prompts if MARK in p]
