"""Scale: stage evaluate with items one at a time, on 4 and 16 threads, and on Dask (2 processes x 8 threads), for the
paper's planner and for the scaffold.

Each configuration is a real `hindsight stage evaluate VARIANT` process in one workspace: 64 episodes by default
(4 task types x 8 tasks x valid_seen + valid_unseen, max_subgoals 3, the project's planner params otherwise), every
LLM role sent to the scripted endpoint (llm.scripted; its own process) answering each call after a fixed 200 ms.
VARIANT is `hindsight` (the paper's planner: adapter, both actors and the critic, about 3 calls per sub-goal) and
`scaffold_hindsight` (the same under our rules: fewer calls, an actor with one legal answer makes none).
The LLM response cache is emptied before each run, so every configuration makes every call; the embedding cache
is warmed once first. Dask runs join a LocalCluster of 2 worker processes x 8 threads that this script starts in
the workspace (`pipeline.dask_address`), a fresh one per run.

Prints per variant and configuration: the stage's item-phase wall time (details/stages/*.json `seconds`) and the
process's wall time, the speed-up over workers 1, LLM calls and their summed wait (from the workspace's call log),
the share of worker-slot time spent outside LLM waits (1 - summed wait / (item-phase wall x slots)), and peak memory
(RSS) of the stage process and of each Dask worker process. "same output": the output file has the bytes of workers
1's (records hold no measured time; that goes to details/timing/evaluate-<variant>.jsonl). Exits non-zero when, for
the paper's planner, workers 16 is not at least 10x faster than workers 1 on the item phase, or when any output
differs; the scaffold's speed-up is reported as it is.

    .venv/bin/python -m benchmarks.bench_scale [--episodes 64] [--latency 0.2] [--repeats 1] [--configs 1,4,16,dask]
        [--variants hindsight,scaffold_hindsight]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")

from testing.harness import BIN, evaluate_workspace, prefect_server, set_param  # noqa: E402

TYPES = ("pick_and_place_simple", "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep",
         "look_at_obj_in_light")
SPLITS = ("valid_seen", "valid_unseen")
VARIANTS = ("hindsight", "scaffold_hindsight")  # the paper's planner (the target's), the scaffold (reported)
TARGET_VARIANT, TARGET_SPEEDUP = "hindsight", 10.0


def out_file(variant: str) -> str:
    """The stage's output for `variant`."""
    return f"data/eval/{variant}.jsonl"


def summary_file(variant: str) -> str:
    """The stage's summary for `variant`."""
    return f"details/stages/evaluate-{variant}.json"

# Run as `python -c` with cwd=ROOT: the working directory is first on sys.path, so planner and testing import.
_ENDPOINT = """
import sys, time
from llm.scripted import Fault, ScriptedEndpoint
from testing.harness import planner_answer
latency = float(sys.argv[1])
with ScriptedEndpoint(lambda req: Fault.delay(latency, planner_answer(req))) as ep:
    print(ep.url, flush=True)
    sys.stdin.read()
"""


@dataclass
class Run:
    """One configuration's measurements."""

    name: str
    slots: int
    items_s: float
    process_s: float
    calls: int
    llm_s: float
    rss_stage_mb: float
    rss_workers_mb: list[float] = field(default_factory=list)
    warm_s: float | None = None  # Dask: seconds to build the plan and client on the workers (inside items_s)
    output: list[Any] = field(default_factory=list)  # the output file's lines, as written

    @property
    def outside_llm(self) -> float:
        """Share of worker-slot time not spent waiting on the LLM during the item phase."""
        return max(0.0, 1.0 - self.llm_s / (self.items_s * self.slots)) if self.items_s else 0.0


