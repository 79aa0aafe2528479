"""Which processes a test run left behind: descendants of a pid, read from /proc (Linux), by pid and start time."""
from __future__ import annotations

import os
import time
from pathlib import Path


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time in clock ticks, state) of a live process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "; comm may hold spaces
    return int(fields[1]), int(fields[19]), fields[0]


def descendants(pid: int) -> dict[int, int]:
    """Every live descendant of `pid` (children, grandchildren, ... whatever session they moved to): pid -> start."""
    parent_of: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))) is not None and st[2] != "Z":
            parent_of[int(entry)] = (st[0], st[1])
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, start) in parent_of.items():
            if ppid == parent and child not in found:
                found[child] = start
                frontier.append(child)
    return found


def still_running(procs: dict[int, int]) -> dict[int, str]:
    """Those of `procs` (pid -> start time) still running, as pid -> command line (zombies count as gone)."""
    left = {}
    for pid, start in procs.items():
        st = _stat(pid)
        if st is not None and st[1] == start and st[2] != "Z":
            try:
                left[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
    return left


def wait_gone(procs: dict[int, int], timeout: float) -> dict[int, str]:
    """Wait up to `timeout` s for `procs` to end; return those still running."""
    deadline = time.monotonic() + timeout
    while (left := still_running(procs)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def wait_for(predicate, timeout: float, what: str):  # type: ignore[no-untyped-def]
    """Poll `predicate()` until it returns something truthy (returned) or fail after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
