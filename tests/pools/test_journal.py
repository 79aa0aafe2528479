"""The journal survives a torn last line; the stage lock refuses a second runner."""
from __future__ import annotations

from pathlib import Path

import pytest

from pools.journal import Journal, StageBusy, StageLock


def test_torn_tail_is_cut_and_items_kept(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    j = Journal(path)
    j.append("a", "ok", record={"id": "a"})
    j.append("b", "failed", reason="LLMError: down")
    j.close()
    with path.open("a") as fh:
        fh.write('{"item": "c", "status": "ok", "rec')  # killed mid-write
    j2 = Journal(path)
    assert j2.completed() == {"a": {"id": "a"}}
    j2.append("c", "ok", record={"id": "c"})
    j2.close()
    assert set(Journal(path).completed()) == {"a", "c"}


def test_second_lock_refuses(tmp_path: Path) -> None:
    lock = tmp_path / "stage.lock"
    with StageLock(lock, "stage 'collect'"):
        with pytest.raises(StageBusy, match="stage 'collect' is already running"):
            with StageLock(lock, "stage 'collect'"):
                pass
    with StageLock(lock, "stage 'collect'"):
        pass
