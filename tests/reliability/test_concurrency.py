"""Concurrency: a second run of a stage or of `dvc repro` refuses clearly; cache and outputs never corrupt."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pools.jsonl import RecordError, read_jsonl, write_jsonl
from llm.scripted import ScriptedEndpoint
from testing.harness import (BIN, OUT, ROOT, TABLE, ItemScript, driver_cmd, driver_env, lost_and_duplicated,
                                       minimal_workspace, output_ids, task_rows, use_driver_pipeline)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return task_rows(per_type=6)


@pytest.mark.parametrize("workers", [1, pytest.param(16, marks=pytest.mark.slow)])
def test_two_stage_runs_on_one_workspace(workers: int, tmp_path: Path, prefect_server: str, rows: list[dict]) -> None:
    env = driver_env(prefect_server)
    # Long enough that the second run starts while the first still holds the lock: one wave of 16 takes one pace.
    with ScriptedEndpoint(ItemScript(pace=0.5 if workers == 1 else 6.0)) as ep:
        root = minimal_workspace(tmp_path / "ws", ep.url, ep.model, rows, timeout=10, workers=workers,
                                 max_concurrency=workers)
        procs = [subprocess.Popen(driver_cmd(), cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    loser = outs[[p.returncode for p in procs].index(1)][1] if codes == [0, 1] else ""
    clear = "stage 'reldriver' is already running (pid" in loser
    written = output_ids(root)
    lost, dup = lost_and_duplicated([r["id"] for r in rows], written)
    TABLE.add("two runs of one stage" + (f", {workers} workers" if workers > 1 else ""), trials=1, lost=lost,
              duplicated=dup, clear=clear, note="second refuses: StageBusy")
    assert codes == [0, 1] and clear, outs
    assert (lost, dup) == (0, 0)
    read_jsonl(root / OUT, "reflection")


def test_two_dvc_repro_on_one_workspace(project, rows: list[dict]) -> None:
    use_driver_pipeline(project, rows)
    exe = str(BIN / "dvc")
    procs = [subprocess.Popen([exe, "repro"], cwd=project.path, env=project.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    codes = [p.returncode for p in procs]
    text = "\n".join(o + e for o, e in outs)
    # DVC's repo lock: the second either refuses ("Unable to acquire lock") or, if the first had finished, finds
    # the stage up to date; our stage lock backs it up when a stage command is started by hand meanwhile.
    refused = any(c != 0 for c in codes)
    clear = (not refused) or any(m in text for m in ("Unable to acquire lock", "is busy, it is being blocked by",
                                                     "already running"))
    written = output_ids(project.path)
    lost, dup = lost_and_duplicated([r["id"] for r in rows], written)
    TABLE.add("two dvc repro", trials=1, lost=lost, duplicated=dup, clear=clear,
              note="second refused by DVC's lock" if refused else "ran one after the other")
    assert 0 in codes and clear, text[-3000:]
    assert (lost, dup) == (0, 0)
    assert "up to date" in project.run("dvc", "status").stdout.lower() or not project.run("dvc", "status").stdout.strip()


_WORKER = """
import sys, threading
from pathlib import Path
from llm.client import LLMClient
from llm.settings import LLMSettings
url, cache, wid = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
s = LLMSettings(endpoint=url, model="scripted", timeout=10, retries=3, backoff=0.01, max_concurrency=4)
bad = []
def run(tid):
    try:
        with LLMClient(s, cache_dir=cache) as c:
            for n in range(40):
                p = f"prompt {(wid * 7 + tid * 3 + n) % 60}"
                if c.complete("actor", p).text != "answer to " + p:
                    bad.append(p)
    except Exception as exc:  # a thread's exception does not reach the exit code by itself
        bad.append(f"thread {tid}: {exc!r}")
ts = [threading.Thread(target=run, args=(t,)) for t in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(bad); sys.exit(1 if bad else 0)
"""


def test_llm_cache_many_writers(tmp_path: Path) -> None:
    """4 processes x 4 threads x 40 calls through LLMClient on one SQLite cache: intact, every answer right."""
    cache = tmp_path / "llm"
    with ScriptedEndpoint(lambda req: f"answer to {req.prompt}") as ep:
        procs = [subprocess.Popen([str(BIN / "python"), "-c", _WORKER, ep.url, str(cache), str(w)], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(4)]
        outs = [p.communicate(timeout=300) for p in procs]
    db = sqlite3.connect(cache / "llm.sqlite")
    integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    responses = dict(db.execute("SELECT key, response FROM responses").fetchall())
    calls = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    db.close()
    texts = {json.loads(v)["text"] for v in responses.values()}
    ok = all(p.returncode == 0 for p in procs) and integrity == "ok"
    TABLE.add("concurrent LLM cache writers", trials=4 * 4 * 40, lost=640 - calls, clear=ok,
              note=f"sqlite integrity {integrity}, {len(responses)} keys")
    assert ok, outs
    assert calls == 640  # every call accounted once
    assert texts == {f"answer to prompt {i}" for i in range(60)} and len(responses) == 60


def test_output_file_never_torn_by_concurrent_writers(tmp_path: Path, rows: list[dict]) -> None:
    """Writers replace a JSONL file atomically while readers read it: readers only ever see a whole version."""
    target = tmp_path / "tasks.jsonl"
    versions = [rows[: k + 1] for k in range(len(rows))]
    write_jsonl(target, versions[0], "task")
    stop, errors, reads = threading.Event(), [], [0]

    def writer(k: int) -> None:
        while not stop.is_set():
            write_jsonl(target, versions[k % len(versions)], "task")

    def reader() -> None:
        valid = {tuple(r["id"] for r in v) for v in versions}
        while not stop.is_set():
            try:
                got = tuple(r["id"] for r in read_jsonl(target, "task").records)
            except RecordError as exc:
                errors.append(str(exc))
                continue
            reads[0] += 1
            if got not in valid:
                errors.append(f"mixed file: {got}")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)] + [threading.Thread(target=reader)]
    for t in threads:
        t.start()
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join()
    TABLE.add("concurrent output writers", trials=reads[0], clear=not errors, note="atomic replace, readers never torn")
    assert not errors, errors[:3]
    assert reads[0] > 10 and not list(tmp_path.glob(".*.tmp"))
