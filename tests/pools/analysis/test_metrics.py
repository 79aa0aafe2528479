"""ALFRED's metrics over episodes, pinned on a hand-made set whose numbers are worked out by hand below."""
from __future__ import annotations

from typing import Any

import pytest

from pools.analysis.metrics import alfred_rates, cost, decided, details, headline, sr_by_type_rows
from pools.jsonl import as_record
from pools.schemas import violations
from pools.timing import Timed, by_id, speed, timing_row


def episode(task_id: str, success: bool, met: int, total: int, expert_len: int, agent_len: int, *,
            split: str = "valid_seen", task_type: str = "pick_and_place_simple", calls: int = 0,
            seconds: float = 0.0) -> dict[str, Any]:
    """A rollout record as run_episode writes it (plw per episode: w = min(1, expert/agent), as ALFRED); its
    measured `seconds` (half of them LLM waits) go to its timing line (SECONDS, then TIMINGS), not into it."""
    SECONDS[f"ro-{task_id}"] = seconds
    w = min(1.0, expert_len / agent_len)
    # Every other step chosen by the LLM among two or more, the others forced by a rule.
    steps = [{"subgoal": "Navigation Apple", "ok": i > 0, "reason": "" if i > 0 else "Apple not found",
              "observation": "", "pddl_pred": {}, "candidates": [], "repeat_fail": 0,
              "legal": 2 if i % 2 == 0 else 1, "chosen_by": "llm" if i % 2 == 0 else "rule"}
             for i in range(agent_len)]
    return {"id": f"ro-{task_id}", "task_id": task_id, "task_type": task_type, "instruction": "i", "split": split,
            "variant": "hindsight", "seed": 0, "leave_out": "", "success": success, "gc": met / total,
            "gc_met": met, "gc_total": total, "expert_len": expert_len,
            "plw": {"sr": w * success, "gc": w * met / total}, "steps": steps,
            "metrics": {"stop_reason": "success" if success else "max_subgoals"},
            "llm": {"calls": calls, "prompt_tokens": 10 * calls, "completion_tokens": calls,
                    "by_role": {"actor": calls}, "roles": {"actor": {"calls": calls}}}}


SECONDS: dict[str, float] = {}  # rollout id -> the measured wall seconds of its episode


# Four episodes. Per-episode GC means would give (1 + 1/4 + 2/3 + 0) / 4 = 0.4792; ALFRED sums conditions.
EPISODES = [
    episode("a", True, 2, 2, expert_len=4, agent_len=8, calls=16, seconds=8.0),    # w = 0.5
    episode("b", False, 1, 4, expert_len=6, agent_len=3, calls=6, seconds=3.0),    # w = 1
    episode("c", True, 3, 3, expert_len=10, agent_len=10, split="valid_unseen",    # w = 1
            task_type="pick_heat_then_place_in_recep", calls=10, seconds=5.0),
    episode("d", False, 0, 3, expert_len=5, agent_len=4, split="valid_unseen",     # w = 1
            task_type="pick_heat_then_place_in_recep", calls=0, seconds=0.0),
]
TIMINGS = by_id(timing_row(e["task_id"], Timed(as_record(e, "rollout"), SECONDS[e["id"]],
                                                {"seconds": SECONDS[e["id"]] / 2,
                                                 "by_role": {"actor": {"seconds": SECONDS[e["id"]] / 2}}}))
                for e in EPISODES)


def test_alfred_rates_on_hand_made_episodes() -> None:
    r = alfred_rates(EPISODES)
    assert r["episodes"] == 4 and r["sr"] == 0.5
    assert (r["gc_met"], r["gc_total"]) == (6, 12) and r["gc"] == 0.5           # 6 / 12, not 0.4792
    # PLW SR = (1*0.5*4 + 0 + 1*1*10 + 0) / (4+6+10+5) = 12 / 25
    assert r["plw_sr"] == 0.48
    # PLW GC = (1*0.5*4 + 0.25*1*6 + 1*1*10 + 0) / 25 = 13.5 / 25
    assert r["plw_gc"] == 0.54
    assert alfred_rates([]) == {"episodes": 0, "sr": 0.0, "gc": 0.0, "plw_sr": 0.0, "plw_gc": 0.0,
                                "gc_met": 0, "gc_total": 0}


def test_decided_counts_who_chose_each_executed_sub_goal() -> None:
    d = decided(EPISODES)
    assert (d["executed"], d["llm"], d["rule"], d["single"]) == (25, 13, 12, 0) and d["llm_share"] == 0.52
    # steps nothing was proposed for, and records made before `chosen_by`, are not executed choices
    none = {**EPISODES[0], "steps": [{**EPISODES[0]["steps"][0], "chosen_by": "none"}]}
    old = {**EPISODES[0], "steps": [{k: v for k, v in s.items() if k not in ("legal", "chosen_by")}
                                    for s in EPISODES[0]["steps"]]}
    assert decided([none, old]) == {"executed": 0, "llm": 0, "rule": 0, "single": 0, "expert": 0, "follow": 0,
                                    "llm_share": None, "follow_share": None}
    # the follower's own picks are counted apart from the LLM's
    followed = {**EPISODES[0], "steps": [{**s, "chosen_by": "follow"} for s in EPISODES[0]["steps"]]}
    d = decided([followed])
    assert d["follow"] == d["executed"] > 0 and d["llm"] == 0 and d["follow_share"] == 1.0


