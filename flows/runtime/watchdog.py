"""Children that die with their owner, even when the owner is SIGKILLed.

A SIGKILL runs no `finally`: a server the owner started in its own process group (the Prefect server, the
command of `make run`) would be left running, orphaned. `spawn_guarded(argv)` starts `argv` under this module run
as a tiny watchdog process (standard library only, no site packages: it starts in ~20 ms). The watchdog leads
the child's process group and holds the read end of a pipe whose only write end is the owner's. The kernel
closes that end when the owner dies, however it dies; the watchdog then reads EOF and stops the whole group
(SIGTERM, then SIGKILL after a grace period), grandchildren included, as long as they stayed in the group.

Stopping it the ordinary way is unchanged: signal the group (flows.runtime.shutdown.stop_group). The watchdog
ignores SIGINT and SIGTERM itself, waits for its child and exits with the child's status (128 + signal when a
signal ended it), so the group's leader is the last to go.

`guard_pid(pid)` is the same watch for a process someone else started (Prefect's temporary server, whose Popen
is Prefect's): a sidecar watchdog in its own session stops that process (after checking by its start time that
the pid was not reused) once the owner's pipe closes. Stopping the process the ordinary way is left to whoever
started it.

    python -I -S flows/runtime/watchdog.py FD GRACE -- COMMAND [ARGS...]
    python -I -S flows/runtime/watchdog.py FD GRACE --pid PID START
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


def spawn_guarded(argv: list[str], grace: float = 10.0, **popen: Any) -> subprocess.Popen:
    """Start `argv` in its own process group under a watchdog that stops the group when this process dies.

    `popen` goes to subprocess.Popen (env, cwd, stdout, ...); unless it says otherwise the group is a new
    session (`start_new_session=True`). The returned Popen is the watchdog's: it leads the group, its exit status
    is the command's, and stop_group(proc) stops both."""
    read_end, write_end = os.pipe()  # both close-on-exec: only the watchdog gets the read end (pass_fds)
    if not popen.get("start_new_session") and popen.get("process_group") is None:
        popen["start_new_session"] = True
    cmd = [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(read_end), str(grace), "--", *argv]
    try:
        proc = subprocess.Popen(cmd, pass_fds=(read_end,), **popen)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    proc._owner_pipe = write_end  # type: ignore[attr-defined]  # kept open for the owner's lifetime
    return proc


def guard_pid(pid: int, grace: float = 10.0) -> subprocess.Popen | None:
    """Stop process `pid` (with SIGTERM, then SIGKILL after `grace` s) when this process dies, however it dies;
    None when `pid` is already gone."""
    start = _start_time(pid)
    if start is None:
        return None
    read_end, write_end = os.pipe()
    cmd = [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(read_end), str(grace), "--pid", str(pid),
           str(start)]
    try:
        proc = subprocess.Popen(cmd, pass_fds=(read_end,), start_new_session=True, stdin=subprocess.DEVNULL)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    proc._owner_pipe = write_end  # type: ignore[attr-defined]  # kept open for the owner's lifetime
    return proc


def _start_time(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return None if fields[0] == "Z" else int(fields[19])


def _wait_eof(fd: int) -> None:
    while True:
        try:
            if not os.read(fd, 1):  # EOF: the owner's write end closed (it exited or was killed)
                return
        except InterruptedError:
            continue


def _stop_pid(fd: int, pid: int, start: int, grace: float) -> int:
    _wait_eof(fd)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if _start_time(pid) != start:  # gone (or the pid now names another process)
            return 0
        os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and _start_time(pid) == start:
            time.sleep(0.1)
    return 0


def _stop_group(grace: float) -> None:
    """The owner is gone: stop the whole group (this process survives SIGTERM, not the final SIGKILL)."""
    group = os.getpgrp()
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _others_in_group(group):
        time.sleep(0.1)
    os.killpg(group, signal.SIGKILL)  # stragglers, and this watchdog last


def _others_in_group(group: int) -> bool:
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[2]) == group:
            return True
    return False


_stopping = threading.Event()


def _watch(fd: int, grace: float) -> None:
    _wait_eof(fd)
    _stopping.set()
    _stop_group(grace)


def main(argv: list[str]) -> int:
    """Run the command, stop its group when the pipe from the owner closes; exit with the command's status."""
    fd, grace, sep, *cmd = argv
    if sep == "--pid" and len(cmd) == 2:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the owner
        return _stop_pid(int(fd), int(cmd[0]), int(cmd[1]), float(grace))
    if sep != "--" or not cmd:
        print("usage: watchdog.py FD GRACE -- COMMAND [ARGS...] | watchdog.py FD GRACE --pid PID START",
              file=sys.stderr)
        return 2
    for sig in (signal.SIGINT, signal.SIGTERM):  # the group's signals are for the command; it ends us by exiting
        signal.signal(sig, signal.SIG_IGN)
    # The command gets the default dispositions back (an ignored signal would stay ignored across exec).
    child = subprocess.Popen(cmd, preexec_fn=_default_signals)
    watcher = threading.Thread(target=_watch, args=(int(fd), float(grace)), daemon=True)
    watcher.start()
    code = child.wait()
    if _stopping.is_set():  # the owner died: see the group stopped to the last grandchild before leaving
        watcher.join()
    return 128 - code if code < 0 else code


def _default_signals() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
