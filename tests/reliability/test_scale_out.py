"""Scale-out: stage evaluate on a 2-worker Dask LocalCluster (prefect-dask) writes the bytes of threads, and
`llm.max_concurrency` caps the requests in flight across the cluster's worker processes."""
from __future__ import annotations

import pickle
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from prefect import flow

from llm.scripted import ScriptedEndpoint
from testing.harness import TABLE, evaluate_workspace, planner_answer, set_param

VARIANT = "hindsight"
OUT = f"data/eval/{VARIANT}.jsonl"


@flow(name="evaluate-items")
def evaluate_items(params: dict, variant: str) -> dict:
    """Stage evaluate's item phase exactly as evaluate_flow runs it (its plan, run_llm_stage, its output file),
    without the metrics files written after it (another concern, tested with the pipeline)."""
    from flows.runtime.items import StagePlan
    from flows.runtime.llm_stage import run_llm_stage
    from flows.runtime.stage_io import GT_POOL, HINDSIGHT_POOL, TASKS
    from flows.runtime.params import stage_params
    from flows.stages.evaluate import plan

    params = stage_params("evaluate", params, variant)
    return run_llm_stage(f"evaluate-{variant}", params, StagePlan(plan, (params, variant, "fail")), OUT, "rollout",
                         (TASKS, GT_POOL, HINDSIGHT_POOL))


class Counting:
    """Endpoint script: `answer` after `pace` seconds, recording the most requests it ever had in flight at once."""

    def __init__(self, answer: Any, pace: float) -> None:
        self.answer, self.pace = answer, pace
        self.now = self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, req: Any) -> Any:
        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            time.sleep(self.pace)
            return self.answer(req)
        finally:
            with self._lock:
                self.now -= 1


# Fast enough for `make test` (~40 s on 2 loaded cores: 2 episodes on threads, then on 2 worker processes that
# import the planner); the 4-episode version with 4 workers is the same check, slower.
@pytest.mark.parametrize("per_type", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_evaluate_on_dask_local_cluster_matches_threads(per_type: int, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, inproc_prefect: str) -> None:
    from flows.runtime.params import load_params
    from pools.jsonl import read_jsonl

    secret = "sk-test-never-shipped-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)  # the workers inherit the environment; the payload must not carry it
    script = Counting(planner_answer, pace=0.25)
    with ScriptedEndpoint(script) as ep:
        root = evaluate_workspace(tmp_path / "ws", ep.url, ep.model, per_type=per_type)
        monkeypatch.chdir(root)
        set_param(root, "pipeline.workers", 2 * per_type)
        threads = evaluate_items(load_params(), VARIANT)
        expected = (root / OUT).read_bytes()
        calls_threads = len(ep.requests)

        shutil.rmtree(root / ".cache" / "llm")  # the workers must really call the endpoint
        set_param(root, "pipeline.task_runner", "dask")
        set_param(root, "pipeline.workers", 2)
        set_param(root, "llm.max_concurrency", 1)  # across both worker processes, not in each
        script.peak = 0
        dask = evaluate_items(load_params(), VARIANT)
        got = (root / OUT).read_bytes()
        calls_dask = len(ep.requests) - calls_threads

    records = read_jsonl(root / OUT, "rollout").records
    assert threads["ok"] == dask["ok"] == len(records) == 2 * per_type and dask["failed"] == 0
    # The same bytes: records hold no measured time (details/timing/ has it), so nothing may differ.
    assert got == expected, _first_difference(expected, got)
    assert script.peak == 1, f"{script.peak} requests in flight at once with llm.max_concurrency 1 on 2 processes"
    # Each episode's `llm` block counts its own calls, not those of episodes running beside it.
    hits = sum(t["cache_hits"] for t in read_jsonl(root / f"details/timing/evaluate-{VARIANT}.jsonl", "timing").records)
    assert sum(r["llm"]["calls"] for r in records) - hits == calls_dask == calls_threads > 0
    assert "Dask" in dask["execution"]
    TABLE.add("evaluate on Dask LocalCluster (2 workers)", trials=len(records), clear=True,
              note=f"records identical to threads; {calls_dask} LLM calls made on the workers")


def test_item_job_pickles_without_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a Dask task carries: a module-level build function by reference, params and digests, no key."""
    from flows.runtime.items import ItemJob, StagePlan
    from flows.stages.evaluate import plan

    secret = "sk-test-never-shipped-abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    params = {"llm": {"endpoint": "http://127.0.0.1:9/v1", "model": "m"}}
    job = ItemJob("evaluate-x", StagePlan(plan, (params, VARIANT, "fail")), params["llm"], {"a": "0" * 64},
                  str(tmp_path))
    blob = pickle.dumps(job)
    assert secret.encode() not in blob
    assert len(blob) < 2_000  # plain data: the pools load on the worker, they are not shipped
    back = pickle.loads(blob)
    assert back.key == job.key and back.plan.build is plan


def test_worker_refuses_inputs_that_differ_from_the_flows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that sees other input files than the flow read (no shared filesystem) fails the item clearly."""
    from flows.runtime.items import ItemJob, StagePlan, run_item
    from testing import driver

    (tmp_path / "params.yaml").write_text("{}\n")
    (tmp_path / "data").mkdir()
    (tmp_path / driver.INPUT).write_text("")
    monkeypatch.chdir(tmp_path)
    job = ItemJob("reldriver", StagePlan(driver.plan, ({}, "fail")), {"endpoint": "http://127.0.0.1:9/v1"},
                  {driver.INPUT: "0" * 64}, "/elsewhere/ws")
    with pytest.raises(RuntimeError, match=r"data/tasks.jsonl is not the file the flow read .* start the workers "
                                           r"in the workspace /elsewhere/ws"):
        run_item(job, {})


def _first_difference(a: bytes, b: bytes) -> str:
    """Where two JSONL outputs first differ: line and fields."""
    import json

    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), start=1):
        if x != y:
            rx, ry = json.loads(x), json.loads(y)
            keys = sorted(k for k in rx.keys() | ry.keys() if rx.get(k) != ry.get(k))
            return f"line {n} differs in {keys}: {[(k, rx.get(k), ry.get(k)) for k in keys][:3]}"
    return f"lengths differ: {len(a.splitlines())} vs {len(b.splitlines())} lines"


