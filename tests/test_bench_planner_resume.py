"""bench_planner's journal: a run killed between episodes goes on from --out and its kept response caches, paying
no call twice and measuring the same episodes; a journal written for other tasks is not read."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from llm.scripted import ScriptedEndpoint
from testing.harness import on_endpoint, planner_answer
from tests.test_bench_targets import bench

ROOT = Path(__file__).resolve().parents[1]


def _args(tmp_path: Path, out: Path, types: str) -> list[str]:
    return ["--params", str(tmp_path / "params.yaml"), "--variants", "hindsight", "--per-type", "1", "--types", types,
            "--no-floors", "--max-subgoals", "2", "--hindsight-pools", f"empty=none,also={tmp_path / 'pool.jsonl'}",
            "--out", str(out), "--resume"]


def _one_sample_pool(path: Path) -> None:
    """A hindsight pool file of one sample (the pool's file is read as the pipeline writes it, typed)."""
    from pools.jsonl import write_jsonl
    from pools.records import Sample

    args = {"object_target": "Plunger", "parent_target": "Cabinet", "mrecep_target": "", "toggle_target": "",
            "object_state": "none", "object_sliced": False, "two_objects": False}
    write_jsonl(path, [Sample.new(kind="hindsight", task_id="t-1", task_type="pick_and_place_simple",
                                  instruction="put a plunger in the cabinet", args=args,
                                  steps=["Navigation Plunger", "PickupObject Plunger", "Navigation Cabinet",
                                         "PutObject Cabinet"], verified=True, source="ro-1")], "sample")


def test_a_killed_run_resumes_from_its_journal_without_paying_again(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    m = bench("bench_planner")
    out = tmp_path / "planner.json"
    types = "pick_and_place_simple,look_at_obj_in_light"
    _one_sample_pool(tmp_path / "pool.jsonl")
    with ScriptedEndpoint(planner_answer, owned_by="llamacpp") as ep:
        params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
        on_endpoint(params, ep.url, "scripted", timeout=30, retries=1, backoff=0.01)
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
        m.main(_args(tmp_path, out, types))
        full = json.loads(out.read_text())
        paid = len(ep.requests)
        assert paid > 0 and [len(full["episodes"][r]) for r in ("hindsight@empty", "hindsight@also")] == [2, 2]
        assert set(full["timings"]["hindsight@also"]) == {e["id"] for e in full["episodes"]["hindsight@also"]}

        # The kill: the second pool's last episode was in flight (its calls are in the kept cache, its row is not).
        cut = json.loads(out.read_text())
        lost = cut["episodes"]["hindsight@also"].pop()
        del cut["timings"]["hindsight@also"][lost["id"]]
        cut["variants"].pop("hindsight@also")
        out.write_text(json.dumps(cut))
        capsys.readouterr()
        m.main(_args(tmp_path, out, types))
        assert "resuming from" in capsys.readouterr().err
        again = json.loads(out.read_text())
        assert len(ep.requests) == paid  # nothing paid twice: kept episodes are read, the lost one replays its cache
        assert again["episodes"] == full["episodes"] and again["paired"] == full["paired"]
        kept = {k: v for k, v in full["timings"]["hindsight@also"].items() if k != lost["id"]}
        assert {k: again["timings"]["hindsight@also"][k] for k in kept} == kept  # kept lines are read, not remeasured
        assert again["timings"]["hindsight@also"][lost["id"]]["cache_hits"] > 0  # the replay says it was one
        assert again["variants"]["hindsight@also"]["resumed_after"] == 1
        assert again["variants"]["hindsight@empty"]["resumed_after"] == 2

        # Another sample of tasks: the journal is not read, the run starts afresh.
        m.main(_args(tmp_path, out, "pick_and_place_simple"))
        assert "starting afresh" in capsys.readouterr().err
        assert [len(e) for e in json.loads(out.read_text())["episodes"].values()] == [1, 1]


def test_resume_needs_a_journal_file(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--resume needs --out"):
        bench("bench_planner").main(["--resume", "--no-floors", "--params", str(ROOT / "params.yaml")])
    bad = tmp_path / "planner.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit, match="planner.json: not the JSON journal"):
        bench("bench_planner").journal(type("A", (), {"out": str(bad)})(), {})
