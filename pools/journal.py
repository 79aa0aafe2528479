"""Per-item checkpoints so a killed stage resumes from its completed items, and a lock so two runs never mix."""
from __future__ import annotations

import errno
import fcntl
import json
import os
from pathlib import Path
from typing import Any


JOURNAL_DIR_ENV = "HINDSIGHT_JOURNAL_DIR"


def journal_folder(project: Path) -> tuple[Path, bool]:
    """Where stage journals go, and whether a journal outlives its finished stage.

    $HINDSIGHT_JOURNAL_DIR: a folder that outlives the machine (a run split across sessions commits it); its journals
    are kept, so a fresh checkout rebuilds every finished stage from them with no LLM call and resumes the one in
    flight. One run at a time may use the folder: the stage lock is the workspace's, not the folder's.
    Else <project>/.cache/journal, where a journal is dropped once its stage's outputs are written.
    """
    env = os.environ.get(JOURNAL_DIR_ENV)
    if env:
        return Path(env).expanduser().resolve(), True
    return project / ".cache" / "journal", False


class StageBusy(RuntimeError):
    """Another process is running the same stage on this workspace."""


class Journal:
    """Append-only JSONL of finished items ({item, status, record|reason[, timing]}); fsync'd line by line."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.entries: dict[str, dict[str, Any]] = {}
        self._recover()
        self._fh = self.path.open("a", encoding="utf-8")

    def _recover(self) -> None:
        # A SIGKILL can leave a half-written last line: keep every complete line, cut the rest.
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        keep = data.rfind(b"\n") + 1
        for raw in data[:keep].splitlines():
            try:
                entry = json.loads(raw)
            except json.JSONDecodeError:
                continue  # only possible for a torn line followed by later appends; the item simply reruns
            self.entries[entry["item"]] = entry
        if keep != len(data):
            with self.path.open("r+b") as fh:
                fh.truncate(keep)

    def completed(self) -> dict[str, dict[str, Any]]:
        """Items finished successfully in this or an earlier (killed) run: item id -> record."""
        return {k: e["record"] for k, e in self.entries.items() if e["status"] == "ok"}

    def timings(self) -> dict[str, dict[str, Any]]:
        """Timing lines of the items finished successfully (pools/timing.py): item id -> line."""
        return {k: e["timing"] for k, e in self.entries.items() if e["status"] == "ok" and e.get("timing")}

    def append(self, item: str, status: str, record: dict[str, Any] | None = None, reason: str | None = None,
               timing: dict[str, Any] | None = None) -> None:
        """Record one finished item durably before the stage moves on (with its timing line, so a resumed stage
        still writes one for every record)."""
        entry = {"item": item, "status": status, "record": record, "reason": reason}
        if timing is not None:
            entry["timing"] = timing
        self._fh.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.entries[item] = entry

    def close(self) -> None:
        """Close the file (the journal stays until the stage's outputs are written)."""
        self._fh.close()


class StageLock:
    """Exclusive, non-blocking lock on a stage: a second run refuses at once with a clear message."""

    def __init__(self, path: Path | str, what: str):
        self.path, self.what = Path(path), what
        self._fd: int | None = None

    def __enter__(self) -> "StageLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                holder = self.path.read_text().strip() or "another process"
                raise StageBusy(f"{self.what} is already running (pid {holder}); wait for it to finish") from None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
