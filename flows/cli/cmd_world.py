"""`hindsight world stats|play`: inspect the household world and play a task by hand."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `world` sub-command (stats, play) to the hindsight CLI."""
    world = subparsers.add_parser("world", help="the symbolic ALFRED world: statistics and interactive play")
    sub = world.add_subparsers(dest="world_command", metavar="ACTION")
    stats = sub.add_parser("stats", help="task counts and expert success over a split or ALFWorld games")
    stats.add_argument("--split", default="valid_unseen", choices=("train", "valid_seen", "valid_unseen"))
    stats.add_argument("--alfworld", metavar="DIR", help="ALFWorld game folders under DIR instead of a split")
    stats.add_argument("--seed", type=int, default=0)
    stats.add_argument("--limit", type=int, default=None, help="only the first N tasks of the split")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(func=_stats)
    play = sub.add_parser("play", help="type sub-goals for a task and read what happens")
    play.add_argument("task_id", help="ALFRED task path (or trial id), or an ALFWorld game folder")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--max-fails", type=int, default=10)
    play.add_argument("--max-steps", type=int, default=1000)
    play.set_defaults(func=_play)
    from flows.cli.cmd_crosscheck import register_crosscheck

    register_crosscheck(sub)
    world.set_defaults(func=lambda args: (world.print_help(), 2)[1])


def _stats(args: argparse.Namespace) -> int:
    from household.alfworld.stats import alfworld_stats
    from household.expert.stats import split_stats

    try:
        out = alfworld_stats(args.alfworld, args.seed) if args.alfworld else split_stats(args.split, args.seed,
                                                                                         args.limit)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out.get('split') or out.get('alfworld')}: {out['tasks']} tasks, {out['annotations']} annotations, "
          f"expert SR {out['expert_sr']:.4f}")
    for tt, n in out["by_type"].items():
        print(f"  {tt:36s} {n:6d} tasks  expert {out['expert_len'][tt]:.1f} sub-goals")
    for u in out["unsolvable"]:
        print(f"  unsolvable {u['id']}: {u['reason']}")
    return 0


def _play(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from pathlib import Path

    from household.expert.env import Env
    from household.expert.expert import solve
    from household.world.tasks import get_task

    inp, out = stdin or sys.stdin, stdout or sys.stdout
    scene = None
    try:
        if Path(args.task_id).is_dir():
            from household.alfworld.importer import load_alfworld_game

            task, scene = load_alfworld_game(args.task_id)
        else:
            task = get_task(args.task_id)
    except (KeyError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    env = Env(task, seed=args.seed, scene=scene, max_fails=args.max_fails, max_steps=args.max_steps)
    interactive = inp.isatty()
    print(f"Task {task.id} ({task.task_type})", file=out)
    print(f"Goal: {task.instruction()}", file=out)
    print("Type a sub-goal (e.g. 'Navigation Fridge', 'PickupObject Apple'), 'help', 'expert' or 'quit'.", file=out)
    print(env.observe().text(), file=out)
    while not env.done:
        if interactive:
            print("> ", end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            break
        cmd = line.strip()
        if not cmd or cmd.startswith("#"):
            continue
        if cmd.lower() in ("quit", "exit"):
            break
        if cmd.lower() == "help":
            print("Navigation C | PickupObject O | PutObject O R | OpenObject R | CloseObject R | "
                  "ToggleObjectOn O | ToggleObjectOff O | SliceObject O | Stop", file=out)
            continue
        if cmd.lower() == "expert":
            print("expert plan: " + " ; ".join(solve(task, args.seed, scene).plan), file=out)
            continue
        res = env.step(cmd)
        met, total = env.goal_conditions()
        status = "ok" if res.ok else f"FAILED: {res.reason}"
        print(f"{cmd} -> {status} | goal {met}/{total} | steps {env.low_steps} | fails {env.failed_subgoals}",
              file=out)
        print(res.observation.text(), file=out)
    met, total = env.goal_conditions()
    print(f"Episode over: {env.done_reason or 'quit'}; success={env.success}; goal conditions {met}/{total}; "
          f"{env.subgoals_executed} sub-goals, {env.low_steps} low-level steps", file=out)
    return 0
