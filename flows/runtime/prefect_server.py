"""One Prefect server shared by every stage of a run (an ephemeral server per stage process costs ~15 s each).

    python -m flows.runtime.prefect_server -- dvc repro     # what `make run` does

The server and the command each run in their own process group. When the owner exits, normally or on Ctrl-C or
SIGTERM, the command's group gets the signal and then the server's group is stopped: nothing is left running.
A SIGKILL of the owner runs none of that: each group is led by a watchdog (flows/runtime/watchdog.py) that stops
it when the owner's end of a pipe closes, however the owner died.
"""
from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

from flows.runtime.shutdown import exit_code, run_command, sigterm_as_interrupt, stop_group
from flows.runtime.watchdog import guard_pid, spawn_guarded
from flows.runtime.workspace import project_dir


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def prefect_server(home: Path | None = None, timeout: float = 120.0) -> Iterator[str]:
    """Start `prefect server start` on 127.0.0.1 and yield its API URL; stop it (and all it started) on exit.

    While inside, SIGTERM unwinds like Ctrl-C (`flows.runtime.shutdown.Terminated`), so the server is stopped then too.
    """
    home = home or project_dir() / ".cache" / "prefect"
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = dict(os.environ, PREFECT_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_ENABLED="false", PREFECT_API_URL="")
    prefect = Path(sys.executable).with_name("prefect")
    url = f"http://127.0.0.1:{port}/api"
    with sigterm_as_interrupt(), (home / "server.log").open("ab") as log:
        # Its own session: a terminal's Ctrl-C reaches the owner, which stops the server once the work is done;
        # under a watchdog, so that it goes with the owner even when the owner is SIGKILLed.
        proc = spawn_guarded([str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                             env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            _wait_healthy(proc, url, home / "server.log", timeout)
            yield url
        finally:
            stop_group(proc)


def guard_temporary_server() -> None:
    """Make Prefect's temporary server (what a flow starts when PREFECT_API_URL is unset) stop when this process
    dies, even by SIGKILL: a sidecar watchdog watches each one Prefect starts (flows.runtime.watchdog.guard_pid).
    Prefect stops it itself on a normal exit, Ctrl-C and SIGTERM (its atexit), as before. Wraps the method that
    starts it (a private one of prefect.server.api.server.SubprocessASGIServer): if a Prefect release renames it,
    nothing is wrapped and a warning says so."""
    if os.environ.get("PREFECT_API_URL"):
        return  # a server someone else runs: not ours to stop
    # Here: Prefect's server modules take ~3 s to import (python -X importtime, 2 cores), and only a stage needs them.
    from prefect.server.api.server import SubprocessASGIServer

    start = getattr(SubprocessASGIServer, "_run_uvicorn_command", None)
    if start is None:
        logging.getLogger(__name__).warning("Prefect's temporary server is not guarded: this Prefect has no "
                                            "SubprocessASGIServer._run_uvicorn_command")
        return
    if getattr(start, "guarded", False):
        return

    def run_guarded(self: SubprocessASGIServer) -> subprocess.Popen:
        proc = start(self)
        guard_pid(proc.pid)
        return proc

    run_guarded.guarded = True  # type: ignore[attr-defined]
    SubprocessASGIServer._run_uvicorn_command = run_guarded  # type: ignore[method-assign]


def _wait_healthy(proc: subprocess.Popen, url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"Prefect server did not start (see {log})") from None
            time.sleep(0.5)


def main(argv: list[str]) -> int:
    """Run a command with PREFECT_API_URL pointing at a fresh shared server; exit with the command's status."""
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("usage: python -m flows.runtime.prefect_server -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    try:
        with sigterm_as_interrupt():
            if os.environ.get("PREFECT_API_URL"):  # the user already runs a server: use it
                return run_command(argv)
            with prefect_server() as url:
                return run_command(argv, env=dict(os.environ, PREFECT_API_URL=url))
    except KeyboardInterrupt as exc:  # by now the command's group got the signal and the server is stopped
        return exit_code(exc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
