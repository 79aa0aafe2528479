"""The probe's figures over pick records: the optimal-pick rate and the mean regret with 95% intervals that resample
tasks (the states of one task are correlated), by state kind and task type, each beside random's optimal rate worked
out exactly from the ties (`chance`); and paired comparisons of two configurations on the states both answered: a
task-level sign-flip permutation test on optimal picks (the p-value), McNemar's exact test kept as a state-level
figure (it takes states as independent, so it is too small when they cluster), task-resampled intervals of the
differences. A group of fewer than MIN_TASKS tasks shows its n and no interval.
Pure arithmetic on records: no world, no LLM."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from pools.analysis.metrics import group_by
from pools.analysis.stats import bootstrap_ci, mcnemar_exact, ratio, sign_flip_p

MIN_TASKS = 3  # resampling one or two tasks gives a "95%" interval of zero width: below this, n and no interval

Row = Mapping[str, Any]


def _by_task(rows: Sequence[Row], value: Any) -> tuple[list[float], list[float]]:
    """Per task: the sum of `value(row)` and the number of rows (the columns a task-resampling bootstrap draws)."""
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    for r in rows:
        sums[r["task_id"]] = sums.get(r["task_id"], 0.0) + float(value(r))
        counts[r["task_id"]] = counts.get(r["task_id"], 0.0) + 1.0
    keys = sorted(sums)
    return [sums[k] for k in keys], [counts[k] for k in keys]


def rates(rows: Sequence[Row], samples: int, seed: int) -> dict[str, Any]:
    """States, tasks, optimal-pick rate, mean regret and mean progress, the first two with 95% task-resampled
    intervals (None below MIN_TASKS tasks), and `chance`: random's optimal rate on the same states, exact (the mean
    share of optimal options; None when a row does not carry it)."""
    n = len(rows)
    if not n:
        return {"states": 0, "tasks": 0, "optimal": 0.0, "optimal_ci": None, "regret": 0.0, "regret_ci": None,
                "progress": 0.0, "chance": None}
    opt_sum, counts = _by_task(rows, lambda r: r["optimal"])
    reg_sum, _ = _by_task(rows, lambda r: r["regret"])
    stat = lambda s: ratio(s[0], s[1])  # noqa: E731 - sum over the drawn tasks / their states
    ci = len(counts) >= MIN_TASKS
    return {"states": n, "tasks": len(counts),
            "optimal": round(sum(r["optimal"] for r in rows) / n, 4),
            "optimal_ci": bootstrap_ci([opt_sum, counts], stat, samples, seed) if ci else None,
            "regret": round(sum(r["regret"] for r in rows) / n, 4),
            "regret_ci": bootstrap_ci([reg_sum, counts], stat, samples, seed) if ci else None,
            "progress": round(sum(r["progress"] for r in rows) / n, 4),
            "chance": round(sum(r["chance"] for r in rows) / n, 4) if all("chance" in r for r in rows) else None}


def summary(config: str, rows: Sequence[Row], samples: int, seed: int) -> dict[str, Any]:
    """metrics/probe/<config>.json: overall, by state kind and by task type."""
    return {"config": config, **rates(rows, samples, seed),
            "by_kind": {k: rates(g, samples, seed) for k, g in group_by(rows, lambda r: r["kind"]).items()},
            "by_type": {t: rates(g, samples, seed) for t, g in group_by(rows, lambda r: r["task_type"]).items()}}


def summaries(picks: Sequence[Row], samples: int, seed: int) -> dict[str, dict[str, Any]]:
    """Each configuration's summary over its picks, by configuration name."""
    return {c: summary(c, [p for p in picks if p["config"] == c], samples, seed)
            for c in sorted({p["config"] for p in picks})}


