"""The embedded OpenAI-compatible server's lifecycle: started on demand, shared, and stopped with its owner.

`ensure_server(model)` returns a base URL: a running server announced in the registry (`llm.registry`)
when there is one, else a child process (`llm.llama_app`) started for this process and stopped when it
exits. `hindsight llm serve` runs the same server in the foreground so several stages share one warm server
(and its prompt-prefix cache).

Ownership: a server belongs to the process that started it; others only borrow it through the state file.
The owner stops it at exit (atexit), and the server watches its owner and stops itself within about a
second once the owner is gone, however it ended (SIGTERM, SIGKILL): nothing outlives its owner.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from llm.llama_app import OPENMP_ENV, ServerOptions, run_app
from llm.locks import file_lock
from llm.paths import llm_cache_dir
from llm.presets import ensure_model, preset
from llm.registry import (HOST, START_TIMEOUT_S, ServerState, announce, healthy, lock_path, log_path,
                                  running_server, state_path, withdraw)

log = logging.getLogger(__name__)

CHILD_MODULE = "llm.llama_app"  # what the child process runs (`python -m`)


class EmbeddedServer:
    """A llama.cpp server child process serving one preset; `start()` blocks until it is healthy."""

    def __init__(self, model: str, options: ServerOptions = ServerOptions(), cache_dir: Path | None = None) -> None:
        self.model = model
        self.options = options
        self.cache_dir = cache_dir or llm_cache_dir()
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """OpenAI base URL (valid after start)."""
        if self.port is None:
            raise RuntimeError("server not started")
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """Process id of the server, if started."""
        return self._proc.pid if self._proc else None

    def start(self, timeout: float = START_TIMEOUT_S) -> str:
        """Start the server and wait for its health check; return its base URL."""
        path = ensure_model(self.model)  # sha256 checked (sidecar) before every start
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        cmd = [sys.executable, "-m", CHILD_MODULE, "--model", self.model, "--port", str(self.port),
               *self.options.argv(), "--parent", str(os.getpid()), "--model-path", str(path)]
        _rotate(log_path(self.model, self.cache_dir))
        logfile = log_path(self.model, self.cache_dir).open("ab")
        logfile.write(f"\n=== {time.strftime('%Y-%m-%dT%H:%M:%S')} start {self.model} port {self.port}\n".encode())
        logfile.flush()
        log.info("starting embedded %s server on %s:%s (log %s)", self.model, HOST, self.port, logfile.name)
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}  # the server never sees the key
        root = str(Path(__file__).resolve().parents[1])  # importable even when the project is not installed
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        for key, value in OPENMP_ENV.items():
            env.setdefault(key, value)
        self._proc = subprocess.Popen(cmd, stdout=logfile, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      env=env, start_new_session=True)
        logfile.close()
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self._proc.poll() is not None:
                    raise RuntimeError(f"embedded {self.model} server exited with {self._proc.returncode}; "
                                       f"see {log_path(self.model, self.cache_dir)}:\n"
                                       f"{_tail(log_path(self.model, self.cache_dir))}")
                if healthy(self.base_url, self.model, timeout=1.0):
                    log.info("embedded %s server ready at %s (pid %s)", self.model, self.base_url, self._proc.pid)
                    return self.base_url
                time.sleep(0.2)
            raise RuntimeError(f"embedded {self.model} server not healthy after {timeout:.0f} s; "
                               f"see {log_path(self.model, self.cache_dir)}")
        except BaseException:
            # Not yet registered as owned (atexit would miss it): a failed or interrupted start
            # (Ctrl-C, SIGTERM raised as an exception) stops the child here.
            self.stop()
            raise

    def state(self) -> ServerState:
        """State to announce for reuse by other processes."""
        assert self._proc is not None and self.port is not None
        return ServerState(model=self.model, port=self.port, pid=self._proc.pid, sha256=preset(self.model).sha256,
                           n_ctx=self.options.n_ctx, started=time.time())

    def running(self) -> bool:
        """True while the child process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after 5 s) and withdraw its state file."""
        if self._proc is None:
            return
        pid = self._proc.pid
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        withdraw(state_path(self.model, self.cache_dir), pid)
        self._proc = None


# Servers this process started, by (cache dir, model); stopped at exit.
_owned: dict[tuple[str, str], EmbeddedServer] = {}
_owned_lock = threading.Lock()


def ensure_server(model: str, options: ServerOptions = ServerOptions(), cache_dir: Path | None = None) -> str:
    """Return the base URL of a healthy embedded server of `model`, reusing a running one or starting one."""
    preset(model)  # unknown names fail before anything starts
    cache_dir = cache_dir or llm_cache_dir()
    cache_dir.mkdir(parents=True, exist_ok=True)
    key = (str(cache_dir), model)
    with _owned_lock:
        mine = _owned.get(key)
        if mine is not None and mine.running():  # our own child: alive is enough (it was healthy at start)
            return mine.base_url
        # One process at a time decides whether to start a server; the others then find and reuse it.
        with file_lock(lock_path(model, cache_dir)):
            state = running_server(model, cache_dir)
            if state is not None:
                log.debug("reusing embedded %s server at %s (pid %s)", model, state.base_url, state.pid)
                return state.base_url
            if mine is not None:
                mine.stop()
            server = EmbeddedServer(model, options, cache_dir)
            url = server.start()
            _owned[key] = server  # owned first: stopped at exit even if announcing it fails
            announce(state_path(model, cache_dir), server.state())
            return url


def stop_owned_servers() -> None:
    """Stop every server this process started (registered with atexit)."""
    with _owned_lock:
        for server in _owned.values():
            with contextlib.suppress(Exception):
                server.stop()
        _owned.clear()


atexit.register(stop_owned_servers)


def serve_foreground(model: str, options: ServerOptions = ServerOptions(), port: int | None = None,
                     cache_dir: Path | None = None) -> int:
    """Run the server in this process until interrupted (`hindsight llm serve`); announce it for reuse."""
    cache_dir = cache_dir or llm_cache_dir()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with file_lock(lock_path(model, cache_dir)):
        existing = running_server(model, cache_dir)
        if existing is not None:
            log.error("an embedded %s server already runs at %s (pid %s)", model, existing.base_url, existing.pid)
            return 1
        path = ensure_model(model)
        port = port or _free_port()
        state = ServerState(model=model, port=port, pid=os.getpid(), sha256=preset(model).sha256,
                            n_ctx=options.n_ctx, started=time.time())
        announce(state_path(model, cache_dir), state)
    log.info("serving %s at %s (Ctrl-C to stop)", model, state.base_url)
    try:
        run_app(model, path, port, options)
    finally:
        withdraw(state_path(model, cache_dir), os.getpid())
    return 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _rotate(path: Path, limit: int = 20 << 20) -> None:
    # llama.cpp logs a few KB per request: keep one previous log, never an ever-growing one.
    with contextlib.suppress(OSError):
        if path.stat().st_size > limit:
            os.replace(path, path.with_name(path.name + ".1"))


def _tail(path: Path, n: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""
