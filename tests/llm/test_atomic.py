"""llm.atomic: a small file is replaced whole, and a failed write leaves the old one and no temp file."""
from __future__ import annotations

from pathlib import Path

import pytest

import llm.atomic
from llm.atomic import atomic_write_text


def test_writes_and_replaces_whole(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "server-x.json"
    atomic_write_text(path, "first")
    atomic_write_text(path, "second ✓")
    assert path.read_text(encoding="utf-8") == "second ✓"
    assert [p.name for p in path.parent.iterdir()] == ["server-x.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "state.json"
    atomic_write_text(path, "old")

    def broken(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(llm.atomic.os, "replace", broken)
    with pytest.raises(OSError):
        atomic_write_text(path, "new")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["state.json"]
