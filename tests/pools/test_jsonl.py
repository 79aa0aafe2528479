"""Schema-checked JSONL: records checked by their models, bad rows named by file, line, field and schema path;
writes are atomic."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pools.jsonl import RecordError, quarantine_path, read_jsonl, read_records, record_problem, write_jsonl
from pools.records import Rollout, Sample, StepRecord

ARGS = {"object_target": "Apple", "parent_target": "Fridge", "mrecep_target": "", "toggle_target": "",
        "object_state": "cool", "object_sliced": False, "two_objects": False}


def sample(task: str = "t1", steps: tuple[str, ...] = ("Navigation Apple", "PickupObject Apple")) -> dict:
    return Sample.new(kind="gt", task_id=task, task_type="pick_cool_then_place_in_recep",
                      instruction="Put a cold apple in the fridge.", args=ARGS, steps=list(steps),
                      verified=True, source="expert").model_dump()


def test_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    rows = [sample("a"), sample("b")]
    assert write_jsonl(path, rows, "sample") == 2
    assert read_jsonl(path, "sample").records == rows
    typed = read_records(path, "sample").records
    assert all(isinstance(r, Sample) for r in typed) and [r.model_dump() for r in typed] == rows
    before = path.read_bytes()
    write_jsonl(path, typed, "sample")  # a typed record is written as the same bytes
    assert path.read_bytes() == before


def _rollout(**changes: dict) -> Rollout:
    step = StepRecord(subgoal="Navigation Apple", ok=True, reason="", observation="", pddl_pred={}, candidates=[],
                      repeat_fail=0)
    fields = {"task_id": "t1", "task_type": "pick_and_place_simple", "instruction": "i", "split": "train",
              "variant": "expert", "seed": 0, "leave_out": "", "success": True, "gc": 1.0, "gc_met": 1, "gc_total": 1,
              "expert_len": 1, "plw": {"sr": 1.0, "gc": 1.0}, "steps": [step], "metrics": {"stop_reason": "success"},
              "llm": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}
    return Rollout.new(**{**fields, **changes})


@pytest.mark.parametrize("changes, field", [
    ({"llm": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": 1.0}}, "llm"),
    ({"llm": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "roles": {"actor": {"errors": 1}}}},
     "llm/roles/actor"),
    ({"metrics": {"outside_llm_share": 0.5}}, "metrics"),
    ({"metrics": {"per_subgoal": {"seconds": 2.0}}}, "metrics/per_subgoal"),
    ({"gc": 2.0}, "gc"),
    ({"success": 1}, "success"),
])
def test_the_model_refuses_what_the_schema_refuses(changes: dict, field: str) -> None:
    # Measured keys (the schema's propertyNames) and JSON types as the schema has them (strict: no 1 for true).
    assert record_problem(_rollout(), "rollout") is None
    problem = record_problem(_rollout(**changes), "rollout")
    assert problem and f"field '{field}'" in problem and "schema path rollout.schema.json#/" in problem


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda r: r.update(task_type="make_coffee"), "task_type"),
        (lambda r: r["args"].update(object_target="Banana"), "args/object_target"),
        (lambda r: r.update(steps="Navigation Apple"), "steps"),
        (lambda r: r.pop("instruction"), "instruction"),
        (lambda r: r.update(instruction="x" * 5000), "instruction"),
    ],
)
def test_bad_record_names_file_line_field(tmp_path: Path, mutate, field: str) -> None:
    path = tmp_path / "pool.jsonl"
    bad = sample("b")
    mutate(bad)
    path.write_text(json.dumps(sample("a")) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(RecordError) as err:
        read_jsonl(path, "sample")
    msg = str(err.value)
    assert f"{path}:2:" in msg and "schema path sample.schema.json#/" in msg
    assert (f"'{field}'" in msg) or ("'instruction' is a required" in msg)


def test_truncated_line_and_duplicates_quarantined(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    good = sample("a")
    text = json.dumps(good) + "\n" + json.dumps(good) + "\n" + json.dumps(sample("c"))[:40] + "\n"
    path.write_text(text)
    result = read_jsonl(path, "sample", on_bad="quarantine")
    assert result.records == [good]
    reasons = [r["reason"] for r in result.rejected]
    assert "duplicate id" in reasons[0] and "truncated" in reasons[1]
    side = [json.loads(x) for x in quarantine_path(path).read_text().splitlines()]
    assert [s["line"] for s in side] == [2, 3]


def test_write_refuses_invalid_and_keeps_old_file(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    write_jsonl(path, [sample("a")], "sample")
    before = path.read_bytes()
    bad = sample("b")
    bad["kind"] = "nonsense"
    with pytest.raises(RecordError, match=r"pool.jsonl:2: refusing to write"):
        write_jsonl(path, [sample("a"), bad], "sample")
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".pool.jsonl.*"))


def test_huge_and_non_utf8_lines(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    path.write_bytes(b'{"kind": "gt", "id": "\xff\xfe"}\n' + b'{"x": "' + b"a" * 2_000_000 + b'"}\n')
    result = read_jsonl(path, "sample", on_bad="quarantine")
    assert result.records == []
    assert "not UTF-8" in result.rejected[0]["reason"]
    assert "over the" in result.rejected[1]["reason"]


TASK = {"id": "t-1", "split": "train", "task_type": "pick_and_place_simple", "floorplan": 3, "seed": 7,
        "args": {"object_target": "Apple", "parent_target": "Fridge", "mrecep_target": "", "toggle_target": "",
                 "object_state": "none", "object_sliced": False, "two_objects": False},
        "instructions": ["put an apple in the fridge"], "expert_len": 4, "expert_ok": True, "expert_reason": ""}


@pytest.mark.parametrize("change", [{}, {"floorplan": 0}, {"floorplan": "3"}, {"seed": 1.0}, {"split": "test"},
                                    {"instructions": []}, {"expert_ok": 1}, {"extra": 1}, {"task_type": "x"},
                                    {"args": {**TASK["args"], "object_target": "Nope"}}])
def test_a_model_checked_artifact_is_accepted_exactly_where_its_schema_file_accepts_it(change: dict) -> None:
    # data/tasks.jsonl's lines go through the model first (MODEL_CHECKED); the schema file keeps the last word.
    from pools.jsonl import MODEL_CHECKED, _checked
    from pools.schemas import violations

    task = {**TASK, **change}
    assert "task" in MODEL_CHECKED
    assert (_checked(task, "task")[0] is None) == (not violations(task, "task")), change
    assert bool(change) == bool(violations(task, "task")) or change == {"seed": 1.0}  # JSON Schema: 1.0 is an integer
