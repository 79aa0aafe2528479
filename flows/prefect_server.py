"""One Prefect server shared by every stage of a run (an ephemeral server per stage process costs ~15 s each).

    python -m flows.prefect_server -- dvc repro     # what `make run` does
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

from flows.env import project_dir


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def prefect_server(home: Path | None = None, timeout: float = 120.0) -> Iterator[str]:
    """Start `prefect server start` on 127.0.0.1 and yield its API URL; stop it on exit."""
    home = home or project_dir() / ".cache" / "prefect"
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = dict(os.environ, PREFECT_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_ENABLED="false", PREFECT_API_URL="")
    log = (home / "server.log").open("ab")
    prefect = Path(sys.executable).with_name("prefect")
    proc = subprocess.Popen([str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"Prefect server did not start (see {home / 'server.log'})") from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def main(argv: list[str]) -> int:
    """Run a command with PREFECT_API_URL pointing at a fresh shared server."""
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("usage: python -m flows.prefect_server -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    if os.environ.get("PREFECT_API_URL"):  # the user already runs a server: use it
        return subprocess.call(argv)
    with prefect_server() as url:
        return subprocess.call(argv, env=dict(os.environ, PREFECT_API_URL=url))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
