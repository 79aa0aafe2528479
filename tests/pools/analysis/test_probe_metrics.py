"""The probe's figures (pools/analysis/probe_metrics.py) on constructed picks whose answer is known: intervals that resample
tasks, no interval below three tasks, random's exact rate, and a paired p-value that respects tasks (clustered
data whose state-level McNemar test is significant and whose task-level test is not)."""
from __future__ import annotations

import numpy as np

from pools.analysis.probe_metrics import MIN_TASKS, headline, paired, paired_text, rates, summary
from pools.analysis.stats import bootstrap_ci, mcnemar_exact, sign_flip_p

SAMPLES, SEED = 4000, 0


def picks(config: str, per_task: dict[str, list[bool]], kind: str = "recovery", chance: float = 0.25) -> list[dict]:
    """Pick rows: per task, one state per entry (optimal or not); regret 0 when optimal, else 2."""
    return [{"state_id": f"ps-{task}-{i}", "config": config, "task_id": task, "task_type": "pick_and_place_simple",
             "kind": kind, "optimal": ok, "regret": 0 if ok else 2, "progress": 1 if ok else -1, "chance": chance}
            for task, oks in per_task.items() for i, ok in enumerate(oks)]


def test_sign_flip_p_is_exact_over_tasks() -> None:
    assert sign_flip_p([5, 5, 5, 5], SAMPLES, SEED) == 0.125  # 2 of the 16 sign patterns reach |20|
    assert sign_flip_p([5] * 8, SAMPLES, SEED) == round(2 / 256, 4)
    assert sign_flip_p([7], SAMPLES, SEED) == 1.0  # one task can show nothing
    assert sign_flip_p([3, -1, 2], SAMPLES, SEED) == 0.5  # |4| is reached by +++ +-+ and their mirrors
    assert sign_flip_p([0, 0, 0], SAMPLES, SEED) == 1.0
    # More tasks than the exact enumeration takes: seeded Monte Carlo, near the exact value 2 / 2^20.
    assert sign_flip_p([1] * 20, SAMPLES, SEED) == round(1 / (SAMPLES + 1), 4)
    assert sign_flip_p([1] * 20, SAMPLES, SEED) == sign_flip_p([1] * 20, SAMPLES, SEED)


def test_clustered_picks_are_significant_per_state_and_not_per_task() -> None:
    # Two tasks where A is optimal at 30 states and B at none, four where B wins 2 states: McNemar, taking the 68
    # discordant states as independent, finds A better; the six tasks, flipped, do not (p 0.5).
    a = picks("a", {"t1": [True] * 30, "t2": [True] * 30, **{f"t{i}": [False] * 2 for i in range(3, 7)}})
    b = picks("b", {"t1": [False] * 30, "t2": [False] * 30, **{f"t{i}": [True] * 2 for i in range(3, 7)}})
    p = paired("a", a, "b", b, SAMPLES, SEED)
    assert p["table"] == {"both": 0, "only_a": 60, "only_b": 8, "neither": 0}
    assert p["mcnemar_p"] == mcnemar_exact(60, 8) < 0.001
    assert p["p"] == 0.5
    assert p["tasks"] == 6 and p["optimal_diff"] == round(52 / 68, 4)
    lo, hi = p["optimal_diff_ci"]
    assert lo < 0 < hi  # the task-resampled interval includes no difference too
    text = paired_text(p)
    assert "task-level sign-flip p = 0.500" in text and "state-level McNemar p = 0.000" in text
    # The same differences spread over eight tasks that all agree: the task-level test finds it too.
    a8 = picks("a", {f"t{i}": [True] * 5 for i in range(8)})
    b8 = picks("b", {f"t{i}": [False] * 5 for i in range(8)})
    assert paired("a", a8, "b", b8, SAMPLES, SEED)["p"] == round(2 / 256, 4)


def test_intervals_resample_tasks() -> None:
    # Every task at the same rate: whatever tasks are drawn, the rate is 0.5.
    same = picks("x", {f"t{i}": [True, False] * 3 for i in range(5)})
    got = rates(same, SAMPLES, SEED)
    assert got["optimal"] == 0.5 and got["optimal_ci"] == [0.5, 0.5] and got["regret_ci"] == [1.0, 1.0]
    # Tasks that are all or nothing: the states of a task move together, so the interval is about as wide as five
    # draws of a fair coin, far wider than 40 independent states would give.
    clustered = picks("x", {f"t{i}": [i % 2 == 0] * 8 for i in range(5)})
    lo, hi = rates(clustered, SAMPLES, SEED)["optimal_ci"]
    flat = np.array([r["optimal"] for r in clustered], dtype=float)
    slo, shi = bootstrap_ci([flat], lambda s: s[0].mean(axis=1), SAMPLES, SEED)
    assert lo <= 0.2 and hi >= 0.8 and (hi - lo) > 1.8 * (shi - slo), (lo, hi, slo, shi)


def test_groups_of_fewer_than_three_tasks_show_their_n_and_no_interval() -> None:
    assert MIN_TASKS == 3
    rows = picks("x", {"t1": [True, False, True], "t2": [False] * 4}) + \
        picks("x", {f"u{i}": [True, False] for i in range(3)}, kind="on_policy")
    s = summary("x", rows, SAMPLES, SEED)
    one = s["by_kind"]["recovery"]
    assert one["tasks"] == 2 and one["states"] == 7 and one["optimal_ci"] is None and one["regret_ci"] is None
    assert s["by_kind"]["on_policy"]["optimal_ci"] is not None and s["optimal_ci"] is not None
    p = paired("x", rows[:7], "y", [dict(r, optimal=not r["optimal"]) for r in rows[:7]], SAMPLES, SEED)
    assert p["tasks"] == 2 and p["optimal_diff_ci"] is None and p["regret_diff_ci"] is None
    assert "(n only)" in paired_text(p)


def test_random_exact_rate_and_the_headline() -> None:
    rows = picks("random", {"t1": [True], "t2": [False]}, chance=0.25) + \
        picks("random", {"t3": [False]}, chance=0.1)
    s = summary("random", rows, SAMPLES, SEED)
    assert s["chance"] == round((0.25 + 0.25 + 0.1) / 3, 4)
    assert rates([{k: v for k, v in r.items() if k != "chance"} for r in rows], SAMPLES, SEED)["chance"] is None
    a = picks("actor_hind", {f"t{i}": [True] * 2 for i in range(4)})
    b = picks("actor_gt", {f"t{i}": [False] * 2 for i in range(4)})
    pair = paired("actor_hind", a, "actor_gt", b, SAMPLES, SEED)
    dropped = {"recovery": {"ended": 0, "one_option": 1, "no_better": 2},
               "on_policy": {"ended": 1, "one_option": 0, "no_better": 0}}
    head = headline({"actor_hind": summary("actor_hind", a, SAMPLES, SEED), "random": s}, [pair], dropped)
    assert head["hind-gt"] == {"diff": 1.0, "p": 0.125} and head["dropped"] == dropped
    assert head["chance"] == 0.25  # the configuration on the most states
