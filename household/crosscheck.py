"""Cross-check of our world against ALFWorld's engine: our expert's plan on our import of each game's scene,
executed in ALFWorld's engine through the ALFWorld backend; where the two worlds disagree, the step and ALFWorld's
response."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from household.alfworld_env import AlfworldEnv, AlfworldGame, load_games
from household.expert import solve


@dataclass(frozen=True)
class GameCheck:
    """One game: our world's verdict on the expert plan, ALFWorld's, and the first step where ALFWorld differed."""

    game: str
    task_id: str
    task_type: str
    plan_len: int
    ours_won: bool
    alfworld_won: bool
    ours_reason: str = ""
    step: int = -1  # first sub-goal (0-based) that failed in ALFWorld; -1: none failed
    subgoal: str = ""
    reason: str = ""  # the backend's reason for that failure
    alfworld_response: str = ""  # ALFWorld's own text for the commands of that step
    commands: list[str] = field(default_factory=list)  # ALFWorld commands that step issued
    engine_commands: int = 0

    @property
    def agree(self) -> bool:
        """Both worlds give the same verdict on the plan."""
        return self.ours_won == self.alfworld_won


def check_game(game: AlfworldGame, seed: int = 0) -> GameCheck:
    """Run our expert on our scene of the game, then its plan through ALFWorld's engine."""
    ours = solve(game.task, seed=seed, scene=game.scene)
    env = AlfworldEnv(game.task, game, seed=seed, max_fails=10**6, max_steps=10**9)
    first: dict[str, Any] = {}
    for i, sg in enumerate(ours.plan):
        if env.done:
            break
        res = env.step(sg)
        if not res.ok and not first:
            first = {"step": i, "subgoal": sg, "reason": res.reason,
                     "alfworld_response": " | ".join(fb for _, fb in env.last_commands),
                     "commands": [c for c, _ in env.last_commands]}
    if not first and not env.won and ours.plan:  # every step ran but the goal does not hold in ALFWorld
        first = {"step": len(ours.plan) - 1, "subgoal": ours.plan[-1], "reason": "ALFWorld: goal not reached",
                 "alfworld_response": env.transcript[-1][1] if env.transcript else "",
                 "commands": [c for c, _ in env.last_commands]}
    return GameCheck(game.dir.name, game.task.id, game.task.task_type, len(ours.plan), bool(ours.success),
                     bool(env.won), ours.reason, engine_commands=env.engine_commands, **first)


def crosscheck(root: str | Path, seed: int = 0) -> dict[str, Any]:
    """Every game under `root`: agreement share, the share won in both worlds, and each disagreement."""
    checks = [check_game(g, seed) for g in load_games(root)]
    n = len(checks)
    both = sum(1 for c in checks if c.ours_won and c.alfworld_won)
    agree = sum(1 for c in checks if c.agree)
    return {
        "games": n,
        "won_both": both,
        "won_both_share": round(both / n, 4) if n else 0.0,
        "agree": agree,
        "agreement": round(agree / n, 4) if n else 0.0,
        "ours_won": sum(1 for c in checks if c.ours_won),
        "alfworld_won": sum(1 for c in checks if c.alfworld_won),
        "disagreements": [asdict(c) for c in checks if not c.agree or (c.ours_won and c.step >= 0)],
        "results": [{**asdict(c), "agree": c.agree} for c in checks],
    }


def differential(root: str | Path, runs: int = 4, steps: int = 80, seed: int = 0) -> dict[str, Any]:
    """Random walks stepped in both worlds: per game, `runs` sequences of `steps` sub-goals (a quarter from our
    expert's plan, the rest random legal ones; seeded), each ended at its first divergence (success, place or
    held object differ), which is listed with both worlds' answers."""
    import random

    from household.env import Env
    from household.subgoals import legal_subgoals

    diverged: list[dict[str, Any]] = []
    compared = 0
    games = load_games(root)
    for g in games:
        classes = sorted({p.cls for p in g.scene.places} | {o.cls for o in g.scene.objects})
        legal = [s for s in legal_subgoals(classes) if s != "Stop"]
        plan = solve(g.task, seed=seed, scene=g.scene).plan
        for run in range(runs):
            rng = random.Random(f"{g.task.id}|{seed}|{run}")
            ours = Env(g.task, seed=seed, scene=g.scene, max_fails=10**6, max_steps=10**9, stop_on_success=False)
            alf = AlfworldEnv(g.task, g, seed=seed, max_fails=10**6, max_steps=10**9, stop_on_success=False)
            for i in range(steps):
                sg = plan[i % len(plan)] if rng.random() < 0.25 else rng.choice(legal)
                a, b = ours.step(sg), alf.step(sg)
                compared += 1
                oa, ob = a.observation, b.observation
                if a.ok != b.ok or oa.location != ob.location or oa.holding != ob.holding:
                    diverged.append({"game": g.dir.name, "run": run, "step": i, "subgoal": sg,
                                     "ours": {"ok": a.ok, "reason": a.reason, "at": oa.location, "holding": oa.holding},
                                     "alfworld": {"ok": b.ok, "reason": b.reason, "at": ob.location,
                                                  "holding": ob.holding},
                                     "alfworld_response": " | ".join(f"{c} -> {r}" for c, r in alf.last_commands)})
                    break
    n = len(games) * runs
    return {"games": len(games), "runs": n, "steps_compared": compared, "runs_diverged": len(diverged),
            "diverged": diverged}