@contextlib.contextmanager
def endpoint(latency: float) -> Iterator[str]:
    """The scripted endpoint in its own process (its threads never compete with the stage's for the GIL)."""
    proc = subprocess.Popen([str(BIN / "python"), "-c", _ENDPOINT, str(latency)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


class RssSampler:
    """Peak resident memory of a process and, separately, of other watched pids, sampled every 0.1 s."""

    def __init__(self, pid: int, others: list[int]) -> None:
        import psutil

        self._procs = {p: psutil.Process(p) for p in [pid, *others]}
        self.peak = {p: 0 for p in self._procs}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid, proc in self._procs.items():
                try:
                    self.peak[pid] = max(self.peak[pid], proc.memory_info().rss)
                except Exception:  # noqa: BLE001 - the process ended
                    pass
            time.sleep(0.1)

    def stop(self) -> dict[int, float]:
        """Stop sampling; peak RSS in MiB per pid."""
        self._stop.set()
        self._thread.join()
        return {p: v / 2**20 for p, v in self.peak.items()}


def llm_calls(ws: Path) -> tuple[int, float]:
    """Calls made (not served from the cache) and their summed seconds, from the workspace's call log."""
    db = sqlite3.connect(ws / ".cache" / "llm" / "llm.sqlite")
    try:
        n, s = db.execute("SELECT COUNT(*), COALESCE(SUM(seconds), 0) FROM calls WHERE cached = 0").fetchone()
    finally:
        db.close()
    return int(n), float(s)


def hindsight_pool(ws: Path) -> None:
    """A hindsight pool for the workspace: its gt pool's actor samples as hindsight samples (source `bench`), each
    with a failed first step (so Actor_hind's prompts, and its picks, differ from Actor_gt's)."""
    from pools.records import Sample

    rows = [json.loads(line) for line in (ws / "data/pools/gt.jsonl").read_text().splitlines() if line.strip()]
    out = []
    for r in rows:
        if r["kind"] == "gt":
            s = Sample.new(kind="hindsight", task_id=r["task_id"], task_type=r["task_type"],
                           instruction=r["instruction"], args=r["args"], steps=[r["steps"][-1], *r["steps"]],
                           verified=True, source="bench", reasons=["not possible yet"] + [""] * len(r["steps"]))
            out.append(json.dumps(s.model_dump(), sort_keys=True))
    (ws / "data/pools/hindsight.jsonl").write_text("".join(line + "\n" for line in out), encoding="utf-8")


def run_stage(ws: Path, env: dict[str, str], name: str, workers: int, dask: bool, variant: str) -> Run:
    """Run the evaluate stage of `variant` once in `ws` with an empty LLM cache; measure it."""
    shutil.rmtree(ws / ".cache" / "llm", ignore_errors=True)
    for rel in (out_file(variant), summary_file(variant)):
        (ws / rel).unlink(missing_ok=True)
    set_param(ws, "pipeline.workers", workers)
    set_param(ws, "llm.max_concurrency", workers)
    set_param(ws, "pipeline.task_runner", "dask" if dask else "threads")
    cluster, worker_pids = None, []
    if dask:
        from distributed import LocalCluster

        with contextlib.chdir(ws):  # the worker processes start in the workspace, as `dask worker` would
            cluster = LocalCluster(n_workers=2, threads_per_worker=8, processes=True, dashboard_address=None)
        worker_pids = [w.pid for w in cluster.workers.values()]  # the nannies' worker processes
        set_param(ws, "pipeline.dask_address", cluster.scheduler_address)
    else:
        set_param(ws, "pipeline.dask_address", None)
    t0 = time.monotonic()
    proc = subprocess.Popen([str(BIN / "hindsight"), "stage", "evaluate", variant], cwd=ws, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = RssSampler(proc.pid, worker_pids)
    out, _ = proc.communicate(timeout=3600)
    process_s = time.monotonic() - t0
    rss = sampler.stop()
    if cluster is not None:
        cluster.close()
    if proc.returncode != 0:
        raise SystemExit(f"{name}: stage exited {proc.returncode}\n{out[-4000:]}")
    summary = json.loads((ws / summary_file(variant)).read_text())
    items_s = summary["seconds"]
    calls, llm_s = llm_calls(ws)
    records = (ws / out_file(variant)).read_text().splitlines()  # compared line for line: the same bytes or not
    warm = re.search(r"Dask workers ready in ([0-9.]+) s", out)
    return Run(name, workers, items_s, process_s, calls, llm_s, rss[proc.pid],
               rss_workers_mb=[rss[p] for p in worker_pids], warm_s=float(warm.group(1)) if warm else None,
               output=records)


def main(argv: list[str] | None = None) -> int:
    """Run the configurations and print the table; non-zero when the 10x target or equality is missed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=64, help="episodes per run (a multiple of 8)")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds the endpoint takes per call")
    ap.add_argument("--repeats", type=int, default=1, help="runs per configuration (the median is reported)")
    ap.add_argument("--configs", default="1,4,16,dask", help="comma-separated: worker counts and/or 'dask'")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated evaluate variants")
    args = ap.parse_args(argv)
    per_type = max(1, args.episodes // (len(TYPES) * len(SPLITS)))
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp, endpoint(args.latency) as url:
        server, api = prefect_server(Path(tmp) / "prefect")
        try:
            env = dict(os.environ, PREFECT_API_URL=api, PREFECT_LOGGING_LEVEL="INFO", DVC_NO_ANALYTICS="1",
                       PATH=f"{BIN}:{os.environ.get('PATH', '')}", PYTHONPATH=str(ROOT))
            env.pop("OPENAI_API_KEY", None)
            os.environ["PREFECT_API_URL"] = api  # the gt_pool flow below runs in this process
            ws = evaluate_workspace(Path(tmp) / "ws", url, "scripted", per_type=per_type, types=TYPES,
                                    splits=SPLITS, max_subgoals=3)
            # Items as the models make them: constrained picks of legal sub-goals (the scripted endpoint answers
            # one of a grammar's options), and a hindsight pool, so Actor_hind proposes and the critic scores.
            set_param(ws, "llm.constrain", "grammar")
            hindsight_pool(ws)
            episodes = per_type * len(TYPES) * len(SPLITS)
            print(f"bench_scale: {episodes} episodes per run (max_subgoals 3) of {', '.join(variants)}, endpoint "
                  f"latency {args.latency * 1000:.0f} ms per call, {args.repeats} run(s) per configuration, "
                  f"{os.cpu_count()} CPU core(s)")
            by_variant: dict[str, dict[str, Run]] = {}
            for variant in variants:
                warm = run_stage(ws, env, "warm-up", 16, False, variant)  # fills the embedding cache; not reported
                print(f"  {variant} warm-up: {warm.calls} LLM calls, {warm.items_s:.1f} s")
                results = by_variant.setdefault(variant, {})
                for config in configs:
                    dask = config == "dask"
                    workers = 16 if dask else int(config)
                    name = "dask 2x8" if dask else f"workers {workers}"
                    runs = sorted((run_stage(ws, env, name, workers, dask, variant) for _ in range(args.repeats)),
                                  key=lambda r: r.items_s)
                    results[name] = runs[len(runs) // 2]
                    print(f"  {variant} {name}: {results[name].items_s:.1f} s", flush=True)
        finally:
            server.kill()
            server.wait()
    ok = True
    for variant, results in by_variant.items():
        ok = report(variant, results, episodes) and ok
    return 0 if ok else 1


def report(variant: str, results: dict[str, Run], episodes: int) -> bool:
    """Print one variant's table; False when an output differs or (the target's variant) 16 workers miss 10x."""
    base = results.get("workers 1")
    calls = base.calls / episodes if base else float("nan")
    print(f"\n{variant} ({'the paper planner' if variant == TARGET_VARIANT else 'the scaffold'}; "
          f"{calls:.1f} LLM calls per episode)")
    print(f"{'config':<11} {'items s':>8} {'process s':>9} {'speed-up':>8} {'LLM calls':>9} {'LLM wait s':>10} "
          f"{'outside LLM':>11} {'stage RSS MiB':>13} {'worker RSS MiB':>15} {'same output':>11}")
    ok = True
    for name, r in results.items():
        speed = base.items_s / r.items_s if base and r.items_s else float("nan")
        same = base is None or r.output == base.output
        ok = ok and same
        workers = "/".join(f"{m:.0f}" for m in r.rss_workers_mb) or "-"
        print(f"{name:<11} {r.items_s:>8.1f} {r.process_s:>9.1f} {speed:>7.1f}x {r.calls:>9} {r.llm_s:>10.1f} "
              f"{r.outside_llm:>10.0%} {r.rss_stage_mb:>13.0f} {workers:>15} {'yes' if same else 'NO':>11}")
    for name, r in results.items():
        if r.warm_s is not None:
            print(f"{name}: the item phase includes {r.warm_s:.1f} s to start the workers' planner (imports, inputs "
                  f"read, plan and client built once per process); items alone {r.items_s - r.warm_s:.1f} s")
    if base and "workers 16" in results:
        w16 = results["workers 16"]
        per_thread = (w16.rss_stage_mb - base.rss_stage_mb) / 15
        print(f"memory: threads share the stage process; each extra worker thread adds {per_thread:.1f} MiB "
              f"(workers 16 vs 1). Dask: RSS per worker process above (8 threads each).")
        speed = base.items_s / w16.items_s
        met = speed >= TARGET_SPEEDUP
        if variant == TARGET_VARIANT:
            print(f"target: workers 16 >= {TARGET_SPEEDUP:.0f}x faster than workers 1 on the item phase: {speed:.1f}x "
                  f"({'met' if met else 'MISSED'})")
            ok = ok and met
        else:
            print(f"workers 16 vs 1: {speed:.1f}x (reported; the target is the paper planner's)")
    return ok


if __name__ == "__main__":
    sys.exit(main())
