"""What the goal gate alone achieves: true arguments, first legal sub-goal, no LLM, on bench_planner's sample.

An oracle adapter answers each task's true arguments and the actor takes the first sub-goal on the legal list the
planner offers (after `planner.goal_gate`, `avoid_tried`, ...); both answer through the scripted endpoint (no model,
seconds to run). It prints successes per task type, the stop reasons, and how many sub-goals were chosen among more
than one legal one (an actor call: the decisions left to the LLM; with a single legal sub-goal no call is made).
Compare with bench_planner's success rates: the gap is what adapter errors and the LLM's choices cost. `--no-gate`
runs the same with `planner.goal_gate: false`.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--per-type", type=int, default=4, help="tasks per task type (bench_planner's sample)")
    ap.add_argument("--split", default="valid_unseen")
    ap.add_argument("--types", default="", help="comma-separated task types (default: all seven)")
    ap.add_argument("--no-gate", action="store_true", help="planner.goal_gate: false")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from flows.runtime.workspace import configure
    configure()
    from benchmarks.sample import seeded_tasks
    from flows.runtime.params import load_params
    from household.tasks import load_tasks
    from planner.config import PlannerConfig
    from planner.examples import ExamplePools
    from planner.gt import build_gt_samples
    from planner.llm.client import LLMClient
    from planner.llm.scripted import ScriptedEndpoint, grammar_choices
    from planner.loop import run_episode
    from planner.parsing import format_args

    params = load_params(args.params)
    cfg = PlannerConfig.from_params(params, variant="no_hindsight", k=1, width=1,
                                    **({"goal_gate": False} if args.no_gate else {}))
    tasks = seeded_tasks(args.split, args.per_type, cfg.seed, args.types)
    # Two train tasks as examples: the answers never read them; the prompts only need some.
    pools = ExamplePools(gt=build_gt_samples(load_tasks("train")[:2]))
    by_type: dict[str, list[int]] = {}
    stops: Counter[str] = Counter()
    choices = Counter()
    for task in tasks:
        truth = " " + format_args(task.args.as_dict())  # the adapter's answer line, true arguments

        def answer(request: Any) -> str:
            if request.prompt.startswith("Read each"):
                return truth
            options = grammar_choices(request.body)
            choices["with a choice"] += len(options) > 1
            return " " + (options[0] if options else "the value is 1/2")

        with tempfile.TemporaryDirectory() as cache, ScriptedEndpoint(answer) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=Path(cache)) as client:
            r = run_episode(task, "no_hindsight", pools, client, cfg)
        choices["steps"] += len(r.steps)
        by_type.setdefault(task.task_type, []).append(int(r.success))
        stops[r.metrics["stop_reason"]] += 1
        print(f"{task.task_type}: success={r.success} steps={len(r.steps)} stop={r.metrics['stop_reason']}",
              file=sys.stderr, flush=True)
    wins = sum(sum(v) for v in by_type.values())
    out = {"split": args.split, "tasks": len(tasks), "goal_gate": not args.no_gate, "successes": wins,
           "by_type": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_type.items())}, "stops": dict(stops),
           "subgoals": choices["steps"], "actor_calls_with_a_choice": choices["with a choice"]}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{args.split}: {wins}/{len(tasks)} succeeded with true arguments and the first legal sub-goal "
              f"(goal_gate {'on' if out['goal_gate'] else 'off'}); by type {out['by_type']}; stops {dict(stops)}; "
              f"{choices['steps']} sub-goals, {choices['with a choice']} of them chosen among more than one legal "
              f"sub-goal (an actor call)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
