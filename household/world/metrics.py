"""ALFRED's metrics of one episode: success, goal conditions met / total, and their path-length-weighted forms.

Path length is measured in sub-goals executed (failed ones included), the unit the planner acts in; the expert's
length is the number of sub-goals in its plan. ALFRED's weighting: w = min(1, expert_len / agent_len) per episode.
Over episodes (SR, GC = sum met / sum total, PLW = sum(x_i * w_i * expert_len_i) / sum(expert_len_i)) the one
implementation is pools/analysis/metrics.py, which works on the rollout records that carry these numbers.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from household.world.world import World


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


def episode_metrics(env: World, expert_len: int) -> dict[str, Any]:
    """Score a finished (or stopped) episode; `expert_len` is the expert plan's length in sub-goals."""
    met, total = env.goal_conditions()
    success = met == total
    gc = met / total if total else 0.0
    w = path_weight(expert_len, env.subgoals_executed)
    m = EpisodeMetrics(success, met, total, gc, env.subgoals_executed, expert_len, w * float(success), w * gc,
                       env.low_steps, env.failed_subgoals, env.done_reason)
    return asdict(m)
