"""`hindsight world crosscheck --alfworld DIR [--json]`: our expert's plans, on our import of each ALFWorld game's
scene, executed in ALFWorld's own engine; the share won in both worlds and every disagreement; and what each engine
shows the agent, compared at every step (expert steps and seeded non-expert ones), with the first difference per
game."""
from __future__ import annotations

import argparse
import json
import sys


def register_crosscheck(world_sub: argparse._SubParsersAction) -> None:
    """Add `crosscheck` under the `world` sub-command."""
    cc = world_sub.add_parser("crosscheck", help="our expert's plans in ALFWorld's engine: where the worlds disagree")
    cc.add_argument("--alfworld", metavar="DIR", required=True,
                    help="folder of ALFWorld games (TYPE-.../trial_.../game.tw-pddl, as alfworld-download lays out)")
    cc.add_argument("--seed", type=int, default=0)
    cc.add_argument("--wrong", type=int, default=4, metavar="N",
                    help="non-expert steps (a wrong walk, pickup, put, open; seeded) replayed among each game's "
                         "expert steps and compared too")
    cc.add_argument("--random", type=int, default=0, metavar="N",
                    help="also step N random legal sub-goals (a quarter from the expert's plan) in both worlds, "
                         "--runs times per game, and list each run's first divergence")
    cc.add_argument("--runs", type=int, default=4, help="random runs per game (with --random)")
    cc.add_argument("--json", action="store_true", help="print one JSON object")
    cc.set_defaults(func=_crosscheck)


def _crosscheck(args: argparse.Namespace) -> int:
    from household.alfworld.env import alfworld_available, INSTALL_HINT

    if not alfworld_available():
        print(f"error: {INSTALL_HINT}", file=sys.stderr)
        return 1
    from household.alfworld.crosscheck import crosscheck, differential

    try:
        out = crosscheck(args.alfworld, args.seed, args.wrong)
        if args.random:
            out["random"] = differential(args.alfworld, args.runs, args.random, args.seed)
    except (FileNotFoundError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.alfworld}: {out['games']} games; won in both worlds {out['won_both']}/{out['games']} "
          f"({out['won_both_share']:.1%}); verdicts agree {out['agree']}/{out['games']} ({out['agreement']:.1%}); "
          f"ours won {out['ours_won']}, ALFWorld won {out['alfworld_won']}")
    for d in out["disagreements"]:
        print(f"  {d['game']}: ours {'won' if d['ours_won'] else 'lost'}, ALFWorld "
              f"{'won' if d['alfworld_won'] else 'lost'}; step {d['step']} '{d['subgoal']}': {d['reason']}; "
              f"ALFWorld said: {d['alfworld_response']!r}")
    o = out["observations"]
    print(f"what the agent is shown: expert steps agree {o['steps_agree']}/{o['steps']} ({o['step_agreement']:.1%}), "
          f"non-expert steps {o['wrong_agree']}/{o['wrong_steps']} ({o['wrong_agreement']:.1%}); games where every "
          f"step agrees {o['games_agree']}/{out['games']} ({o['game_agreement']:.1%})")
    for d in o["first_differences"]:
        print(f"  {d['game']}: first difference at step {d['step']} '{d['subgoal']}' "
              f"({'expert' if d['expert'] else 'non-expert'}), field {d['field']}: ours {d['ours']!r}, "
              f"ALFWorld {d['alfworld']!r}")
    if "random" in out:
        r = out["random"]
        print(f"random sub-goals: {r['steps_compared']} steps in {r['runs']} runs; runs that diverged: "
              f"{r['runs_diverged']}")
        for d in r["diverged"]:
            print(f"  {d['game']} run {d['run']} step {d['step']} '{d['subgoal']}', field {d['field']}: ours "
                  f"{d['ours']!r}, ALFWorld {d['alfworld']!r}; ALFWorld said: {d['alfworld_response']!r}")
    return 0
