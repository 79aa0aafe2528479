"""A pool's own quality without the LLM (planner/probe/quality.py): every executed step of every actor sample
labeled progress / neutral / regress / refused by the expert's cost-to-go before and after it.

    python -m benchmarks.bench_quality POOL.jsonl [POOL.jsonl ...] [--params params.yaml] [--json]

Prints, per kind (gt, hindsight), the samples, the steps by label and the share of progress steps, overall and per
task type, each sample's labels as a string (p/n/r/x), and the seconds spent. Nothing here runs a model.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pools", nargs="+", type=Path, help="pool JSONL files (data/pools/gt.jsonl, hindsight.jsonl)")
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from flows.runtime.workspace import configure
    configure()
    from flows.runtime.params import load_params
    from household.world.tasks import get_task
    from planner.config import PlannerConfig
    from planner.probe.quality import ACTOR_KINDS, pool_quality, step_labels
    from pools.jsonl import read_records

    params = load_params(args.params)
    cfg = PlannerConfig.from_params({k: params[k] for k in ("world", "retrieval", "planner")}, scaffold="none")
    rows = [r for p in args.pools for r in read_records(p, "sample").records if r.kind in ACTOR_KINDS]
    t0 = time.perf_counter()
    labeled = [(r, step_labels(get_task(r.task_id), r.steps, cfg, cfg.world.seed)) for r in rows]
    seconds = time.perf_counter() - t0
    quality = pool_quality(labeled)
    if args.json:
        print(json.dumps({"pools": [str(p) for p in args.pools], "seconds": round(seconds, 1), **quality}, indent=1))
        return 0
    for kind, q in quality.items():
        print(f"{kind}: {q['samples']} samples, steps {q['steps']}, progress {q['progress']:.0%}")
        for tt, t in q["by_type"].items():
            print(f"  {tt}: {t['samples']} samples, steps {t['steps']}, progress {t['progress']:.0%}")
    for r, labels in labeled:
        print(f"  {r.kind:9s} {r.id} {r.task_type}: {''.join(x[0] if x != 'refused' else 'x' for x in labels)}")
    print(f"{len(rows)} samples labeled in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
