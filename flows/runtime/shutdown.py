"""Stopping cleanly: SIGTERM handled like Ctrl-C, and child process groups stopped as a whole.

Python's default SIGTERM ends the process at once: no `finally`, no `atexit`, so a server it started (Prefect,
llama.cpp, Prefect's ephemeral server) is left running. Inside `sigterm_as_interrupt()` SIGTERM raises
`Terminated`, a KeyboardInterrupt, so every owner unwinds and stops what it started, as it does on Ctrl-C.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from typing import Iterator

from flows.runtime.watchdog import spawn_guarded


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (raised like Ctrl-C so that cleanup code written for KeyboardInterrupt runs)."""


def exit_code(exc: KeyboardInterrupt) -> int:
    """The shell's exit status for a process stopped by this signal: 143 for SIGTERM, 130 for SIGINT."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises `Terminated` (main thread only; a handler someone else set is kept)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def group_alive(pgid: int) -> bool:
    """True while any process of process group `pgid` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _shielded() -> Iterator[None]:
    # A second Ctrl-C or SIGTERM must not interrupt the stopping itself (it would leave the group half-stopped).
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # (A handler installed outside Python reads as None and cannot be restored: leave that signal alone.)
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(s) is not None}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def stop_group(proc: subprocess.Popen, sig: int = signal.SIGTERM, grace: float = 30.0) -> None:
    """Send `sig` to the process group led by `proc`, wait up to `grace` s for all of it to exit, then SIGKILL."""
    with _shielded():
        _stop_group(proc, sig, grace)


def _stop_group(proc: subprocess.Popen, sig: int, grace: float) -> None:
    pgid = proc.pid  # started with start_new_session=True or process_group=0: it leads its own group
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)
    deadline = time.monotonic() + grace
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    # The leader may be gone while processes it started still run in its group: wait for them too.
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def run_command(argv: list[str], env: dict[str, str] | None = None, grace: float = 30.0) -> int:
    """Run `argv` in its own process group; on Ctrl-C or SIGTERM pass the signal to the whole group and stop it.
    The group is led by a watchdog (flows.runtime.watchdog) that stops it if this process dies without that."""
    proc = spawn_guarded(argv, grace=grace, env=env, process_group=0)
    try:
        return proc.wait()
    except KeyboardInterrupt as exc:
        stop_group(proc, signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT, grace)
        raise
