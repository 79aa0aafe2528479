"""The benchmarks' target checks flag a miss (a benchmark that misses its target must exit non-zero)."""
from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def bench(name: str) -> ModuleType:
    """The module benchmarks.<name> (what `python -m benchmarks.<name>` runs)."""
    return importlib.import_module(f"benchmarks.{name}")


def test_pipeline_targets() -> None:
    m = bench("bench_pipeline")
    ok = dict(noop_ran=[], noop=[0.9, 1.0, 1.1], cold=1200.0, warm=50.0, rerun=["critic", "pool", "evaluate@x"],
              default_profile=True)
    assert m.missed_targets(**ok) == []
    assert m.missed_targets(**{**ok, "noop": [3.0, 3.0, 1.0]})            # no-op median 3 s
    assert m.missed_targets(**{**ok, "noop_ran": ["collect"]})            # no-op ran a stage
    assert m.missed_targets(**{**ok, "warm": 1200.0 / 19.9})              # warm only 19.9x faster
    assert m.missed_targets(**{**ok, "cold": 2700.0, "warm": 100.0})      # 45 min cold, default profile
    assert m.missed_targets(**{**ok, "cold": 2700.0, "warm": 100.0, "default_profile": False}) == []
    assert m.missed_targets(**{**ok, "rerun": ["critic", "complete"]})    # upstream of critic reran
    assert m.missed_targets(**{**ok, "rerun": ["pool"]})                  # critic did not rerun


def test_llm_knn_target() -> None:
    m = bench("bench_llm")
    got = {"kNN search ms (k=9, median)": 4.99, "queries (each ms figure: over these)": 200, "pool size": 21_000}
    assert m.knn_missed(got, m.KNN_TARGET_MS) == []
    assert m.knn_missed({**got, "kNN search ms (k=9, median)": 5.0}, m.KNN_TARGET_MS)


def test_planner_targets() -> None:
    m = bench("bench_planner")

    def q(**over: object) -> dict:
        return {"sr": 0.5, "adapter_accuracy": {"object_target": 0.95}, "actor_illegal_share": 0.0,
                "seconds_per_subgoal": 5.0, "outside_llm_share": 0.01, "scaffold": "none", "llm_decided": 0.9,
                "calls_per_subgoal": 3.0, **over}

    assert m.missed_targets({"hindsight": q(), "no_hindsight": q()}) == []
    # held-out quality has no target to chase: a low SR or adapter accuracy is reported, not a miss
    assert m.missed_targets({"no_hindsight": q(sr=0.0, adapter_accuracy={"object_target": 0.5})}) == []
    assert m.missed_targets({"no_hindsight": q(llm_decided=0.79)})           # the paper's planner: >= 80% by the LLM
    assert m.missed_targets({"no_hindsight": q(llm_decided=0.2, scaffold="full")}) == []  # the scaffold's rules decide
    assert m.missed_targets({"hindsight": q(actor_illegal_share=0.001)})
    # the expert makes no LLM call: the LLM's targets do not apply to it
    assert m.missed_targets({"expert": q(llm_decided=0.0, outside_llm_share=1.0, calls_per_subgoal=0.0)}) == []
    assert m.missed_targets({"hindsight": q(seconds_per_subgoal=6.1)})
    assert m.missed_targets({"no_hindsight": q(seconds_per_subgoal=6.1)}) == []  # the 6 s target is hindsight's
    assert m.missed_targets({"llm_planner": q(outside_llm_share=0.05)})


@pytest.mark.parametrize("reason, code", [
    ("LLMError: LLM call for role 'reflect' failed after 2 attempt(s): http_429 (Error code: 429)", "http_429"),
    ("LLMError: LLM call for role 'reflect' failed after 2 attempt(s): http_4291", "http_4291"),
    ("LLMError: LLM call for role 'reflect' failed after 2 attempt(s): timeout (no answer within 1 s)", "timeout"),
    ("invalid reflection record: field 'think' is too long", "invalid reflection record"),
    ("LLMError: LLM call for role 'actor' failed after 2 attempt(s): http_429", "LLMError: LLM call for role "
     "'actor' failed after 2 attempt(s): http_429"),  # another role's call is not reflect's fault
])
def test_faults_reason_code_is_exact(reason: str, code: str) -> None:
    assert bench("bench_faults").reason_code(reason) == code


def test_gate_targets() -> None:
    m = bench("bench_gate")
    sample = {"split": "valid_unseen", "per_type": 4, "task_set": "all", "goal_gate": True, "tasks": 28}
    every = {**sample, "per_type": 0, "tasks": 255}
    assert m.missed({**sample, "successes": 28}) == [] and m.missed({**every, "successes": 250}) == []
    assert m.missed({**sample, "successes": 27}) and m.missed({**every, "successes": 249})
    assert m.missed({**sample, "successes": 27, "goal_gate": False}) == []  # --no-gate has no target
    assert m.missed({**sample, "successes": 1, "task_set": "heldout"}) == []  # nor another sample


def test_probe_target() -> None:
    m = bench("bench_probe")
    assert m.missed_targets(200, 20 * 60) == [] and m.missed_targets(200, 20 * 60 + 1)
    assert m.missed_targets(120, 3600) == []  # a smaller run is not the target's size


