"""Evaluation metrics from rollout records: SR, GC, PLW SR/GC per split and task type, adapter accuracy, LLM cost."""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return round(sum(vals) / len(vals), 4) if vals else 0.0


def rates(rollouts: list[dict[str, Any]]) -> dict[str, Any]:
    """SR, GC and their path-length-weighted forms over a group of episodes, plus cost per sub-goal."""
    subgoals = sum(r["metrics"].get("subgoals", len(r["steps"])) for r in rollouts)
    calls = sum(r["llm"]["calls"] for r in rollouts)
    tokens = sum(r["llm"]["prompt_tokens"] + r["llm"]["completion_tokens"] for r in rollouts)
    seconds = sum(r["llm"]["seconds"] for r in rollouts)
    # GC as ALFRED reports it: goal conditions met over those in total, summed over episodes when counts exist.
    met = [r["metrics"].get("gc_met") for r in rollouts]
    total = [r["metrics"].get("gc_total") for r in rollouts]
    if rollouts and None not in met and None not in total and sum(total):
        gc = round(sum(met) / sum(total), 4)
    else:
        gc = _mean(r["gc"] for r in rollouts)
    return {
        "episodes": len(rollouts),
        "sr": _mean(float(r["success"]) for r in rollouts),
        "gc": gc,
        "plw_sr": _mean(r["plw"]["sr"] for r in rollouts),
        "plw_gc": _mean(r["plw"]["gc"] for r in rollouts),
        "subgoals_per_episode": round(subgoals / len(rollouts), 2) if rollouts else 0.0,
        "failed_subgoals_per_episode": _mean(r["metrics"].get("failed_subgoals", 0) for r in rollouts),
        "llm_calls_per_subgoal": round(calls / subgoals, 3) if subgoals else 0.0,
        "llm_tokens_per_subgoal": round(tokens / subgoals, 1) if subgoals else 0.0,
        "llm_seconds_per_subgoal": round(seconds / subgoals, 3) if subgoals else 0.0,
    }


def adapter_accuracy(rollouts: list[dict[str, Any]]) -> dict[str, float]:
    """Mean per-argument accuracy of the adapter's predictions (episodes with an adapter only)."""
    per_arg: dict[str, list[float]] = defaultdict(list)
    for r in rollouts:
        for key, value in (r["metrics"].get("adapter_acc") or {}).items():
            per_arg[key].append(float(value))
    return {k: _mean(v) for k, v in sorted(per_arg.items())}


def summarize(variant: str, rollouts: list[dict[str, Any]], split_of: dict[str, str]) -> dict[str, Any]:
    """The metrics file of one variant: overall, per split, per split and task type."""
    by_split: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rollouts:
        by_split[split_of.get(r["task_id"], "unknown")].append(r)
    out: dict[str, Any] = {"variant": variant, "all": rates(rollouts), "adapter_accuracy": adapter_accuracy(rollouts)}
    for split, group in sorted(by_split.items()):
        types: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in group:
            types[r["task_type"]].append(r)
        out[split] = {**rates(group), "by_type": {t: rates(g) for t, g in sorted(types.items())}}
    return out


def sr_by_type_rows(variant: str, rollouts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plot rows: SR per task type for one variant (all evaluated splits together)."""
    types: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rollouts:
        types[r["task_type"]].append(r)
    return [{"variant": variant, "task_type": t, "sr": rates(g)["sr"], "gc": rates(g)["gc"]}
            for t, g in sorted(types.items())]
