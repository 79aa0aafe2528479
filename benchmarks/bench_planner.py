"""Planner cost per sub-goal, per variant: LLM calls, tokens, seconds, and the share of time spent outside the LLM.

    .venv/bin/python benchmarks/bench_planner.py [--model gemma3-270m] [--tasks 1] [--variants hindsight,...]

Runs each variant on the same tasks and seeds with a fresh response cache (so every call is paid), after warming
the encoder and the server once. Target: time outside the LLM < 5% of an episode.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VARIANTS = ("hindsight", "no_hindsight", "no_adapter", "llm_planner", "expert")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="gemma3-270m", help="embedded preset (or the endpoint's model)")
    ap.add_argument("--endpoint", default="embedded")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--tasks", type=int, default=1, help="valid_seen tasks (pick_and_place_simple first)")
    ap.add_argument("--k", type=int, default=3, help="examples per prompt")
    ap.add_argument("--max-subgoals", type=int, default=6)
    ap.add_argument("--gt-per-type", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    from household.tasks import load_tasks
    from planner.config import PlannerConfig
    from planner.examples import ExamplePools
    from planner.llm import LLMClient, LLMSettings
    from planner.loop import run_episode
    from planner.relabel import build_gt_critic_samples, build_gt_samples
    from planner.retrieval import get_encoder
    from pools.records import Sample
    from pools.select import stratified

    train = load_tasks("train")
    rows = stratified([{"id": t.id, "split": "train", "task_type": t.task_type} for t in train], args.gt_per_type, 0)
    by_id = {t.id: t for t in train}
    chosen = [by_id[r["id"]] for r in rows]
    gt = build_gt_samples(chosen, seed=0)
    # Stand-in hindsight pool (the other half of the gt draw, relabeled): the benchmark measures cost, not quality.
    hind = [Sample.new(**{**{k: v for k, v in s.to_dict().items() if k != "id"}, "kind": "hindsight",
                          "source": "bench"}) for s in gt[1::2]]
    pools = ExamplePools(gt=gt[0::2], hind=hind, critic=build_gt_critic_samples(chosen, gt, seed=0))
    valid = load_tasks("valid_seen")
    tasks = sorted(valid, key=lambda t: (t.task_type != "pick_and_place_simple", t.task_type))
    picked, seen_types = [], set()
    for t in tasks:  # one per type, simple first
        if t.task_type not in seen_types:
            seen_types.add(t.task_type)
            picked.append(t)
    picked = picked[: args.tasks]

    get_encoder()  # warm-up outside the timings: the encoder loads once per process...
    for kind in ("gt", "hind", "critic", "critic_gt"):  # ...and each pool's kNN index is built once per stage
        pools.retrieve(kind, "warm-up", 1)
    settings = LLMSettings(endpoint=args.endpoint, model=args.model, timeout=300, retries=1)
    out = []
    with tempfile.TemporaryDirectory() as cache, LLMClient(settings, cache_dir=Path(cache)) as client:
        client.complete("actor", "warm-up", max_tokens=1)  # start the server outside the timings
        for variant in args.variants.split(","):
            cfg = PlannerConfig(variant=variant, k=args.k, max_subgoals=args.max_subgoals)
            tot = {"subgoals": 0, "calls": 0, "tokens": 0, "llm_s": 0.0, "wall_s": 0.0, "success": 0, "by_role": {}}
            for task in picked:
                t0 = time.perf_counter()
                r = run_episode(task, variant, pools, client if variant != "expert" else None, cfg)
                tot["wall_s"] += time.perf_counter() - t0
                tot["subgoals"] += len(r.steps)
                tot["calls"] += r.llm["calls"]
                tot["tokens"] += r.llm["prompt_tokens"] + r.llm["completion_tokens"]
                tot["llm_s"] += r.llm["seconds"]
                tot["success"] += r.success
                for role, n in r.llm["by_role"].items():
                    tot["by_role"][role] = tot["by_role"].get(role, 0) + n
            n = max(tot["subgoals"], 1)
            out.append({"variant": variant, "episodes": len(picked), "success": tot["success"],
                        "subgoals": tot["subgoals"], "calls_per_subgoal": round(tot["calls"] / n, 2),
                        "tokens_per_subgoal": round(tot["tokens"] / n, 1),
                        "llm_s_per_subgoal": round(tot["llm_s"] / n, 2),
                        "wall_s_per_subgoal": round(tot["wall_s"] / n, 3),
                        "outside_llm_share": round((tot["wall_s"] - tot["llm_s"]) / tot["wall_s"], 4)
                        if tot["wall_s"] > 0 and tot["calls"] else None,
                        "calls_by_role_per_subgoal": {k: round(v / n, 2) for k, v in sorted(tot["by_role"].items())}})
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"model {args.model}, k={args.k}, {len(picked)} task(s), max {args.max_subgoals} sub-goals, cold cache")
    print(f"{'variant':13s} {'sub-goals':>9s} {'calls/sg':>9s} {'tok/sg':>8s} {'llm s/sg':>9s} {'wall s/sg':>10s} "
          f"{'outside LLM':>12s}  calls by role per sub-goal")
    for row in out:
        share = "-" if row["outside_llm_share"] is None else f"{row['outside_llm_share']:.1%}"
        print(f"{row['variant']:13s} {row['subgoals']:9d} {row['calls_per_subgoal']:9.2f} "
              f"{row['tokens_per_subgoal']:8.1f} {row['llm_s_per_subgoal']:9.2f} {row['wall_s_per_subgoal']:10.3f} "
              f"{share:>12s}  {row['calls_by_role_per_subgoal']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