def test_adapter_target() -> None:
    m = bench("bench_adapter")
    res = {"lexicon": {"accuracy": {"object_target": 0.90}}, "all": {"accuracy": {"object_target": 0.5}}}
    assert m.missed_targets(res) == []                                   # the scaffold's lexicon: 90% met
    assert m.missed_targets(res, "all")                                  # a mode checked explicitly
    assert m.missed_targets({"lexicon": {"accuracy": {"object_target": 0.89}}})
    assert m.missed_targets({"lexicon": {"accuracy": {"object_target": 0.5}}}, tuned_on=False) == []  # held out
    assert m.missed_targets(res, "other") == []                          # not run: nothing to judge


def test_pool_curve_target_and_pairs() -> None:
    m = bench("bench_pool_curve")
    point = {"practice": {"by_planner": {"none": {"rollouts": 35, "succeeded": 2}}},
             "stage_seconds": {"collect": 6000.0, "reflect": 600.0, "complete": 1800.0, "critic": 300.0, "pool": 5.0,
                               "probe": 9000.0}}
    assert m.practice_seconds(point) == 8705.0  # the probe is not part of it
    assert m.missed_targets({35: point}, cold=True) == []
    slow = {**point, "stage_seconds": {**point["stage_seconds"], "collect": 7000.0}}
    assert m.missed_targets({35: slow}, cold=True)                 # 2.70 h > 2.5 h
    assert m.missed_targets({35: point, 7: point}, cold=True)      # each point pays its new runs: summed
    assert m.missed_targets({35: slow}, cold=False) == []          # a warm workspace is not a measurement
    few = {**slow, "practice": {"by_planner": {"none": {"rollouts": 21, "succeeded": 0}}}}
    assert m.missed_targets({21: few}, cold=True) == []            # under 35 paper runs: the target does not apply
    # The 70 point's last 35 runs made under the scaffold: outside the target, which stays on the paper's points.
    mixed = {**slow, "practice": {"by_planner": {"none": {"rollouts": 35, "succeeded": 2},
                                                 "full": {"rollouts": 35, "succeeded": 20}}}}
    assert m.missed_targets({35: point, 70: mixed}, cold=True) == []
    assert m.missed_targets({35: slow, 70: mixed}, cold=True)
    profile = ROOT / "profiles" / "paper.yaml"
    assert "collect.scaffold_from" not in m.point_settings(profile, 5, {}, scaffold_from=5)  # same params as before
    assert m.point_settings(profile, 10, {}, scaffold_from=5)["collect.scaffold_from"] == 5
    # Paired against the empty pool: the same states at both points, task-resampled.
    picks = lambda opt: [{"state_id": f"s{i}", "config": "actor_hind", "task_id": f"t{i % 4}", "task_type": "x",  # noqa: E731
                          "kind": "recovery", "optimal": o, "regret": 0 if o else 1, "progress": 0}
                         for i, o in enumerate(opt)]
    points = {0: {"picks": picks([False] * 8)}, 7: {"picks": picks([True, False] * 4)},
              35: {"picks": picks([True] * 8)}}
    figs = m.figures(points, samples=200)
    assert figs[35]["vs_0"]["table"] == {"both": 0, "only_a": 8, "only_b": 0, "neither": 0}
    assert figs[35]["vs_7"]["optimal_diff"] == 0.5 and "vs_0" not in figs[0]
    assert figs[7]["actor_hind"]["optimal"] == 0.5
    # An earlier run's points join when its probe states are the same states, and never silently otherwise.
    earlier = {"points": {"21": {"per_type": 3}}, "picks": {"21": picks([True, True] * 4)}}
    assert sorted(m.merge({k: {**v, "stage_seconds": {}} for k, v in points.items()}, earlier)) == [0, 7, 21, 35]
    paid = {"points": {"7": {"stage_seconds": {"collect": 453.0}}}, "picks": {"7": []}}
    assert m.merge({7: {"picks": [], "stage_seconds": {}}}, paid)[7]["stage_seconds"] == {"collect": 453.0}
    other = {"points": {"21": {}}, "picks": {"21": [{**p, "config": "actor_gt", "state_id": "x" + p["state_id"]}
                                                    for p in picks([True] * 8)]}}
    with pytest.raises(ValueError, match="probe states"):
        m.merge({0: {"picks": [{**p, "config": "actor_gt"} for p in picks([False] * 8)]}}, other)
    # A variation at the largest point is paired with that point's own picks, configuration by configuration.
    variation = {"runs": 35, "picks": picks([False, True] * 4)}
    figs_v = m.versus_base(variation, points, samples=200)
    assert figs_v["actor_hind"]["optimal"] == 0.5 and figs_v["actor_hind_vs_base"]["optimal_diff"] == -0.5
    assert "full_step" not in figs_v
    # The same change measured at 7 runs in an earlier sitting and at 35 now: both kept, each with its picks.
    earlier_v = {"variations": {"relabel.pool_clean=false": {"runs": 7}},
                 "variation_picks": {"relabel.pool_clean=false": picks([True] * 8)}}
    joined = m.merge_variations({"relabel.pool_clean=false@35": variation}, earlier_v)
    assert {n: v["runs"] for n, v in joined.items()} == {"relabel.pool_clean=false": 7,
                                                        "relabel.pool_clean=false@35": 35}
    assert len(joined["relabel.pool_clean=false"]["picks"]) == 8