def paired(a: str, rows_a: Iterable[Row], b: str, rows_b: Iterable[Row], samples: int, seed: int) -> dict[str, Any]:
    """A vs B on the states both answered: the 2x2 table of optimal picks, the task-level sign-flip p on the
    difference of optimal picks (`p`), McNemar's exact p over states (`mcnemar_p`, state-level), and the
    differences A - B of the optimal rate and the mean regret with 95% intervals resampling tasks (None below
    MIN_TASKS tasks)."""
    pa = {r["state_id"]: r for r in rows_a}
    pb = {r["state_id"]: r for r in rows_b}
    common = sorted(set(pa) & set(pb))
    pairs = [(pa[s], pb[s]) for s in common]
    table = {"both": 0, "only_a": 0, "only_b": 0, "neither": 0}
    for x, y in pairs:
        table[{(True, True): "both", (True, False): "only_a", (False, True): "only_b",
               (False, False): "neither"}[(bool(x["optimal"]), bool(y["optimal"]))]] += 1
    rows = [{"task_id": x["task_id"], "opt": int(x["optimal"]) - int(y["optimal"]), "reg": x["regret"] - y["regret"]}
            for x, y in pairs]
    opt_sum, counts = _by_task(rows, lambda r: r["opt"])
    reg_sum, _ = _by_task(rows, lambda r: r["reg"])
    n = len(rows)
    stat = lambda s: ratio(s[0], s[1])  # noqa: E731
    ci = len(counts) >= MIN_TASKS
    return {"a": a, "b": b, "states": n, "tasks": len(counts), "table": table,
            "p": sign_flip_p(opt_sum, samples, seed),
            "mcnemar_p": mcnemar_exact(table["only_a"], table["only_b"]),
            "optimal_diff": round(float(np.sum(opt_sum)) / n, 4) if n else 0.0,
            "optimal_diff_ci": bootstrap_ci([opt_sum, counts], stat, samples, seed) if ci else None,
            "regret_diff": round(float(np.sum(reg_sum)) / n, 4) if n else 0.0,
            "regret_diff_ci": bootstrap_ci([reg_sum, counts], stat, samples, seed) if ci else None}


def headline(summaries: Mapping[str, Mapping[str, Any]], pairs: Sequence[Mapping[str, Any]],
             dropped: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """metrics/probe.json, the declared DVC metric (`dvc metrics show`, `dvc exp show`): each configuration's
    optimal-pick rate, random's exact rate on the states (`chance`), per pair A - B of the optimal rate with the
    task-level p, and the states dropped by kind and reason (planner/probe/states.py). Few short keys: the table
    stays readable; the intervals and breakdowns are in metrics/probe/."""
    out: dict[str, Any] = {c: s["optimal"] for c, s in summaries.items()}
    widest = max(summaries.values(), key=lambda s: s["states"], default=None)  # the configuration on every state
    out["chance"] = widest["chance"] if widest else None
    for p in pairs:
        out[f"{_short(p['a'])}-{_short(p['b'])}"] = {"diff": p["optimal_diff"], "p": p["p"]}
    out["dropped"] = {kind: dict(reasons) for kind, reasons in dropped.items()}
    return out


def _short(config: str) -> str:
    return config.removeprefix("actor_")


def interval(ci: Sequence[float] | None, scale: float = 1.0, fmt: str = ".1f") -> str:
    """' [lo, hi]' of an interval (scaled), or ' (n only)' where the group had too few tasks for one."""
    return " (n only)" if ci is None else f" [{scale * ci[0]:{fmt}}, {scale * ci[1]:{fmt}}]"


def p_text(pair: Mapping[str, Any]) -> str:
    """A pair's test as the pages print it: the task-level sign-flip p; a result written before it had only
    McNemar's, printed as what it is, state-level."""
    if pair.get("p") is not None:
        return f"task-level p {pair['p']:.2f}"
    return f"state-level McNemar p {pair['mcnemar_p']:.2f}"


def diff_text(pair: Mapping[str, Any]) -> str:
    """A - B of the optimal rate in points, its interval (or n only) and its p."""
    return (f"{100 * pair['optimal_diff']:+.1f}{interval(pair.get('optimal_diff_ci'), 100, '+.0f')}, "
            f"{p_text(pair)}")


def paired_text(result: Mapping[str, Any]) -> str:
    """A paired probe comparison as `hindsight compare --probe` prints it."""
    t = result["table"]
    return (f"{result['a']} (A) vs {result['b']} (B): {result['states']} probe states both answered, "
            f"{result['tasks']} tasks; intervals resample tasks\n"
            f"optimal picks A - B: {100 * result['optimal_diff']:+.1f} points"
            f"{interval(result['optimal_diff_ci'], 100, '+.1f')}; regret A - B: {result['regret_diff']:+.2f}"
            f"{interval(result['regret_diff_ci'], fmt='+.2f')}\n"
            f"task-level sign-flip p = {result['p']:.3f}; state-level McNemar p = {result['mcnemar_p']:.3f} "
            f"(takes states as independent)\n"
            f"both optimal {t['both']}, only A {t['only_a']}, only B {t['only_b']}, neither {t['neither']}")


def config_text(figures: Mapping[str, Any]) -> str:
    """One configuration's probe figures on one line (pools diff, the report's notes)."""
    chance = figures.get("chance")
    return (f"{figures['config']}: {figures['states']} states ({figures['tasks']} tasks), optimal "
            f"{100 * figures['optimal']:.1f}%{interval(figures['optimal_ci'], 100)}"
            f"{'' if chance is None else f' (random {100 * chance:.1f}%)'}, regret {figures['regret']:.2f}"
            f"{interval(figures['regret_ci'], fmt='.2f')}")