@pytest.mark.slow  # 30-90 s: two worker processes start and import the planner
def test_engine_on_dask_records_and_faults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           inproc_prefect: str) -> None:
    """The stage engine on a 2-worker LocalCluster: the records of a one-at-a-time run, in item order; a
    transient 500 recovers on the worker, a persistent one fails its item with the reason (LLMError came back)."""
    from flows.runtime.params import load_params
    from llm.scripted import Fault
    from testing.driver import driver_flow
    from testing.harness import (OUT as DRIVER_OUT, ItemScript, minimal_workspace, output_ids, summary,
                                           task_rows)

    rows = task_rows(per_type=3)
    ids = [r["id"] for r in rows]
    script = ItemScript()
    with ScriptedEndpoint(script) as ep:
        root = minimal_workspace(tmp_path / "ws", ep.url, ep.model, rows, timeout=5)
        monkeypatch.chdir(root)
        driver_flow(load_params(), "fail")
        reference = (root / DRIVER_OUT).read_bytes()

        shutil.rmtree(root / ".cache" / "llm")
        script.plan.update({ids[0]: [Fault.status(500)], ids[1]: [Fault.status(500) for _ in range(8)]})
        set_param(root, "pipeline.task_runner", "dask")
        set_param(root, "pipeline.workers", 2)
        result = driver_flow(load_params(), "fail")
    failed = {f["item"]: f["reason"] for f in summary(root)["failures"]}
    assert list(failed) == [ids[1]] and "LLMError" in failed[ids[1]] and "http_500" in failed[ids[1]], failed
    assert output_ids(root) == [i for i in ids if i != ids[1]]
    kept = [line for line in reference.splitlines(keepends=True) if f'"id": "{ids[1]}"' not in line.decode()]
    assert (root / DRIVER_OUT).read_bytes() == b"".join(kept)
    assert result["ok"] == len(ids) - 1 and "Dask" in result["execution"]
    TABLE.add("llm status_500 on Dask workers", trials=script.served["status_500"], clear=True,
              note="reason 'http_500' back from the worker; records as one at a time")


def test_max_concurrency_holds_across_dask_worker_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           inproc_prefect: str) -> None:
    """2 worker processes x 4 threads, llm.max_concurrency 2: the endpoint never has more than 2 requests in flight
    (each process's own semaphore alone would let 4 through), and it does reach 2."""
    from flows.runtime.params import load_params
    from testing.driver import driver_flow
    from testing.harness import OUT as DRIVER_OUT, minimal_workspace, task_rows, thought

    rows = task_rows(per_type=8)  # 16 items, one call each
    script = Counting(lambda req: thought(re.search(r"ITEM (\S+)", req.prompt).group(1)), pace=0.3)
    with ScriptedEndpoint(script) as ep:
        root = minimal_workspace(tmp_path / "ws", ep.url, ep.model, rows, timeout=30, workers=8, max_concurrency=2)
        monkeypatch.chdir(root)
        set_param(root, "pipeline.task_runner", "dask")
        result = driver_flow(load_params(), "fail")
    assert result["ok"] == len(rows) and "Dask" in result["execution"], result
    assert script.peak == 2, f"peak {script.peak} requests in flight with llm.max_concurrency 2 on 2 processes"
    assert len((root / DRIVER_OUT).read_text().splitlines()) == len(rows)
    TABLE.add("llm.max_concurrency on Dask (2 processes x 4 threads)", trials=len(rows), clear=True,
              note=f"peak {script.peak} in flight, cap 2 cluster-wide")


@pytest.mark.parametrize("pipeline, message", [
    ({"workers": 0}, "pipeline.workers must be an integer >= 1, got 0"),
    ({"workers": "many"}, "pipeline.workers must be an integer >= 1, got 'many'"),
    ({"task_runner": "spark"}, "pipeline.task_runner must be one of ['threads', 'dask'], got 'spark'"),
    ({"dask_address": "tcp://h:8786"}, "pipeline.dask_address is set but pipeline.task_runner is 'threads'"),
])
def test_bad_pipeline_params_are_named(pipeline: dict, message: str) -> None:
    from flows.runtime.execution import Execution
    from flows.runtime.params import ParamsError

    with pytest.raises(ParamsError, match=re.escape(message)):
        Execution.from_params({"pipeline": pipeline})
    assert Execution.from_params({}).sequential  # no pipeline keys: one at a time, as before
