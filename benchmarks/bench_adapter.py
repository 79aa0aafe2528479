"""Adapter accuracy per argument, on a fixed seeded sample, for each way of listing the answer's options.

    .venv/bin/python -m benchmarks.bench_adapter [--per-type 10] [--split valid_unseen] [--set dev]
        [--options all,gt_lexicon,lexicon] [--scaffold full] [--params params.yaml] [--json]

The adapter alone (one call per task, the instruction the planner gets, no observation as `adapter_observes: false`),
with the params' adapter model, its gt examples retrieved as an episode retrieves them (pools.gt_per_type, the task
itself excluded), on `--per-type` tasks of each type of `--set` (pools.select.stratified, seed world.seed).
`--options`: `all` lists every class of the ontology (the paper's planner), `lexicon` only the values the
instruction's words point to by counts over every train annotation (planner/adapter/lexicon.py,
`planner.adapter_min_share`: train-wide knowledge), `gt_lexicon` the same counts over the gt pool's annotations only. `--scaffold` sets the word
rules (`full`: the scaffold's container, lamp and slice words; `none`: the lists alone). A fresh response cache makes
every call paid. Prints, per mode, the accuracy of each argument, the share of tasks with all seven right, prompt
tokens and seconds per call.
Target (the scaffold's adapter on the dev sample it was tuned on: `--set dev` or `all`, `--scaffold full`):
object_target accuracy >= 90% with lexicon; exit 1 if missed. Held-out figures have no target.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OBJECT_TARGET_ACC = 0.90


def missed_targets(results: dict[str, dict[str, Any]], mode: str = "lexicon", tuned_on: bool = True) -> list[str]:
    """The target missed by the scaffold's lexicon on the sample it was tuned on (empty when met, when that mode did
    not run, or on held-out tasks: no target to chase there)."""
    if mode not in results or not tuned_on:
        return []
    acc = results[mode]["accuracy"]["object_target"]
    return [] if acc >= OBJECT_TARGET_ACC else \
        [f"object_target accuracy {acc:.0%} < {OBJECT_TARGET_ACC:.0%} with planner.adapter_options: {mode}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--per-type", type=int, default=10, help="tasks per task type")
    ap.add_argument("--split", default="valid_unseen")
    ap.add_argument("--options", default="all,gt_lexicon,lexicon", help="comma-separated: all, gt_lexicon, lexicon")
    ap.add_argument("--set", dest="task_set", default="dev", choices=("heldout", "dev", "all"),
                    help="the tasks sampled from (dev: the sample the scaffold's adapter was tuned on)")
    ap.add_argument("--scaffold", default="full", choices=("none", "full"),
                    help="the adapter's word rules: full = the scaffold's, none = the paper planner's (none)")
    ap.add_argument("--order", default=None, help="planner.adapter_order override: object_first | mrecep_first")
    ap.add_argument("--types", default="", help="comma-separated task types (default: all seven)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from flows.runtime.workspace import configure
    configure()
    from benchmarks.sample import gt_pool, seeded_tasks
    from flows.runtime.llm_stage import llm_client
    from flows.runtime.params import load_params
    from planner.adapter.predict import Adapter
    from planner.config import PlannerConfig
    from planner.prompts.parsing import args_accuracy
    from planner.retrieval.examples import ExamplePools
    from pools.records import ARG_KEYS

    params = load_params(args.params)
    cfg = PlannerConfig.from_params(params, scaffold=args.scaffold,
                                    **({"adapter_order": args.order} if args.order else {}))
    seed = int(params["world"]["seed"])
    gt, critic = gt_pool(params)
    pools = ExamplePools(gt=gt, hind=[], critic=critic)
    picked = seeded_tasks(args.split, args.per_type, seed, args.types, args.task_set)
    pools.retrieve("gt", "warm-up", 1)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as cache, llm_client(params, cache_dir=Path(cache)) as client:
        client.complete("adapter", "warm-up", max_tokens=1)  # start the server outside the timings
        for mode in args.options.split(","):
            hits = dict.fromkeys(ARG_KEYS, 0)
            all_right, seconds, mark = 0, 0.0, client.usage.snapshot()
            misses: list[dict[str, Any]] = []
            for task in picked:
                text = task.instruction(0)
                adapter = Adapter.from_config(
                    client, pools.retrieve("gt", text, cfg.retrieval.adapter_k or cfg.retrieval.k,
                                           exclude_task=task.id), cfg, mode,
                    pool=[s for s in gt if s.task_id != task.id])
                t0 = time.perf_counter()
                pred = adapter.predict(text, ())
                seconds += time.perf_counter() - t0
                acc = args_accuracy(pred, task.args.as_dict())
                for k in ARG_KEYS:
                    hits[k] += acc[k]
                all_right += all(acc.values())
                if not acc["object_target"]:
                    misses.append({"instruction": text, "truth": task.args.object_target,
                                   "said": pred["object_target"]})
            n = len(picked)
            usage = client.usage.summary(since=mark, measured=False)
            results[mode] = {"tasks": n, "accuracy": {k: round(v / n, 4) for k, v in hits.items()},
                             "all_seven": round(all_right / n, 4), "seconds_per_call": round(seconds / n, 2),
                             "prompt_tokens_per_call": round(usage["prompt_tokens"] / max(usage["calls"], 1), 1),
                             "object_misses": misses}
            print(f"{mode}: {n} tasks done", file=sys.stderr, flush=True)
    out = {"split": args.split, "task_set": args.task_set, "scaffold": args.scaffold, "per_type": args.per_type,
           "seed": seed, "model": client.model_id_for("adapter"),
           "gt_examples": len(gt), "adapter_k": cfg.retrieval.adapter_k, "min_share": cfg.adapter.adapter_min_share,
           "order": cfg.adapter.adapter_order, "modes": results}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{args.split}: {len(picked)} {args.task_set} tasks ({args.per_type} per type, seed {seed}), scaffold "
              f"{args.scaffold}, one call each, cold cache; "
              f"model {out['model']}; {cfg.retrieval.adapter_k} of {len(gt)} gt examples per prompt; "
              f"{cfg.adapter.adapter_order}")
        keys = list(ARG_KEYS)
        print(f"{'options':10s} " + " ".join(f"{k.split('_')[0][:7]:>7s}" for k in keys)
              + f" {'all 7':>6s} {'tok/call':>8s} {'s/call':>6s}")
        for mode, q in results.items():
            print(f"{mode:10s} " + " ".join(f"{q['accuracy'][k]:7.0%}" for k in keys)
                  + f" {q['all_seven']:6.0%} {q['prompt_tokens_per_call']:8.0f} {q['seconds_per_call']:6.2f}")
            for m in q["object_misses"]:
                print(f"    object miss: {m['instruction']!r}: said {m['said'] or 'nothing'}, truth {m['truth']}")
    missed = missed_targets(results, tuned_on=args.task_set != "heldout" and args.scaffold == "full")
    print("TARGET MISSED: " + missed[0] if missed else "target met (or not one to check here)", file=sys.stderr)
    return 1 if missed else 0

if __name__ == "__main__":
    sys.exit(main())
