"""What the scaffold's rules alone achieve: true arguments, first legal sub-goal, no LLM.

An oracle adapter answers each task's true arguments and the actor takes the first sub-goal on the legal list the
planner offers under `planner.scaffold: full` (after the goal gate, `avoid_tried`, ...); both answer through the
scripted endpoint (no model, seconds per task; benchmarks/floors.py). It prints successes per task type, the stop
reasons, and how many sub-goals were chosen among more than one legal one (the decisions left to the LLM).

Two task sets by default, each with a target (exit 1 on a miss):
- the sample: 4 seeded valid_unseen tasks per type of every valid_unseen task (the 28 the rules were tuned on; the
  dev set holds their specs): 28/28;
- every valid_unseen task: at least 250 of 255.
`--per-type N --set S --split X` runs one sample instead (no target unless it is one of the two); `--no-gate` runs
with `planner.goal_gate: false`.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

# (split, per_type, task set) -> the least successes with the gate on: the sample and every valid_unseen task.
TARGETS: dict[tuple[str, int, str], int] = {("valid_unseen", 4, "all"): 28, ("valid_unseen", 0, "all"): 250}


def run(params: dict[str, Any], split: str, per_type: int, task_set: str, types: str, gate: bool) -> dict[str, Any]:
    """The first-legal policy with true arguments on one sample; its figures."""
    from benchmarks.floors import floor_rollouts
    from benchmarks.sample import seeded_tasks

    seed = int(params["world"]["seed"])
    tasks = seeded_tasks(split, per_type, seed, types, task_set)
    rollouts = floor_rollouts(tasks, params, "full", "first", **({} if gate else {"goal_gate": False}))
    by_type: dict[str, list[int]] = {}
    for r in rollouts:
        by_type.setdefault(r["task_type"], []).append(int(r["success"]))
    steps = [s for r in rollouts for s in r["steps"]]
    wins = sum(int(r["success"]) for r in rollouts)
    return {"split": split, "per_type": per_type, "task_set": task_set, "tasks": len(tasks), "goal_gate": gate,
            "successes": wins, "by_type": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_type.items())},
            "stops": dict(Counter(r["metrics"]["stop_reason"] for r in rollouts)), "subgoals": len(steps),
            "with_a_choice": sum(s["chosen_by"] == "llm" for s in steps)}


def missed(result: dict[str, Any]) -> list[str]:
    """The target of this sample missed (empty when met or when the sample has none)."""
    need = TARGETS.get((result["split"], result["per_type"], result["task_set"]))
    if need is None or not result["goal_gate"] or result["successes"] >= need:
        return []
    return [f"{result['split']} ({result['task_set']}, per type {result['per_type'] or 'all'}): "
            f"{result['successes']}/{result['tasks']} < {need}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--per-type", type=int, default=None, help="tasks per task type (0 = all); default: both samples")
    ap.add_argument("--split", default="valid_unseen")
    ap.add_argument("--set", dest="task_set", default="all", choices=("heldout", "dev", "all"))
    ap.add_argument("--types", default="", help="comma-separated task types (default: all seven)")
    ap.add_argument("--no-gate", action="store_true", help="planner.goal_gate: false")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from flows.runtime.workspace import configure
    configure()
    from flows.runtime.params import load_params

    params = load_params(args.params)
    samples = [args.per_type] if args.per_type is not None else [4, 0]
    results = [run(params, args.split, n, args.task_set, args.types, not args.no_gate) for n in samples]
    for out in results:
        if not args.json:
            print(f"{out['split']} ({out['task_set']}, {out['per_type'] or 'every'} per type): {out['successes']}/"
                  f"{out['tasks']} succeeded with true arguments and the first legal sub-goal (scaffold full, "
                  f"goal_gate {'on' if out['goal_gate'] else 'off'}); by type {out['by_type']}; stops {out['stops']}; "
                  f"{out['subgoals']} sub-goals, {out['with_a_choice']} of them chosen among more than one")
    if args.json:
        print(json.dumps(results, indent=1))
    miss = [m for r in results for m in missed(r)]
    print("targets met" if not miss else "TARGETS MISSED:\n  " + "\n  ".join(miss), file=sys.stderr)
    return 1 if miss else 0


if __name__ == "__main__":
    raise SystemExit(main())
