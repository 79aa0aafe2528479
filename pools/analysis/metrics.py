"""ALFRED's evaluation metrics over rollout records: the one implementation of SR, GC, PLW SR and PLW GC.

household/world/metrics.py scores one episode (goal conditions met and in total, the path weight); this module
aggregates episodes as ALFRED's eval_task.py / leaderboard does:
  SR     = successes / episodes
  GC     = sum of goal conditions met / sum of goal conditions (not a mean of per-episode ratios)
  PLW SR = sum(s_i * w_i * L_i) / sum(L_i), and PLW GC likewise with gc_i, where w_i = min(1, L_i / agent_len_i)
           (stored per episode in rollout.plw) and L_i is the expert's plan length (rollout.expert_len).
Pure arithmetic on records: no world, no LLM.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, TypeVar

from pools.analysis.stats import bootstrap_ci, ratio, wilson

Row = Mapping[str, Any]
T = TypeVar("T")
HEADLINE_RATES = ("sr", "gc", "plw_sr", "plw_gc")


def _r(x: float, digits: int = 4) -> float:
    return round(x, digits)


def alfred_rates(rollouts: Iterable[Row]) -> dict[str, Any]:
    """SR, GC, PLW SR and PLW GC of a group of episodes, by ALFRED's definitions (module docstring)."""
    rows = list(rollouts)
    n = len(rows)
    met = sum(int(r["gc_met"]) for r in rows)
    total = sum(int(r["gc_total"]) for r in rows)
    weight = sum(int(r["expert_len"]) for r in rows)
    return {
        "episodes": n,
        "sr": _r(sum(bool(r["success"]) for r in rows) / n) if n else 0.0,
        "gc": _r(met / total) if total else 0.0,
        "plw_sr": _r(sum(float(r["plw"]["sr"]) * int(r["expert_len"]) for r in rows) / weight) if weight else 0.0,
        "plw_gc": _r(sum(float(r["plw"]["gc"]) * int(r["expert_len"]) for r in rows) / weight) if weight else 0.0,
        "gc_met": met,
        "gc_total": total,
    }


def cost(rollouts: Iterable[Row]) -> dict[str, float]:
    """What a planned sub-goal costs in LLM calls and tokens (the same on every run; wall-clock seconds per sub-goal
    come from the stage's timing file: pools.timing.speed)."""
    rows = list(rollouts)
    subgoals = sum(len(r["steps"]) for r in rows)
    calls = sum(int(r["llm"].get("calls", 0)) for r in rows)
    tokens = sum(int(r["llm"].get("prompt_tokens", 0)) + int(r["llm"].get("completion_tokens", 0)) for r in rows)

    def per(x: float, digits: int) -> float:
        return round(x / subgoals, digits) if subgoals else 0.0

    return {
        "subgoals_per_episode": round(subgoals / len(rows), 2) if rows else 0.0,
        "failed_subgoals_per_episode": round(sum(not s["ok"] for r in rows for s in r["steps"]) / len(rows), 2)
        if rows else 0.0,
        "calls_per_subgoal": per(calls, 3),
        "tokens_per_subgoal": per(tokens, 1),
    }


def decided(rollouts: Iterable[Row]) -> dict[str, Any]:
    """How much the LLM decided: of the executed sub-goals, how many it chose among two or more offered ones
    (step `chosen_by`: llm), how many the follower chose (follow: its own pick, no LLM between), how many a scaffold
    rule or a single legal option forced; the shares are over executed
    sub-goals (None when none was executed, or the records predate `chosen_by`)."""
    steps = [s for r in rollouts for s in r["steps"] if s.get("chosen_by", "") not in ("none", "")]
    by = defaultdict(int)
    for s in steps:
        by[s["chosen_by"]] += 1
    executed = len(steps)
    return {"executed": executed, "llm": by["llm"], "rule": by["rule"], "single": by["single"],
            "expert": by["expert"], "follow": by["follow"], "llm_share": _r(by["llm"] / executed) if executed else None,
            "follow_share": _r(by["follow"] / executed) if executed else None}


def intervals(rollouts: list[Row], samples: int, seed: int) -> dict[str, list[float]]:
    """95% intervals of SR (Wilson's, `sr_interval`) and GC (bootstrap, resampling episodes: a ratio of sums)."""
    met = [float(r["gc_met"]) for r in rollouts]
    total = [float(r["gc_total"]) for r in rollouts]
    return {
        "sr": sr_interval(rollouts) or [0.0, 0.0],
        "gc": bootstrap_ci([met, total], lambda s: ratio(s[0], s[1]), samples, seed),
    }


def sr_interval(rollouts: list[Row]) -> list[float] | None:
    """SR's 95% Wilson interval: episodes are independent trials, and a bootstrap of 0 of 8 would be [0, 0]."""
    return wilson(sum(bool(r["success"]) for r in rollouts), len(rollouts))


def group_by(items: Iterable[T], key: Callable[[T], str]) -> dict[str, list[T]]:
    """Items (episodes, or pairs of episodes) grouped by `key`, groups in sorted order."""
    groups: dict[str, list[T]] = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    return dict(sorted(groups.items()))


