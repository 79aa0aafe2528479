"""The exported views (planner/views/rows.py): a sample's text is what the planner's prompts show for it, decisions
are the plan's carried-out steps with the plan so far, and a kind whose decisions carry a rejected step makes
preference rows."""
from __future__ import annotations

import dataclasses
from dataclasses import replace
from pathlib import Path

from flows.cli.cmd_episode import example_pools
from planner.config import PlannerConfig
from llm.client import LLMClient
from planner.prompts.parsing import format_args
from llm.scripted import ScriptedEndpoint, grammar_choices
from planner.loop.episode import run_episode
from planner.views import rows
from pools.jsonl import as_record, record_problem, write_jsonl
from pools.records import CriticSample, PoolItem, Sample
from tests.flows.pool_files import gt_records, hindsight_records
from tests.planner.helpers import ListIndex, gt_pools

CFG = PlannerConfig.from_params(k=9, width=2, max_subgoals=3, scaffold="none")
SCHEMAS = {v: f"view_{v}" for v in rows.VIEWS}


def typed(records: list[dict]) -> list[PoolItem]:
    return [as_record(r, "sample") for r in records]


def _recovering(sample: Sample) -> Sample:
    """A hindsight sample from a gt one: its first pickup tried too early, failed, and the plan goes on."""
    pickup = next(i for i, s in enumerate(sample.steps) if s.startswith("PickupObject"))
    steps = [*sample.steps[:pickup - 1], sample.steps[pickup], *sample.steps[pickup - 1:]]
    reasons = [""] * len(steps)
    reasons[pickup - 1] = "not found"
    return Sample.new(kind="hindsight", task_id=sample.task_id + "-hs", task_type=sample.task_type,
                      instruction="Again: " + sample.instruction, args=sample.args, steps=steps, verified=True,
                      source="ro-1", reasons=reasons)


def test_each_sample_text_is_what_the_episode_prompts_show(task, tmp_path: Path) -> None:
    gt = list(gt_pools(task.task_type, 2).gt)
    hind = _recovering(gt[0])
    # One critic sample per task: several of one task are shown as one block, their plans numbered.
    critics = [CriticSample.new(task_id=s.task_id, task_type=s.task_type, instruction=s.instruction,
                                steps=s.steps[:n], value_num=0, value_den=2, verified=True, source=src)
               for s, n, src in ((gt[1], 2, "expert"), (hind, 3, "ro-1"))]
    pools = {"gt": [*gt, critics[0]], "hindsight": [hind, critics[1]]}
    for pool, records in pools.items():
        write_jsonl(tmp_path / f"{pool}.jsonl", records, "sample")

    def answer(request):
        if request.prompt.startswith("Read each"):
            return " " + format_args(task.args.as_dict())
        options = grammar_choices(request.body)
        if request.prompt.startswith("Rate each"):
            return " the value is 1/2" + "".join(f"\n{i}. the value is 1/2" for i in range(2, 9))
        # The two actors answer differently (their examples differ), so the critic has a choice to score.
        return " " + (options[0] if "[failed: not found]" in request.prompt else options[-1])

    # The pools as `hindsight episode` reads them from data/pools/ (the list index stands in for the encoder).
    examples = dataclasses.replace(example_pools(str(tmp_path), 2, 0), index_factory=ListIndex)
    with ScriptedEndpoint(answer) as ep, \
            LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=tmp_path / "cache") as client:
        run_episode(task, "hindsight", examples, client, CFG)
        prompts = [q.prompt for q in ep.requests]
    actor = [p for p in prompts if p.startswith("Robot plans")]
    critic = [p for p in prompts if p.startswith("Rate each")]
    assert actor and critic
    views = rows.view_rows(pools)
    assert len(views["actor"]) == 3 and len(views["critic"]) == 2
    for row in views["actor"]:
        assert any(row["text"] in p for p in actor), row["sample_id"]
    for row in views["critic"]:
        assert any(row["text"] in p for p in critic), row["sample_id"]