def test_headline_per_split_and_cost() -> None:
    h = headline(EPISODES, ["valid_seen", "valid_unseen"])
    assert h == {
        # seen: a, b. SR 1/2; GC 3/6; PLW SR (0.5*4)/10; PLW GC (0.5*4 + 0.25*6)/10; 22 calls, 11 sub-goals,
        # 4 + 2 of them chosen by the LLM
        "valid_seen": {"episodes": 2, "sr": 0.5, "gc": 0.5, "plw_sr": 0.2, "plw_gc": 0.35, "calls/subgoal": 2.0,
                       "llm_decided": round(6 / 11, 4)},
        # unseen: c, d. SR 1/2; GC 3/6; PLW SR 10/15; PLW GC 10/15; 10 calls, 14 sub-goals, 5 + 2 by the LLM
        "valid_unseen": {"episodes": 2, "sr": 0.5, "gc": 0.5, "plw_sr": 0.6667, "plw_gc": 0.6667,
                         "calls/subgoal": round(10 / 14, 3), "llm_decided": 0.5},
    }
    # The seconds (measured, so not a metric) come from the timing lines: 11 s / 11 and 5 s / 14 sub-goals.
    seen = [e for e in EPISODES if e["split"] == "valid_seen"]
    assert speed(seen, TIMINGS)["seconds_per_subgoal"] == 1.0
    for row in h.values():
        assert not violations(row, "eval_metrics")
    c = cost(EPISODES)
    assert c["calls_per_subgoal"] == round(32 / 25, 3)
    assert c["subgoals_per_episode"] == 6.25 and c["failed_subgoals_per_episode"] == 1.0
    assert c["tokens_per_subgoal"] == round(32 * 11 / 25, 1)
    s = speed(EPISODES, TIMINGS)
    assert s == {"timed": 4, "seconds_per_subgoal": round(16 / 25, 3), "llm_seconds_per_subgoal": 0.32,
                 "outside_llm_share": 0.5, "seconds_per_episode_median": 4.0}
    assert speed(EPISODES, {})["seconds_per_subgoal"] == 0.0 and speed(EPISODES, {})["timed"] == 0
    assert headline(EPISODES, ["valid_seen", "train"])["train"]["episodes"] == 0


def test_timing_lines_are_apart_from_the_records() -> None:
    """A rollout may not carry measured seconds (they would differ run to run); its timing line carries them."""
    for line in TIMINGS.values():
        assert not violations(line, "timing")
    assert TIMINGS["ro-a"]["outside_llm_share"] == 0.5 and TIMINGS["ro-a"]["llm_roles"] == {"actor": 4.0}
    for where, key in (("metrics", "seconds"), ("llm", "seconds"), ("llm", "cache_hits"), ("llm", "retries")):
        timed = {**EPISODES[0], where: {**EPISODES[0][where], key: 1}}
        assert any(key in v.message for v in violations(timed, "rollout")), (where, key)
    share = {**EPISODES[0], "metrics": {**EPISODES[0]["metrics"], "outside_llm_share": 0.5}}
    assert violations(share, "rollout")


def test_details_and_plot_rows() -> None:
    d = details("hindsight", EPISODES)
    assert not violations(d, "eval_details")
    assert d["by_split"]["valid_unseen"]["by_type"]["pick_heat_then_place_in_recep"]["plw_sr"] == 0.6667
    assert d["by_type"]["pick_and_place_simple"]["gc"] == 0.5
    assert d["llm_by_role"] == {"actor": {"calls": 32}}
    assert d["failure_reasons"] == {"Apple not found": 4} and d["stop_reasons"] == {"max_subgoals": 2, "success": 2}
    rows = sr_by_type_rows("hindsight", EPISODES)
    assert [(r["task_type"], r["sr"]) for r in rows] == [("pick_and_place_simple", 0.5),
                                                         ("pick_heat_then_place_in_recep", 0.5)]


def test_rollout_schema_requires_the_counts() -> None:
    bad = dict(EPISODES[0])
    del bad["gc_total"]
    assert any("gc_total" in v.message for v in violations(bad, "rollout"))
    assert not violations(EPISODES[0], "rollout")


@pytest.mark.parametrize("field", ["gc_met", "gc_total", "expert_len"])
def test_aggregation_reads_every_count(field: str) -> None:
    changed = [dict(e) for e in EPISODES]
    changed[1][field] += 2
    assert alfred_rates(changed) != alfred_rates(EPISODES)
