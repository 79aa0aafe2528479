"""benchmarks/read_games.py: how games end, counted from hand-made records (journal lines and plain records)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import read_games as m


def _rec(variant: str, game: str, cmds: list[str], won: bool, stop: str, **metrics) -> dict:
    steps = [{"subgoal": c, "ok": True, "reason": "", "chosen_by": "llm", "candidates": []} for c in cmds]
    return {"variant": variant, "task_id": game, "instruction": f"goal of {game}", "success": won, "gc": 1.0 if won
            else 0.5, "steps": steps, "metrics": {"stop_reason": stop, **metrics}}


def test_counts_how_games_end(tmp_path: Path) -> None:
    loop = ["go to desk 1", "examine desk 2"] * 6  # 2 distinct in the last 10
    cycle = ["a", "b", "c", "d"] * 3  # 4 distinct
    wander = [f"go to place {i}" for i in range(12)]
    # a thought in the last 10 steps is no command: the loop is still 2 distinct commands
    react = [_rec("react", "g1", ["Think: plan", *loop[:8], "Think: again", *loop[8:]], False, "max_actions",
                  react_constrained=3),
             _rec("react", "g2", cycle, False, "max_actions"),
             _rec("react", "g3", ["Think: x", "take apple"], True, "success", react_constrained=1)]
    journal = tmp_path / "evaluate-react-abc.jsonl"
    stale = {"item": "g2", "reason": None, "record": _rec("react", "g2", wander, True, "success")}
    journal.write_text("".join(json.dumps(x) + "\n" for x in
                               [stale, *({"item": r["task_id"], "reason": None, "record": r} for r in react)]))
    plain = tmp_path / "paper.jsonl"
    paper = [_rec("paper", "g1", ["a", "Stop"], False, "stop", adapter_acc_mean=1.0, llm_decided=2,
                  subgoals_executed=2),
             _rec("paper", "g2", wander, False, "max_subgoals", adapter_acc_mean=0.5, llm_decided=6,
                  subgoals_executed=12)]
    plain.write_text("".join(json.dumps(r) + "\n" for r in paper))
    by = m.load([journal, plain])
    s = m.summary(by["react"])
    assert s["games"] == 3 and s["successes"] == 1  # the journal's later line for g2 replaces the earlier one
    assert (s["loops"], s["cycles"], s["failures"]) == (1, 2, 2)
    assert s["reasked"] == {"commands": 4, "games": 2, "successes": 1}
    p = m.summary(by["paper"])
    assert p["early_stop"] == {"failures": 1, "median_subgoals": 2, "median_gc": 0.5}
    assert (p["loops"], p["cycles"]) == (0, 0)  # a 2-step game is too short to call, a tour is neither
    assert p["adapter"] == {"games": 2, "mean": 0.75, "all_right": 1}
    assert p["llm_decided"] == round(8 / 14, 3)
    table = "\n".join(m.report(by))
    assert "| react | 3 | 1 | max_actions 2, success 1 | 0 | 1 / 2 of 2 | - | - | 4, 2, 1 |" in table
    steps = m.game_steps(by, "goal of g1", 5)
    assert steps[0].startswith("## paper: g1") and any("examine desk 2" in line for line in steps)


def test_a_line_that_is_no_record_names_its_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"variant": "react"}\n')
    with pytest.raises(SystemExit, match=r"x.jsonl:1: expected a rollout record"):
        m.load([bad])
