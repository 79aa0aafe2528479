"""Paired comparison of two planner variants on the tasks both ran: SR and GC of each, the paired difference with a
95% bootstrap interval (resampling tasks), the 2x2 table of outcomes and McNemar's exact p; overall, per split and
per task type.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from pools.analysis.metrics import alfred_rates, decided, group_by
from pools.analysis.stats import bootstrap_ci, mcnemar_exact, ratio

Row = Mapping[str, Any]


class CompareError(ValueError):
    """The two sets of episodes cannot be paired (the message says why)."""


def by_task(rollouts: Sequence[Row], name: str) -> dict[str, Row]:
    """Episodes keyed by task id; a task evaluated twice cannot be paired unambiguously."""
    out: dict[str, Row] = {}
    for r in rollouts:
        if r["task_id"] in out:
            raise CompareError(f"{name}: task {r['task_id']} was evaluated more than once; cannot pair episodes")
        out[r["task_id"]] = r
    return out


def paired(pairs: Sequence[tuple[Row, Row]], samples: int, seed: int) -> dict[str, Any]:
    """The paired statistics of one group of (A episode, B episode) on the same tasks."""
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    ra, rb = alfred_rates(a), alfred_rates(b)
    sa = [1.0 if r["success"] else 0.0 for r in a]
    sb = [1.0 if r["success"] else 0.0 for r in b]
    cols = [sa, sb, [r["gc_met"] for r in a], [r["gc_total"] for r in a],
            [r["gc_met"] for r in b], [r["gc_total"] for r in b]]
    table = {
        "both": sum(1 for x, y in zip(sa, sb) if x and y),
        "only_a": sum(1 for x, y in zip(sa, sb) if x and not y),
        "only_b": sum(1 for x, y in zip(sa, sb) if y and not x),
        "neither": sum(1 for x, y in zip(sa, sb) if not x and not y),
    }

    def sr_diff(s: list[np.ndarray]) -> np.ndarray:
        return s[0].mean(axis=1) - s[1].mean(axis=1)

    def gc_diff(s: list[np.ndarray]) -> np.ndarray:
        return ratio(s[2], s[3]) - ratio(s[4], s[5])

    return {
        "tasks": len(pairs),
        "a": {k: ra[k] for k in ("sr", "gc", "plw_sr", "plw_gc")},
        "b": {k: rb[k] for k in ("sr", "gc", "plw_sr", "plw_gc")},
        "sr_diff": round(ra["sr"] - rb["sr"], 4),
        "sr_diff_ci": bootstrap_ci(cols, sr_diff, samples, seed),
        "gc_diff": round(ra["gc"] - rb["gc"], 4),
        "gc_diff_ci": bootstrap_ci(cols, gc_diff, samples, seed),
        "table": table,
        "mcnemar_p": mcnemar_exact(table["only_a"], table["only_b"]),
    }


def compare(name_a: str, rollouts_a: Sequence[Row], name_b: str, rollouts_b: Sequence[Row], *,
            samples: int = 10000, seed: int = 0) -> dict[str, Any]:
    """Compare A with B on the tasks both ran (differences are A - B); see the module docstring."""
    if name_a == name_b:
        raise CompareError(f"compare: A and B are both '{name_a}'; name two different variants or revisions")
    ta, tb = by_task(rollouts_a, name_a), by_task(rollouts_b, name_b)
    common = sorted(set(ta) & set(tb))
    if not common:
        raise CompareError(f"{name_a} ({len(ta)} episodes) and {name_b} ({len(tb)} episodes) share no task: "
                           "were they evaluated on the same splits and seed?")
    pairs = [(ta[t], tb[t]) for t in common]
    return {
        "a": name_a,
        "b": name_b,
        "tasks": len(common),
        # how much the LLM decided on those tasks (share of executed sub-goals chosen among two or more)
        "llm_decided": {"a": decided(p[0] for p in pairs)["llm_share"], "b": decided(p[1] for p in pairs)["llm_share"]},
        "only_in_a": len(set(ta) - set(tb)),
        "only_in_b": len(set(tb) - set(ta)),
        "bootstrap": {"samples": samples, "seed": seed, "level": 0.95, "resampled": "tasks"},
        "all": paired(pairs, samples, seed),
        "by_split": {s: paired(g, samples, seed) for s, g in group_by(pairs, lambda p: p[0]["split"]).items()},
        "by_type": {t: paired(g, samples, seed) for t, g in group_by(pairs, lambda p: p[0]["task_type"]).items()},
    }


def to_text(result: Mapping[str, Any]) -> str:
    """A plain-text table of a comparison (what `hindsight compare` prints)."""
    a, b = result["a"], result["b"]
    lines = [f"{a} (A) vs {b} (B): {result['tasks']} tasks both ran"
             + (f"; {result['only_in_a']} only in A, {result['only_in_b']} only in B"
                if result["only_in_a"] or result["only_in_b"] else ""),
             f"differences are A - B; 95% bootstrap intervals over tasks ({result['bootstrap']['samples']} "
             f"resamples, seed {result['bootstrap']['seed']}); p: McNemar's exact test on SR",
             "LLM-decided share of executed sub-goals (chosen among two or more offered): "
             + ", ".join(f"{k.upper()} {'-' if v is None else f'{100 * v:.0f}%'}"
                         for k, v in (result.get("llm_decided") or {}).items()),
             ""]
    head = (f"{'group':<34} {'n':>3}  {'SR A':>6} {'SR B':>6} {'dSR [95% CI]':>24}  {'GC A':>6} {'GC B':>6} "
            f"{'dGC [95% CI]':>24}  {'both/A/B/none':>13} {'p':>6}")
    lines += [head, "-" * len(head)]

    def pct(x: float) -> str:
        return f"{100 * x:5.1f}%"

    def diff(d: float, ci: Sequence[float]) -> str:
        return f"{100 * d:+6.1f} [{100 * ci[0]:+6.1f}, {100 * ci[1]:+6.1f}]"

    def row(label: str, g: Mapping[str, Any]) -> str:
        t = g["table"]
        cells = f"{t['both']}/{t['only_a']}/{t['only_b']}/{t['neither']}"
        return (f"{label:<34} {g['tasks']:>3}  {pct(g['a']['sr']):>6} {pct(g['b']['sr']):>6} "
                f"{diff(g['sr_diff'], g['sr_diff_ci']):>24}  {pct(g['a']['gc']):>6} {pct(g['b']['gc']):>6} "
                f"{diff(g['gc_diff'], g['gc_diff_ci']):>24}  {cells:>13} {g['mcnemar_p']:>6.3f}")

    lines.append(row("all", result["all"]))
    for split, g in result["by_split"].items():
        lines.append(row(f"split {split}", g))
    for task_type, g in result["by_type"].items():
        lines.append(row(f"type {task_type}", g))
    return "\n".join(lines)
