"""Resume: a stage SIGKILLed at any point and rerun ends with exactly the records of an uninterrupted run."""
from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import pytest

from pools.jsonl import read_jsonl
from llm.scripted import ScriptedEndpoint
from testing.harness import (OUT, TABLE, ItemScript, driver_env, kill_and_resume, minimal_workspace,
                                       run_driver, task_rows)

PACE = 0.25  # seconds per answer, so a kill lands mid-item


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return task_rows(per_type=6)


def _reference(tmp_path: Path, ep: ScriptedEndpoint, rows: list[dict], env: dict) -> tuple[dict, float]:
    root = minimal_workspace(tmp_path / "reference", ep.url, ep.model, rows)
    t0 = time.monotonic()
    done = run_driver(root, env)
    assert done.returncode == 0, done.stderr[-3000:]
    return {r["id"]: r for r in read_jsonl(root / OUT, "reflection").records}, time.monotonic() - t0


def _trials(tmp_path: Path, prefect_server: str, rows: list[dict], kills: list[dict]) -> None:
    env = driver_env(prefect_server)
    with ScriptedEndpoint(ItemScript(pace=PACE)) as ep:
        reference, seconds = _reference(tmp_path, ep, rows, env)
        assert len(reference) == len(rows)
        for n, kill in enumerate(kills):
            root = minimal_workspace(tmp_path / f"trial{n}", ep.url, ep.model, rows)
            if kill.get("kill_after") == "random":
                kill = {"kill_after": random.uniform(0.0, seconds)}
            lost, dup, same, summ = kill_and_resume(root, env, reference, **kill)
            TABLE.add("SIGKILL mid-stage, rerun", trials=1, lost=lost, duplicated=dup, clear=same,
                      note="records identical to uninterrupted run")
            assert (lost, dup, same) == (0, 0, True), (kill, lost, dup, summ)
            if kill.get("after_journal_lines"):
                assert summ["reused"] >= kill["after_journal_lines"]  # completed items were not redone
            shutil.rmtree(root / ".cache", ignore_errors=True)


def test_sigkill_then_rerun_reuses_items_and_matches(tmp_path: Path, prefect_server: str, rows: list[dict]) -> None:
    _trials(tmp_path, prefect_server, rows, [{"kill_after": None, "after_journal_lines": 4}])


@pytest.mark.slow
def test_sigkill_at_random_points(tmp_path: Path, prefect_server: str, rows: list[dict]) -> None:
    random.seed(7)
    kills = [{"kill_after": None, "after_journal_lines": k} for k in (1, 6, 11)] + [{"kill_after": "random"}] * 7
    _trials(tmp_path, prefect_server, rows, kills)