def adapter_accuracy(rollouts: Iterable[Row]) -> dict[str, float]:
    """Mean per-argument accuracy of the adapter's predictions (episodes with an adapter only)."""
    per_arg: dict[str, list[float]] = defaultdict(list)
    for r in rollouts:
        for key, value in (r["metrics"].get("adapter_acc") or {}).items():
            per_arg[key].append(float(value))
    return {k: _r(sum(v) / len(v)) for k, v in sorted(per_arg.items())}


def llm_by_role(rollouts: Iterable[Row]) -> dict[str, dict[str, float]]:
    """LLM calls and tokens per role, summed over episodes (llm.roles; llm.by_role holds calls only)."""
    roles: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in rollouts:
        usage_by_role = r["llm"].get("roles") or {k: {"calls": v} for k, v in (r["llm"].get("by_role") or {}).items()}
        for role, usage in usage_by_role.items():
            for key, value in usage.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    roles[role][key] += value
    return {role: {k: round(v, 3) for k, v in sorted(u.items())} for role, u in sorted(roles.items())}


def failure_reasons(rollouts: Iterable[Row], top: int = 20) -> dict[str, int]:
    """How often each failure reason of the world (or the planner's 'no proposal') occurred, most frequent first."""
    counts: dict[str, int] = defaultdict(int)
    for r in rollouts:
        for s in r["steps"]:
            if not s["ok"]:
                counts[s["reason"] or "(no reason)"] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top])


def headline(rollouts: list[Row], splits: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The DVC metrics of one variant, one row per split (metrics/eval/<variant>/<split>.json).

    Episode count, SR, GC, PLW SR, PLW GC, LLM calls per planned sub-goal and the share of executed sub-goals the
    LLM chose among two or more (`llm_decided`; 0 for the expert); nothing else, so that `dvc metrics
    show` stays readable (short keys: every key is a column of its table) and nothing measured makes `dvc exp show
    --only-changed` list an unchanged result (wall seconds: pools.timing.speed). details() has the rest.
    """
    by_split = group_by(rollouts, lambda r: r["split"])
    out: dict[str, dict[str, Any]] = {}
    for split in splits:
        rows = by_split.get(split, [])
        rates, c, share = alfred_rates(rows), cost(rows), decided(rows)["llm_share"]
        out[split] = {"episodes": rates["episodes"], **{k: rates[k] for k in HEADLINE_RATES},
                      "calls/subgoal": c["calls_per_subgoal"], "llm_decided": share if share is not None else 0.0}
    return out


def rates_with_ci(rollouts: list[Row]) -> dict[str, Any]:
    """ALFRED's rates with SR's 95% interval (`sr_ci`, `sr_interval`), as a group of games is reported."""
    rates = alfred_rates(rollouts)
    return {**rates, "sr_ci": sr_interval(rollouts)}


def details(variant: str, rollouts: list[Row]) -> dict[str, Any]:
    """Everything else about one variant (details/eval/<variant>.json; not a DVC metric; the report reads it).

    Overall, per split, per task type, and per split and type: ALFRED's rates; cost per sub-goal; adapter accuracy
    per argument; LLM usage per role; who chose the executed sub-goals; the world's failure reasons; why episodes
    stopped; on ALFWorld's engine the mean ALFWorld actions per episode. SR carries its 95% interval (`sr_ci`).
    """
    actions = [r["metrics"]["alfworld_actions"] for r in rollouts if "alfworld_actions" in r["metrics"]]
    stops: dict[str, int] = defaultdict(int)
    for r in rollouts:
        stops[str(r["metrics"].get("stop_reason", "unknown"))] += 1
    return {
        "variant": variant,
        "episodes": len(rollouts),
        "all": {**rates_with_ci(rollouts), **cost(rollouts),
                **({"alfworld_actions": _r(sum(actions) / len(actions), 2)} if actions else {})},
        "by_split": {
            split: {**rates_with_ci(rows), **cost(rows),
                    "by_type": {t: rates_with_ci(g) for t, g in group_by(rows, lambda r: r["task_type"]).items()}}
            for split, rows in group_by(rollouts, lambda r: r["split"]).items()
        },
        "by_type": {t: rates_with_ci(g) for t, g in group_by(rollouts, lambda r: r["task_type"]).items()},
        "adapter_accuracy": adapter_accuracy(rollouts),
        "decided": decided(rollouts),
        "llm_by_role": llm_by_role(rollouts),
        "failure_reasons": failure_reasons(rollouts),
        "stop_reasons": dict(sorted(stops.items())),
    }


def sr_by_type_rows(variant: str, rollouts: list[Row]) -> list[dict[str, Any]]:
    """Plot rows (plots/eval/<variant>.json): SR and GC per task type for one variant, all evaluated splits together."""
    rows = []
    for t, group in group_by(rollouts, lambda r: r["task_type"]).items():
        rates = alfred_rates(group)
        rows.append({"variant": variant, "task_type": t, "sr": rates["sr"], "gc": rates["gc"],
                     "episodes": rates["episodes"]})
    return rows
