"""ALFRED's episode metrics: success, goal-condition success, and their path-length-weighted variants.

Path length is measured in sub-goals executed (failed ones included), the unit the planner acts in; the expert's
length is the number of sub-goals in its plan. ALFRED's weighting: w = min(1, expert_len / agent_len) per episode;
over episodes PLW SR/GC = sum(x_i * w_i * expert_len_i) / sum(expert_len_i), as in ALFRED's eval_task.py.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping

from household.env import Env


@dataclass(frozen=True)
class EpisodeMetrics:
    """One episode's outcome as ALFRED scores it."""

    success: bool
    gc_met: int
    gc_total: int
    gc: float
    path_len: int
    expert_len: int
    plw_sr: float
    plw_gc: float
    low_steps: int
    failed_subgoals: int
    done_reason: str


def path_weight(expert_len: int, agent_len: int) -> float:
    """ALFRED's path-length weight min(1, expert/agent) (1 when the agent took no steps)."""
    if agent_len <= 0:
        return 1.0
    return min(1.0, expert_len / agent_len)


def episode_metrics(env: Env, expert_len: int) -> dict[str, Any]:
    """Score a finished (or stopped) episode; `expert_len` is the expert plan's length in sub-goals."""
    met, total = env.goal_conditions()
    success = met == total
    gc = met / total if total else 0.0
    w = path_weight(expert_len, env.subgoals_executed)
    m = EpisodeMetrics(success, met, total, gc, env.subgoals_executed, expert_len, w * float(success), w * gc,
                       env.low_steps, env.failed_subgoals, env.done_reason)
    return asdict(m)


def aggregate(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """SR, GC (sum met / sum total), PLW SR and PLW GC over episodes (ALFRED's definitions)."""
    rows = list(rows)
    n = len(rows)
    if n == 0:
        return {"episodes": 0, "sr": 0.0, "gc": 0.0, "plw_sr": 0.0, "plw_gc": 0.0}
    met = sum(int(r["gc_met"]) for r in rows)
    total = sum(int(r["gc_total"]) for r in rows)
    # ALFRED (eval_task.py) weights each episode's PLW score by its expert length: sum(x_i * L*_i) / sum(L*_i)
    weight = sum(int(r["expert_len"]) for r in rows)
    return {
        "episodes": n,
        "sr": sum(bool(r["success"]) for r in rows) / n,
        "gc": met / total if total else 0.0,
        "plw_sr": sum(float(r["plw_sr"]) * int(r["expert_len"]) for r in rows) / weight if weight else 0.0,
        "plw_gc": sum(float(r["plw_gc"]) * int(r["expert_len"]) for r in rows) / weight if weight else 0.0,
    }
