"""A pool's quality without the LLM (planner/probe/quality.py): each executed step labeled by how it moved the
expert's cost-to-go, checked against d itself on replayed prefixes."""
from __future__ import annotations

from types import SimpleNamespace as Rec  # the fields of a sample pool_quality reads

from household.expert.cost_to_go import cost_to_go
from household.expert.expert import solve
from planner.config import PlannerConfig
from planner.probe.quality import LABELS, label, pool_quality, step_labels
from planner.probe.states import replay_state
from tests.planner.helpers import first_task

CFG = PlannerConfig.from_params(scaffold="none")
SEED = CFG.world.seed


def test_a_label_is_how_the_step_moved_d():
    assert [label(5, 4), label(5, 5), label(5, 6), label(5, None), label(None, None), label(None, 3)] == \
        ["progress", "neutral", "regress", "regress", "neutral", "progress"]


def test_labels_agree_with_d_before_and_after_each_step():
    task = first_task("pick_and_place_simple")
    plan = solve(task, SEED).plan
    # the expert's plan, then a detour: a walk back where it was, and a step the world refuses
    steps = [*plan[:2], "Navigation Bed", "PutObject Apple Bed", *plan[2:]]
    got = step_labels(task, steps, CFG, SEED)
    assert len(got) == len(steps) and set(got) <= set(LABELS)
    for i, (sg, lab) in enumerate(zip(steps, got)):
        before, _ = replay_state(task, steps[:i], CFG, SEED)
        after, _ = replay_state(task, steps[:i + 1], CFG, SEED)
        d0, d1 = cost_to_go(before), cost_to_go(after)
        refused = not before.fork(bounded=False).step(sg).ok
        assert lab == ("refused" if refused else label(d0, d1)), (i, sg, lab, d0, d1)
    assert got[:2] == ["progress", "progress"]
    assert "refused" in got or "regress" in got or "neutral" in got  # the detour shows


def test_the_pool_figures_count_labels_by_kind_and_type():
    rows = [(Rec(id="a", kind="gt", task_type="x"), ["progress"] * 3),
            (Rec(id="b", kind="hindsight", task_type="x"), ["progress", "neutral", "regress", "refused"]),
            (Rec(id="c", kind="hindsight", task_type="y"), [])]
    q = pool_quality(rows)
    assert q["gt"]["progress"] == 1.0 and q["gt"]["steps"]["progress"] == 3
    h = q["hindsight"]
    assert h["samples"] == 2 and h["steps"] == {"progress": 1, "neutral": 1, "regress": 1, "refused": 1}
    assert h["progress"] == 0.25 and h["by_sample"] == {"b": 0.25, "c": 0.0}
    assert h["by_type"]["y"] == {"samples": 1, "steps": dict.fromkeys(LABELS, 0), "progress": 0.0}
