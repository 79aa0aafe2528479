"""Bad input: the loader names file, line and schema path; fail or quarantine; nothing invalid reaches a stage."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pools.jsonl import RecordError, quarantine_path, read_json, read_jsonl
from llm.scripted import ScriptedEndpoint
from testing.harness import (OUT, TABLE, ItemScript, bad_rows, minimal_workspace, output_ids, summary,
                                       task_rows, write_rows, write_with_bad)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return task_rows(per_type=3)


def test_each_bad_row_fails_with_file_line_and_schema_path(tmp_path: Path, rows: list[dict]) -> None:
    for n, (kind, raw, expect) in enumerate(bad_rows(rows[0])):
        f = tmp_path / f"bad{n}.jsonl"
        write_with_bad(f, rows[:2], [(kind, raw, expect)])  # the bad row is line 2
        with pytest.raises(RecordError) as err:
            read_jsonl(f, "task")
        msg = str(err.value)
        clear = msg.startswith(f"{f}:2: ") and expect in msg and len(msg) < 2000
        TABLE.add(f"bad input: {kind}", trials=1, clear=clear, note="fail: file:line + reason")
        assert clear, (kind, msg[:500])


def test_quarantine_keeps_good_rows_and_explains_each_rejected_one(tmp_path: Path, rows: list[dict]) -> None:
    f = tmp_path / "tasks.jsonl"
    where = write_with_bad(f, rows, bad_rows(rows[0]))
    result = read_jsonl(f, "task", on_bad="quarantine")
    assert [r["id"] for r in result.records] == [r["id"] for r in rows]
    side = [json.loads(x) for x in quarantine_path(f).read_text().splitlines()]
    assert {s["line"] for s in side} == set(where)
    for s in side:
        assert s["file"] == str(f) and where[s["line"]][1] in s["reason"] and len(s["raw"]) <= 2000
    # A clean reread drops the stale side file instead of leaving old rejects beside good data.
    write_rows(f, rows)
    assert read_jsonl(f, "task", on_bad="quarantine").rejected == []
    assert not quarantine_path(f).exists()


def test_stage_fails_or_quarantines_and_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: list[dict],
                                               inproc_prefect: str) -> None:
    from flows.runtime.params import load_params
    from testing.driver import INPUT, driver_flow

    with ScriptedEndpoint(ItemScript()) as ep:
        root = minimal_workspace(tmp_path / "ws", ep.url, ep.model, rows)
        where = write_with_bad(root / INPUT, rows, bad_rows(rows[0]))
        monkeypatch.chdir(root)
        with pytest.raises(RecordError, match=r"tasks\.jsonl:2: not valid JSON"):
            driver_flow(load_params(), "fail")
        assert not (root / OUT).exists() and not ep.requests  # failed before any item ran

        driver_flow(load_params(), "quarantine")
        written = output_ids(root)
        assert sorted(written) == sorted(r["id"] for r in rows)  # the duplicate-id row was rejected, not rerun
        assert summary(root)["quarantined"] == len(where)
        read_jsonl(root / OUT, "reflection")  # strict reread: everything downstream sees is valid
    TABLE.add("bad input: stage fail|quarantine", trials=len(where), lost=0,
              duplicated=len(written) - len(set(written)), clear=True, note="counted in stage summary")


def test_gt_pool_stage_with_bad_tasks(project, rows: list[dict]) -> None:
    """The real `hindsight stage gt_pool` on a corrupted data/tasks.jsonl, with both policies."""
    tasks = project.path / "data" / "tasks.jsonl"
    where = write_with_bad(tasks, rows, bad_rows(rows[0]))
    failed = project.run("hindsight", "stage", "gt_pool", "--on-bad-record", "fail", check=False)
    assert failed.returncode == 1
    assert f"{tasks}:2: not valid JSON" in failed.stderr
    assert not (project.path / "data/pools/gt.jsonl").exists()

    project.run("hindsight", "stage", "gt_pool", "--on-bad-record", "quarantine")
    manifest = read_json(project.path / "data/pools/gt.manifest.json", "manifest")
    assert manifest["quarantined"] == len(where)
    side = quarantine_path(tasks).read_text().splitlines()
    assert len(side) == len(where) and all(json.loads(s)["reason"] for s in side)
    pool = read_jsonl(project.path / "data/pools/gt.jsonl", "sample").records  # strict: all valid
    good_ids = {r["id"] for r in rows}
    assert pool and all(s["task_id"] in good_ids for s in pool if s.get("task_id"))
    TABLE.add("bad input: hindsight stage gt_pool", trials=len(where), clear=True,
              note="fail exit 1 file:line; quarantine counted in manifest")
