"""bench_relabel runs its whole path on a scripted endpoint: practice runs, relabeling with and without the expert
shown, and the pool it would keep (the bench once crashed before its first figure, and no test saw it)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from llm.scripted import ScriptedEndpoint
from testing.harness import on_endpoint, planner_answer
from tests.test_bench_targets import bench

ROOT = Path(__file__).resolve().parents[1]


def test_bench_relabel_runs_end_to_end_on_a_scripted_endpoint(tmp_path: Path) -> None:
    # owned_by llamacpp: constrained picks are grammars, which planner_answer answers with a legal option.
    with ScriptedEndpoint(planner_answer, owned_by="llamacpp") as ep:
        params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
        on_endpoint(params, ep.url, "scripted", timeout=30, retries=1, backoff=0.01)
        params["collect"]["max_subgoals"] = 2  # short practice runs: the path matters here, not the plans
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
        out, pool = tmp_path / "relabel.json", tmp_path / "pool.jsonl"
        code = bench("bench_relabel").main(["--params", str(tmp_path / "params.yaml"), "--per-type", "1",
                                            "--out", str(out), "--save-pool", str(pool)])
    figures = json.loads(out.read_text())
    assert code in (0, 1)  # 1: a target missed, which scripted answers may well do
    assert figures["practice_rollouts"] == 7 and figures["repair_rounds"] == params["relabel"]["repair_rounds"]
    assert [r["show_expert"] for r in figures["runs"]] == [True, False]
    for run in figures["runs"]:
        assert len(run["items"]) == 7 and 0 <= run["verified"] <= 7
        assert all(r["calls"] >= 2 for r in run["items"])  # reflect and critic sample at least, every call paid
    pooled = sum(r["verified"] for r in figures["runs"][0]["items"]) + sum(
        r["critic_match"] for r in figures["runs"][0]["items"])
    assert len(pool.read_text().splitlines()) == pooled  # what verified with the expert shown (pool_clean: true)
