"""The probe's named sets (benchmarks/probe_sets.py) and the ladder (benchmarks/bench_ladder.py): the test set's
tasks are held out from the dev set and every pool and stratified by type; a frozen set whose rows changed is
refused; a run on the test set needs a written reason and appends one ledger row per configuration, never
rewriting earlier ones; the ladder answers the same states with its three configurations, and refuses unknown
params keys and a pool change it cannot build."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml

from benchmarks import bench_ladder, bench_probe
from benchmarks.probe_sets import (FROZEN, SETS_DIR, TEST, ChangedSet, append_ledger, ledger_rows, load_frozen,
                                   read_ledger, require_reason, set_digest, frozen_set_tasks)
from benchmarks.sample import gt_pool
from household.world.tasks import dev_specs, spec_of
from llm.scripted import ScriptedEndpoint
from planner.config import PlannerConfig
from planner.probe.states import recovery_states
from pools.analysis.probe_metrics import summary
from pools.records import ProbeState
from testing.harness import on_endpoint, planner_answer
from tests.planner.helpers import first_task

ROOT = Path(__file__).resolve().parents[1]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
PAPER = yaml.safe_load((ROOT / "profiles" / "paper.yaml").read_text(encoding="utf-8"))


def test_the_test_sets_tasks_are_held_out_from_dev_and_every_pool_and_stratified_by_type() -> None:
    samples = [s for per_type in (PARAMS["pools"]["gt_per_type"], PAPER["pools"]["gt_per_type"])  # default, paper
               for s in gt_pool({**PARAMS, "pools": {**PARAMS["pools"], "gt_per_type": per_type}})[0]]
    pooled = {s.task_id for s in samples}
    tasks = frozen_set_tasks(samples, TEST)
    assert not {spec_of(t.id) for t in tasks} & dev_specs()
    assert not {t.id for t in tasks} & pooled and {t.split for t in tasks} == {"valid_unseen"}
    assert len({spec_of(t.id) for t in tasks}) == len(tasks)  # one trial per spec
    assert set(Counter(t.task_type for t in tasks).values()) == {TEST["per_type"]}
    assert len(tasks) == 7 * TEST["per_type"]
    if (SETS_DIR / "test.json").exists():  # the committed set is this draw, its states on these tasks
        manifest, states = load_frozen("test")
        assert manifest["tasks"] == [t.id for t in tasks]
        assert {s.task_id for s in states} <= set(manifest["tasks"]) and manifest["states"] == len(states) >= 200
        assert {s.kind for s in states} == {"recovery", "on_policy"}


def _state(i: int) -> ProbeState:
    return ProbeState.new(task_id=f"t{i % 3}", task_type="pick_and_place_simple", split="valid_unseen",
                          instruction="put a pencil on the shelf", kind="recovery", wrong="walk",
                          steps=["Navigation Shelf"] * (i + 1), legal=["Navigation Desk", "Stop"], d=3,
                          d_options=[2, None])


def _frozen(folder: Path, rows: list[dict]) -> dict[str, str]:
    folder.mkdir(exist_ok=True)
    (folder / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = json.loads((SETS_DIR / "test.json").read_text()) if (SETS_DIR / "test.json").exists() else None
    if manifest is None:
        pytest.skip("no frozen test set to copy a manifest from")
    manifest.update(name="s", digest=set_digest(rows))
    (folder / "s.json").write_text(json.dumps(manifest))
    return {"s": set_digest(rows)}


def test_a_frozen_set_is_refused_once_any_state_changes(tmp_path: Path) -> None:
    rows = [_state(i).model_dump() for i in range(4)]
    pinned = _frozen(tmp_path, rows)
    _, states = load_frozen("s", tmp_path, pinned)
    assert [s.id for s in states] == [r["id"] for r in rows]
    with pytest.raises(ChangedSet, match="pinned"):
        load_frozen("s", tmp_path, {})  # built, but never pinned
    for change in ({"steps": ["Navigation Desk"]}, {"d_options": [1, None]}):  # the steps (its id), or a d
        edited = [dict(rows[0], **change), *rows[1:]]
        (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in edited))
        with pytest.raises(ChangedSet):
            load_frozen("s", tmp_path, pinned)
    if "test" in FROZEN:
        load_frozen("test")  # the committed test set is the frozen one


def test_a_test_set_run_needs_a_written_reason() -> None:
    for main in (bench_probe.main, bench_ladder.main):
        with pytest.raises(SystemExit, match="--test-reason"):
            main(["--set", "test"])
        with pytest.raises(SystemExit, match="--test-reason"):
            main(["--set", "test", "--test-reason", "  "])
    require_reason("dev", None)  # tuning on dev needs none


def test_the_ledger_gets_one_row_per_configuration_and_keeps_every_earlier_row(tmp_path: Path) -> None:
    ledger = tmp_path / "test-ledger.jsonl"
    picks = [{"state_id": f"s{i}", "task_id": f"t{i % 4}", "task_type": "pick_and_place_simple",
              "kind": "recovery" if i % 2 else "on_policy", "optimal": i % 3 == 0, "regret": i % 3, "progress": 0,
              "chance": 0.5} for i in range(12)]
    runs = [{"config": c, "figures": summary(c, picks, 200, 0), "seconds": 1.0} for c in ("actor_gt", "actor_hind")]
    assert append_ledger(ledger_rows("bench_probe", "0" * 64, runs, "the lead's first test run", "abc1234"),
                         ledger) == 2
    first = ledger.read_text()
    assert append_ledger(ledger_rows("bench_ladder", "0" * 64, runs[:1], "a second look", "def5678"), ledger) == 3
    assert ledger.read_text().startswith(first)  # appended, never rewritten
    rows = read_ledger(ledger)
    assert [r["config"] for r in rows] == ["actor_gt", "actor_hind", "actor_gt"]
    assert rows[1]["by_kind"]["recovery"]["states"] == 6 and rows[2]["reason"] == "a second look"
    with pytest.raises(Exception, match="refusing to append"):
        append_ledger(ledger_rows("bench_probe", "0" * 64, runs, "", "abc1234"), ledger)  # no reason


def test_the_ladder_answers_the_same_states_with_its_three_configurations(tmp_path: Path) -> None:
    cfg = PlannerConfig.from_params(PARAMS, scaffold="none")
    task = first_task("pick_and_place_simple")
    states, _ = recovery_states(task, 3, cfg, cfg.world.seed, random.Random("ladder"), {})
    assert len(states) >= 2
    rungs = {"paper": {}, "k1": {"retrieval.k": 1}}
    with ScriptedEndpoint(planner_answer, owned_by="llamacpp") as ep:
        params = on_endpoint(json.loads(json.dumps(PARAMS)), ep.url, "scripted", timeout=30, retries=1,
                             backoff=0.01)
        result = bench_ladder.climb(rungs, states, params, lambda name, o: (None, "none"), cache=tmp_path / "c")
    ids = [s.id for s in states]
    for name, r in result.items():
        assert {c: [p["state_id"] for p in rows] for c, rows in r["picks"].items()} == \
            {c: ids for c in bench_ladder.CONFIGS}, name
        for versus in (r["vs_empty"], r["vs_gt"]):
            assert versus["all"]["states"] == len(ids) and versus["recovery"]["states"] == len(ids)
        assert r["overrides"] == rungs[name]


def test_the_ladder_refuses_unknown_keys_and_a_pool_change_it_cannot_build(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="rung 'x'.*planner.decidee"):
        bench_ladder.rung_params(PARAMS, "x", {"planner.decidee": "score"})
    with pytest.raises(ValueError, match="rung 'x'.*probe.per_typ"):  # a section the planner's config ignores
        bench_ladder.rung_params(PARAMS, "x", {"probe.per_typ": 2})
    with pytest.raises(ValueError, match="rung 'x'"):
        bench_ladder.rung_params(PARAMS, "x", {"planner.generator": "oracle"})  # the config refuses the value
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text("paper: {}\ntrim: {relabel.trim_loops: true}\n")
    with pytest.raises(SystemExit, match="--workspace"):
        bench_ladder.main(["--ladder", str(ladder), "--rungs", "trim"])
    with pytest.raises(SystemExit, match="no rung 'nope'"):
        bench_ladder.main(["--ladder", str(ladder), "--rungs", "nope"])
    assert bench_ladder.pool_settings({"relabel.corrections": True, "planner.decide": "score",
                                       "retrieval.unit": "step"}) == {"relabel.corrections": True}
    committed = bench_ladder.load_ladder()
    assert next(iter(committed.items())) == ("paper", {})  # the paper's configuration is the bottom rung
    for name, overrides in committed.items():  # every committed rung is one the config accepts
        bench_ladder.rung_params(PARAMS, name, overrides)


@pytest.mark.parametrize("bench", [bench_probe, bench_ladder])
def test_a_test_set_run_appends_one_ledger_row_per_configuration(bench, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = PlannerConfig.from_params(PARAMS, scaffold="none")
    states, _ = recovery_states(first_task("pick_and_place_simple"), 2, cfg, cfg.world.seed, random.Random("l"), {})
    ledger = tmp_path / "test-ledger.jsonl"
    monkeypatch.setattr(bench, "load_frozen", lambda name: ({"digest": "1" * 64, "dropped": {},
                                                             "reference": {"variant": "r", "episodes": []}}, states))
    monkeypatch.setattr(bench, "append_ledger", lambda rows: append_ledger(rows, ledger))
    with ScriptedEndpoint(planner_answer, owned_by="llamacpp") as ep:
        params = on_endpoint(json.loads(json.dumps(PARAMS)), ep.url, "scripted", timeout=30, retries=1,
                             backoff=0.01)
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        rungs = ["--rungs", "paper"] if bench is bench_ladder else []
        bench.main(["--set", "test", "--test-reason", "checking the ledger", "--params", str(tmp_path / "params.yaml"),
                    "--hindsight-pool", str(tmp_path / "none.jsonl"), *rungs])
    rows = read_ledger(ledger)
    expected = (["actor_gt", "actor_hind", "random"] if bench is bench_probe else
                [f"paper/{c}" for c in bench_ladder.CONFIGS])
    assert [r["config"] for r in rows] == expected
    assert {r["reason"] for r in rows} == {"checking the ledger"} and {r["states"] for r in rows} == {len(states)}
    assert {r["set_digest"] for r in rows} == {"1" * 64}