def test_a_row_is_its_sample_as_question_and_answer() -> None:
    pools = {"gt": typed(gt_records()), "hindsight": typed(hindsight_records())}
    views = rows.view_rows(pools)
    for view, made in views.items():
        for row in made:
            assert record_problem(row, SCHEMAS[view]) is None, (view, record_problem(row, SCHEMAS[view]))
    for row in views["actor"] + views["critic"]:
        # The example block is the question's state and its answer, as the examples show them.
        assert (row["prompt"] + row["answer"]).endswith(row["text"].rstrip("\n")), row["sample_id"]
    assert views["preference"] == []  # no pool kind holds a rejected step yet
    ids = {p: {r.id for r in records} for p, records in pools.items()}
    assert all(r["sample_id"] in ids[r["pool"]] for made in views.values() for r in made)


def test_decisions_are_the_carried_out_steps_with_the_plan_so_far() -> None:
    record, _ = hindsight_records()
    sample = Sample.model_validate(record)
    made = [rows.sft_row(d) for d in rows.decisions({"hindsight": [sample]})]
    failed = [i for i, r in enumerate(sample.reasons) if r]
    assert [r["step"] for r in made] == [i for i in range(len(sample.steps)) if i not in failed]
    assert all(m["messages"][1]["content"] == sample.steps[m["step"]] for m in made)
    later = [m["messages"][0]["content"] for m in made if m["step"] > failed[0]]
    assert later and all(f"{sample.steps[failed[0]]} [failed: {sample.reasons[failed[0]]}];" in p for p in later)
    # Each prompt continues the one before it by the step between them; the last one, answered, is the plan.
    actor = rows.actor_row(sample, "hindsight")
    trace = [f"{s} [failed: {r}]" if r else s for s, r in sample.trace()]
    for a, b in zip(made, made[1:]):
        between = "".join(f" {t};" for t in trace[a["step"]:b["step"]])
        assert b["messages"][0]["content"] == a["messages"][0]["content"] + between
    assert made[-1]["messages"][0]["content"] + " " + made[-1]["messages"][1]["content"] == \
        actor["prompt"] + actor["answer"]


def test_a_correction_is_one_decision_at_its_state_and_a_pair_where_the_robot_went_wrong_again() -> None:
    from pools.records import Correction
    from tests.flows.pool_files import ARGS, TYPE

    def correction(robot_next: str) -> Correction:
        return Correction.new(task_id="trial_hs", task_type=TYPE, instruction="Cool an apple.", args=ARGS,
                              source="ro-1", steps=["Navigation Sink", "PickupObject Apple"],
                              reasons=["", "Apple not found"], label="refused", d=6,
                              optimal=["Navigation Apple", "Navigation Fridge"], shown="Navigation Apple",
                              shown_by="task", robot_next=robot_next)

    wrong, right = correction("PickupObject Apple"), correction("Navigation Fridge")
    views = rows.view_rows({"hindsight": [wrong, right]})
    assert [(r["kind"], r["step"], r["messages"][1]["content"]) for r in views["sft"]] == \
        [("correction", 2, "Navigation Apple")] * 2
    prompt = rows.actor_prompt("Cool an apple.", ARGS, [("Navigation Sink", ""), ("PickupObject Apple",
                                                                                  "Apple not found")])
    assert views["sft"][0]["messages"][0]["content"] == prompt
    assert prompt.endswith(" Navigation Sink; PickupObject Apple [failed: Apple not found];")
    (pref,) = views["preference"]  # the robot's next step was optimal in `right`: no pair
    assert pref["sample_id"] == wrong.id and pref["rejected"][0]["content"] == "PickupObject Apple"
    assert views["actor"] == [] and all(record_problem(r, SCHEMAS[v]) is None for v, rs in views.items() for r in rs)


def test_a_kind_whose_decisions_reject_a_step_makes_preference_rows(monkeypatch) -> None:
    # What correction records will do: the expert's step chosen, the robot's step there rejected.
    def corrections(record, pool):
        return [dataclasses.replace(d, rejected="Navigation Sink") for d in rows.actor_decisions(record, pool)[:1]]

    monkeypatch.setitem(rows.DECISIONS, "gt", corrections)
    views = rows.view_rows({"gt": typed(gt_records(1))})
    (pref,) = views["preference"]
    assert record_problem(pref, "view_preference") is None
    assert pref["chosen"] == [{"role": "assistant", "content": "Navigation Apple"}]
    assert pref["rejected"] == [{"role": "assistant", "content": "Navigation Sink"}]
    assert pref["prompt"] == views["sft"][0]["messages"][:1]
