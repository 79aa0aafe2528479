"""The expert's corrections of a practice run (planner/probe/corrections.py) and the expert completer
(relabel.completer: expert), on a scripted run with known wrong steps in a real task, checked against the expert's
cost-to-go computed here on its own (every legal option of every state, no shared cache)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from household.expert.cost_to_go import cost_to_go
from planner.config import PlannerConfig
from planner.loop.replay import replay
from planner.probe.corrections import corrections
from planner.probe.states import context, replay_state
from planner.prompts.prompting import actor_example
from planner.relabel.stages import complete
from planner.retrieval.examples import ExamplePools
from pools.jsonl import RecordError, read_jsonl, read_records, write_jsonl
from pools.records import Correction, Reflection, Rollout, StepRecord
from pools.schemas import violations
from tests.planner.helpers import first_task

CFG = PlannerConfig.from_params(scaffold="none")
SEED = CFG.world.seed
# A run on a real task (put a book on a side table): the expert's walk and pickup, then a walk back to the bed
# (neutral), a put the world refuses, the book put on the bed (regress), and the expert's way from there.
RUN = ["Navigation Bed", "PickupObject Book", "Navigation Bed", "PutObject Apple Bed", "PutObject Book Bed",
       "PickupObject Book", "Navigation SideTable", "PutObject Book SideTable"]
WRONG = {2: "neutral", 3: "refused", 4: "regress"}  # step index -> how it moved d (the rest lower it)


@pytest.fixture(scope="module")
def task():
    return first_task("pick_and_place_simple")  # Book -> SideTable, valid_seen


def rollout(task, steps: list[str]) -> Rollout:
    """A practice run's record: `steps` as the planner chose them, with what the world answered."""
    reasons = replay(task, steps, CFG, SEED)["reasons"]
    recs = [StepRecord(subgoal=sg, ok=not why, reason=why, observation="", pddl_pred={}, candidates=[], repeat_fail=0,
                       chosen_by="llm") for sg, why in zip(steps, reasons)]
    return Rollout.new(task_id=task.id, task_type=task.task_type, instruction=task.instruction(), split=task.split,
                       variant="hindsight", seed=SEED, leave_out="", success=False, gc=0.0, gc_met=0, gc_total=1,
                       expert_len=4, plw={"sr": 0.0, "gc": 0.0}, steps=recs, metrics={},
                       llm={"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})


@pytest.fixture(scope="module")
def made(task) -> list[Correction]:
    return corrections(rollout(task, RUN), task, CFG)


def test_a_correction_at_every_state_after_a_step_that_did_not_lower_d_and_none_after_progress(task, made):
    # the labels, computed here from d before and after each step (refused: the world said no)
    for i, sg in enumerate(RUN):
        before, _ = replay_state(task, RUN[:i], CFG, SEED)
        after, _ = replay_state(task, RUN[:i + 1], CFG, SEED)
        d0, d1 = cost_to_go(before), cost_to_go(after)
        refused = bool(replay(task, RUN[:i + 1], CFG, SEED)["reasons"][i])
        kind = "refused" if refused else "neutral" if d1 == d0 else "regress" if d1 > d0 else "progress"
        assert kind == WRONG.get(i, "progress") and (kind != "progress" or d1 == d0 - 1), (i, sg, d0, d1)
    assert [(len(c.steps) - 1, c.label) for c in made] == sorted(WRONG.items())
    assert all(c.source == rollout(task, RUN).id and c.task_id == task.id for c in made)
    assert [c.robot_next for c in made] == [RUN[i + 1] for i in sorted(WRONG)]


def test_the_optimal_options_are_the_legal_ones_with_the_least_d_by_brute_force(task, made):
    for c in made:
        world, history = replay_state(task, c.steps, CFG, SEED)
        _, legal = context(task, history, world)
        after = {}
        for option in legal:  # each option tried in a copy of the world, d searched afresh
            nxt = world.fork(bounded=False)
            nxt.attempt(option)
            after[option] = cost_to_go(nxt)
        least = min(d for d in after.values() if d is not None)
        assert c.optimal == [o for o in legal if after[o] == least] and c.d == cost_to_go(world)
        assert c.shown in c.optimal
    # walking to the side table and to what stands on it are equally short; the example shows the task's own class
    assert made[0].shown == "Navigation SideTable" and made[0].shown_by == "task" and len(made[0].optimal) > 1
    assert made[-1].optimal == ["PickupObject Book"]


def test_a_run_of_progress_steps_has_no_correction(task):
    assert corrections(rollout(task, RUN[:2]), task, CFG) == []


def test_the_example_shows_the_prefix_with_failures_then_the_correction(task, made):
    refused = made[1]
    assert refused.trace()[-1] == (refused.shown, "") and refused.trace()[:-1] == list(zip(refused.steps,
                                                                                           refused.reasons))
    text = actor_example(refused)
    assert f"PutObject Apple Bed [failed: {refused.reasons[3]}]; {refused.shown}\n" in text and refused.reasons[3]
    # Actor_hind's pool holds the corrections of a pool file beside the hindsight samples
    pools = ExamplePools.from_records([refused])
    assert pools.hind == [refused] and pools.gt == []


def test_the_record_round_trips_and_validates_and_a_bad_line_is_named(made, tmp_path: Path):
    for c in made:
        assert Correction.model_validate(json.loads(json.dumps(c.model_dump()))) == c
        assert violations(c.model_dump(), "correction") == [] and violations(c.model_dump(), "sample") == []
    path = tmp_path / "corrections.jsonl"
    write_jsonl(path, made, "correction")
    assert read_records(path, "correction").records == made
    assert read_jsonl(path, "correction").records == [c.model_dump() for c in made]
    bad = made[1].model_dump() | {"label": "progress"}  # a progress step is never corrected
    path.write_text(json.dumps(made[0].model_dump()) + "\n" + json.dumps(bad) + "\n")
    for schema in ("correction", "sample"):  # as the stage's output, and as a line of the pool
        with pytest.raises(RecordError) as err:
            read_jsonl(path, schema)
        assert f"{path}:2:" in str(err.value) and "'label'" in str(err.value) and "progress" in str(err.value)
    with pytest.raises(ValueError, match="not optimal"):
        Correction.new(**{k: v for k, v in made[0].model_dump().items() if k not in ("id", "kind")} | {"shown": "Stop"})


def test_the_expert_completer_keeps_the_prefix_to_the_first_wrong_step_and_solves_the_task(task):
    cfg = PlannerConfig.from_params({"relabel": {"completer": "expert"}}, scaffold="none")
    run = rollout(task, RUN[:5])  # it ends with the book on the bed
    reflection = Reflection.new(rollout_id=run.id, task_id=task.id, phi="put a book on a side table", think="")
    done = complete(reflection, run, task, client=None, cfg=cfg)  # no LLM: a call would fail on None
    first_wrong = min(WRONG)
    assert done.steps[:first_wrong + 1] == RUN[:first_wrong + 1]
    assert done.rounds[0]["added"] == done.steps[first_wrong + 1:] and done.rounds[0]["answer"] == ""
    rep = replay(task, done.steps, CFG, SEED)
    assert done.verified and rep["success"] and done.sample.steps == done.steps
    # from the state after the wrong walk, the expert's plan is as short as d says
    world, _ = replay_state(task, RUN[:first_wrong + 1], CFG, SEED)
    assert len(done.steps) - first_wrong - 1 == cost_to_go(world)
    with pytest.raises(ValueError, match="relabel.completer: expert .* household"):
        complete(reflection, run, task, client=None,
                 cfg=PlannerConfig.from_params({"relabel": {"completer": "expert"}, "world": {"backend": "alfworld"}}))
    with pytest.raises(ValueError, match="completer must be one of"):
        PlannerConfig.from_params({"relabel": {"completer": "oracle"}})
