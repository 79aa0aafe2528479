"""The hindsight pool's manifest counts recovery material against clean successes, and which planner practised."""
from __future__ import annotations

from flows.stages.hindsight_pool import material, practice


def test_recovery_material_and_clean_successes_are_told_apart() -> None:
    rollouts = [{"id": "ro-ok", "success": True, "metrics": {"scaffold": "none"}},
                {"id": "ro-bad", "success": False, "metrics": {"scaffold": "none"}}]
    samples = [
        {"kind": "hindsight", "source": "ro-ok", "reasons": []},                       # succeeded, nothing failed
        {"kind": "hindsight", "source": "ro-ok", "reasons": ["", "Mug not found", ""]},  # a failed step on the way
        {"kind": "hindsight", "source": "ro-bad", "reasons": []},                      # completed a failed run
        {"kind": "critic", "source": "ro-bad"},
    ]
    assert material(samples, rollouts) == {"recovery": 2, "clean": 1}
    assert practice(rollouts) == {"rollouts": 2, "by_planner": {"none": {"rollouts": 2, "succeeded": 1}}}
