"""Benchmark of the household world: sub-goals per second, and build + expert-solve time per split.

Run: .venv/bin/python benchmarks/bench_world.py [--repeats 3] [--skip-train]
Quotes medians over repeats (one core, one process).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from household.env import Env  # noqa: E402
from household.expert import solve  # noqa: E402
from household.subgoals import legal_subgoals  # noqa: E402
from household.tasks import load_tasks  # noqa: E402


def subgoal_rate(n_tasks: int = 120, random_per_task: int = 60, seed: int = 0) -> tuple[float, int]:
    """Sub-goals per second of Env.step over expert plans and random legal sub-goals (observation included)."""
    rng = random.Random(seed)
    tasks = load_tasks("valid_unseen")[:n_tasks]
    work = []
    for t in tasks:
        plan = solve(t).plan
        env = Env(t)
        classes = {o.split(" (")[0] for o in env.observe().objects} | {"Apple", "Fridge", "CounterTop", "Knife",
                                                                      "Microwave", "SinkBasin", "Faucet", "Mug"}
        legal = legal_subgoals(classes)
        work.append((t, plan + [rng.choice(legal) for _ in range(random_per_task)]))
    envs = [Env(t, max_fails=10**9, max_steps=10**9, stop_on_success=False) for t, _ in work]  # built untimed
    n = 0
    start = time.perf_counter()
    for env, (_, sgs) in zip(envs, work):
        for sg in sgs:
            env.step(sg)
            n += 1
    return n / (time.perf_counter() - start), n


def solve_split(split: str) -> tuple[float, int, int]:
    """Seconds to build every task's scene and expert-solve it; (seconds, tasks, solved)."""
    tasks = load_tasks(split)
    start = time.perf_counter()
    solved = sum(solve(t).success for t in tasks)
    return time.perf_counter() - start, len(tasks), solved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-train", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    for s in ("valid_unseen", "valid_seen", "train"):
        load_tasks(s)
    load_s = time.perf_counter() - t0
    rates = [subgoal_rate(seed=i)[0] for i in range(args.repeats)]
    vu = [solve_split("valid_unseen") for _ in range(args.repeats)]
    out = {
        "load_all_splits_s": round(load_s, 3),
        "subgoals_per_s_median": round(statistics.median(rates)),
        "subgoals_per_s_runs": [round(r) for r in rates],
        "valid_unseen_build_solve_s_median": round(statistics.median(v[0] for v in vu), 3),
        "valid_unseen_runs_s": [round(v[0], 3) for v in vu],
        "valid_unseen_solved": f"{vu[0][2]}/{vu[0][1]}",
    }
    if not args.skip_train:
        tr = [solve_split("train") for _ in range(args.repeats)]
        out |= {
            "train_build_solve_s_median": round(statistics.median(v[0] for v in tr), 3),
            "train_runs_s": [round(v[0], 3) for v in tr],
            "train_solved": f"{tr[0][2]}/{tr[0][1]}",
        }
    print(json.dumps(out, indent=2))
    ok = out["subgoals_per_s_median"] >= 10_000 and out["valid_unseen_build_solve_s_median"] < 10
    ok = ok and (args.skip_train or out["train_build_solve_s_median"] < 60)
    print("targets met" if ok else "TARGETS MISSED", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
