"""Paired comparisons: the 2x2 table, McNemar's exact p, seeded bootstrap intervals over tasks, per split and type."""
from __future__ import annotations

import pytest

from pools.analysis.compare import CompareError, compare, to_text
from pools.schemas import violations
from pools.analysis.stats import bootstrap_ci, mcnemar_exact
from tests.pools.analysis.test_metrics import episode


def outcomes(results: list[tuple[bool, int]], split_at: int = 4) -> list[dict]:
    """Episodes on tasks t0..tN: (success, goal conditions met of 2); the first `split_at` are valid_seen."""
    return [episode(f"t{i}", ok, met, 2, expert_len=4, agent_len=4,
                    split="valid_seen" if i < split_at else "valid_unseen",
                    task_type="pick_and_place_simple" if i % 2 == 0 else "pick_heat_then_place_in_recep")
            for i, (ok, met) in enumerate(results)]


# Eight tasks: A succeeds on 6, B on 2; both on t0, t1; only A on t2..t5; neither on t6, t7.
A = outcomes([(True, 2), (True, 2), (True, 2), (True, 2), (True, 2), (True, 2), (False, 1), (False, 0)])
B = outcomes([(True, 2), (True, 2), (False, 1), (False, 1), (False, 0), (False, 0), (False, 0), (False, 1)])


def test_mcnemar_exact_known_values() -> None:
    assert mcnemar_exact(5, 0) == 0.0625          # 2 * (1/2)^5
    assert mcnemar_exact(3, 1) == 0.625           # 2 * (1 + 4) / 16
    assert mcnemar_exact(1, 3) == 0.625           # symmetric
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 10) == 1.0


def test_paired_overall() -> None:
    r = compare("hindsight", A, "no_hindsight", B, samples=2000, seed=0)
    assert not violations(r, "compare")
    o = r["all"]
    assert r["tasks"] == o["tasks"] == 8 and r["only_in_a"] == r["only_in_b"] == 0
    assert o["table"] == {"both": 2, "only_a": 4, "only_b": 0, "neither": 2}
    assert o["mcnemar_p"] == 0.125                # 2 * (1/2)^4
    assert (o["a"]["sr"], o["b"]["sr"], o["sr_diff"]) == (0.75, 0.25, 0.5)
    assert (o["a"]["gc"], o["b"]["gc"]) == (0.8125, 0.4375)   # sum met / sum total: 13/16 and 7/16
    lo, hi = o["sr_diff_ci"]
    assert 0 < lo <= 0.5 <= hi <= 1              # four discordant pairs, all for A: the interval excludes 0
    assert o["gc_diff_ci"][0] <= o["gc_diff"] <= o["gc_diff_ci"][1]
    assert compare("hindsight", A, "no_hindsight", B, samples=2000, seed=0) == r   # seeded: reproducible
    text = to_text(r)
    assert "hindsight (A) vs no_hindsight (B): 8 tasks" in text and "2/4/0/2" in text and "split valid_unseen" in text


def test_paired_per_split_and_type() -> None:
    r = compare("a", A, "b", B, samples=500, seed=1)
    seen, unseen = r["by_split"]["valid_seen"], r["by_split"]["valid_unseen"]
    assert seen["table"] == {"both": 2, "only_a": 2, "only_b": 0, "neither": 0} and seen["tasks"] == 4
    assert unseen["table"] == {"both": 0, "only_a": 2, "only_b": 0, "neither": 2}
    assert set(r["by_type"]) == {"pick_and_place_simple", "pick_heat_then_place_in_recep"}
    assert sum(g["tasks"] for g in r["by_type"].values()) == 8


def test_only_tasks_both_ran_are_paired() -> None:
    r = compare("a", A[:6], "b", B[2:], samples=200, seed=0)
    assert (r["tasks"], r["only_in_a"], r["only_in_b"]) == (4, 2, 2)
    assert r["all"]["table"] == {"both": 0, "only_a": 4, "only_b": 0, "neither": 0}
    with pytest.raises(CompareError, match="share no task"):
        compare("a", A[:2], "b", B[4:], samples=10, seed=0)
    with pytest.raises(CompareError, match="more than once"):
        compare("a", A + A[:1], "b", B, samples=10, seed=0)


def test_bootstrap_interval_is_seeded_and_degenerate_without_variation() -> None:
    col = [0.13, 0.52, 0.91, 0.34, 0.78, 0.05, 0.66, 0.27, 0.49, 0.88]
    mean = lambda s: s[0].mean(axis=1)  # noqa: E731
    assert bootstrap_ci([col], mean, 300, 3) == bootstrap_ci([col], mean, 300, 3)
    assert bootstrap_ci([col], mean, 300, 3) != bootstrap_ci([col], mean, 300, 4)
    assert bootstrap_ci([[1.0] * 5], mean, 100, 0) == [1.0, 1.0]
    lo, hi = bootstrap_ci([col], mean, 4000, 0)
    assert 0.0 <= lo < sum(col) / len(col) < hi <= 1.0 and hi - lo < 0.5
