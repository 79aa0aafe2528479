"""docs/results.md is generated from the kept bench outputs, and every table names its planner, task set, N, commit."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_bench_targets import bench


def _planner_out(commit: str | None = "abc1234") -> dict:
    ep = lambda task, ok, sc: {"task_id": task, "task_type": "pick_and_place_simple", "split": "valid_unseen",  # noqa: E731
                               "success": ok, "gc": 1.0 if ok else 0.0, "gc_met": int(ok), "gc_total": 1,
                               "expert_len": 3, "plw": {"sr": float(ok), "gc": float(ok)}, "steps": [{"chosen_by": "llm"}] * 3,
                               "metrics": {"scaffold": sc}}
    q = {"episodes": 2, "sr": 0.5, "gc": 0.5, "successes": 1, "scaffold": "none", "llm_decided": 1.0, "timed": 2,
         "seconds_per_subgoal": 5.0, "calls_per_subgoal": 3.0, "stop_reasons": {"success": 1, "stop": 1}}
    out = {"split": "valid_unseen", "task_set": "heldout", "per_type": 1, "tasks": 2, "seed": 0, "models": {},
           "gt_examples": 14, "hindsight_examples": 6, "variants": {"no_hindsight": q, "hindsight": q},
           "paired": [], "floors": {},
           "episodes": {"no_hindsight": [ep("t1", True, "none"), ep("t2", False, "none")],
                        "hindsight": [ep("t1", True, "none"), ep("t2", False, "none")]}}
    return {**out, "commit": commit} if commit else out


def test_the_committed_page_is_what_the_kept_outputs_give() -> None:
    m = bench("results")
    page = Path(m.PAGE)
    assert page.read_text() == m.page(m.load_kept()), "docs/results.md is stale: run benchmarks/results.py write"


def test_keep_trims_pairs_and_needs_a_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = bench("results")
    monkeypatch.setattr(m, "KEPT", tmp_path / "kept")
    src = tmp_path / "out.json"
    src.write_text(json.dumps(_planner_out(commit=None)))
    with pytest.raises(SystemExit, match="--commit"):
        m.keep(src, None, "")
    dest = m.keep(src, "abc1234", "a note")
    kept = json.loads(dest.read_text())
    assert kept["commit"] == "abc1234" and "steps" not in kept["episodes"]["hindsight"][0]
    assert [p["names"] for p in kept["paired"]] == [["hindsight", "no_hindsight"]]  # from params evaluate.compare
    text = m.page(m.load_kept(tmp_path / "kept"))
    assert "commit `abc1234`" in text and "task set **heldout** (2 tasks" in text and "a note" in text
    assert "| paper (none) | hindsight | 2 | 1/2 (50%) |" in text and "McNemar exact p = 1.000" in text
