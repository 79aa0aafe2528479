"""The embedded OpenAI-compatible server: llama-cpp-python on 127.0.0.1, started on demand and shared.

`ensure_server(model)` returns a base URL: a running server announced in `.cache/llm/server-<model>.json`
(pid + port + model, confirmed by a health request) when there is one, else a child process started for
this process and stopped when it exits. `hindsight llm serve` runs the same server in the foreground so
several stages share one warm server (and its prompt-prefix cache).

Ownership: a server belongs to the process that started it; others only borrow it through the state file.
The owner stops it at exit (atexit), and the server watches its owner and stops itself within about a
second once the owner is gone, however it ended (SIGTERM, SIGKILL): nothing outlives its owner.
"""
from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

from planner.llm.paths import llm_cache_dir
from planner.llm.presets import ensure_model, preset

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class ServerOptions:
    """Flags of the llama.cpp server that matter on a small CPU machine (measured: see the brief)."""

    n_ctx: int = 4096
    n_threads: int | None = None  # None: every core this process may use
    cache_mb: int = 1024          # bounded prompt-prefix cache (unbounded grew to 12 GB)

    def threads(self) -> int:
        """Threads to run with."""
        return self.n_threads or max(1, len(os.sched_getaffinity(0)))


@dataclass(frozen=True)
class ServerState:
    """What a running server announces in its state file."""

    model: str
    port: int
    pid: int
    sha256: str
    n_ctx: int
    started: float

    @property
    def base_url(self) -> str:
        """OpenAI base URL of the server."""
        return f"http://{HOST}:{self.port}/v1"


def state_path(model: str, cache_dir: Path | None = None) -> Path:
    """Where the running server of `model` announces itself."""
    return (cache_dir or llm_cache_dir()) / f"server-{model}.json"


def log_path(model: str, cache_dir: Path | None = None) -> Path:
    """The server's log file (llama.cpp load and timing lines; never prompts, never keys)."""
    return (cache_dir or llm_cache_dir()) / f"server-{model}.log"


def healthy(base_url: str, model: str, timeout: float = 2.0) -> bool:
    """True if the server at `base_url` answers /models with `model`."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as resp:
            data = json.loads(resp.read())
        return any(m.get("id") == model for m in data.get("data", []))
    except (OSError, ValueError, urllib.error.URLError):
        return False


def running_server(model: str, cache_dir: Path | None = None, wait: float = 60.0) -> ServerState | None:
    """Return the state of a live, healthy server of `model`, or None.

    A server announced moments ago may still be loading its model: wait up to `wait` seconds for it.
    """
    path = state_path(model, cache_dir)
    try:
        state = ServerState(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if state.sha256 != preset(model).sha256:
        return None
    deadline = time.monotonic() + (wait if time.time() - state.started < START_TIMEOUT_S else 0.0)
    while _alive(state.pid):
        if healthy(state.base_url, model):
            return state
        if time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    return None


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
        cmd = [sys.executable, "-m", "planner.llm.server", "--model", self.model, "--port", str(self.port),
               "--n-ctx", str(self.options.n_ctx), "--n-threads", str(self.options.threads()),
               "--cache-mb", str(self.options.cache_mb), "--parent", str(os.getpid()), "--model-path", str(path)]
        _rotate(log_path(self.model, self.cache_dir))
        logfile = log_path(self.model, self.cache_dir).open("ab")
        logfile.write(f"\n=== {time.strftime('%Y-%m-%dT%H:%M:%S')} start {self.model} port {self.port}\n".encode())
        logfile.flush()
        log.info("starting embedded %s server on %s:%s (log %s)", self.model, HOST, self.port, logfile.name)
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}  # the server never sees the key
        root = str(Path(__file__).resolve().parents[2])  # importable even when the project is not installed
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
        _withdraw(state_path(self.model, self.cache_dir), pid)
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
        with _flock(cache_dir / f"server-{model}.lock"):
            state = running_server(model, cache_dir)
            if state is not None:
                log.debug("reusing embedded %s server at %s (pid %s)", model, state.base_url, state.pid)
                return state.base_url
            if mine is not None:
                mine.stop()
            server = EmbeddedServer(model, options, cache_dir)
            url = server.start()
            _owned[key] = server  # owned first: stopped at exit even if announcing it fails
            _write_state(state_path(model, cache_dir), server.state())
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
    with _flock(cache_dir / f"server-{model}.lock"):
        existing = running_server(model, cache_dir)
        if existing is not None:
            log.error("an embedded %s server already runs at %s (pid %s)", model, existing.base_url, existing.pid)
            return 1
        path = ensure_model(model)
        port = port or _free_port()
        state = ServerState(model=model, port=port, pid=os.getpid(), sha256=preset(model).sha256,
                            n_ctx=options.n_ctx, started=time.time())
        _write_state(state_path(model, cache_dir), state)
    log.info("serving %s at %s (Ctrl-C to stop)", model, state.base_url)
    try:
        _run_uvicorn(model, path, port, options)
    finally:
        _withdraw(state_path(model, cache_dir), os.getpid())
    return 0


def _cpu_has_amx() -> bool:
    try:
        return " amx_int8" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def _disable_extra_buffer_types() -> None:
    # llama.cpp's AMX matmul (an "extra buffer type") segfaults in llama_decode on this build on AMX CPUs
    # (gdb: ggml_backend_amx_mul_mat). Turning extra buffer types off avoids it; llama-cpp-python exposes
    # no flag, so patch the default model params it starts from. Costs weight repacking on such CPUs only.
    import llama_cpp
    import llama_cpp.llama as llama_mod

    original = llama_cpp.llama_model_default_params

    def params():  # type: ignore[no-untyped-def]
        p = original()
        p.use_extra_bufts = False
        return p

    llama_cpp.llama_model_default_params = params
    llama_mod.llama_cpp.llama_model_default_params = params


def _install_bounded_cache() -> None:
    # llama-cpp-python's LlamaRAMCache bounds only the KV bytes of its states, but every state also holds a
    # copy of up to n_batch rows of logits (n_batch x n_vocab floats: ~300 MB for Qwen, ~540 MB for Gemma),
    # so the "bounded" cache grew to 12 GB. Count every byte, and keep only the last logits row: after a
    # restore, generate() re-evaluates at least one token before sampling, so older rows are never read.
    import llama_cpp

    class BoundedRAMCache(llama_cpp.LlamaRAMCache):  # type: ignore[misc, name-defined]
        @property
        def cache_size(self) -> int:
            return sum(s.llama_state_size + s.scores.nbytes + s.input_ids.nbytes for s in self.cache_state.values())

        def __setitem__(self, key, value) -> None:  # type: ignore[no-untyped-def]
            if getattr(value.scores, "ndim", 0) == 2 and value.scores.shape[0] > 1:
                value.scores = value.scores[-1:].copy()
            super().__setitem__(key, value)

    llama_cpp.LlamaRAMCache = BoundedRAMCache  # the server's model loader looks it up here


# OpenMP threads of llama.cpp spin-wait between steps by default: alone on 2 cores that is fastest, but two
# processes spinning on the same cores (two servers, or a server and torch) cut decoding to ~2.7 tok/s each
# (Gemma). Spinning briefly keeps solo speed (43 tok/s) and gives ~18 tok/s each when two share the cores.
# Measured on this 2-core machine; override by setting GOMP_SPINCOUNT / OMP_WAIT_POLICY yourself.
OPENMP_ENV = {"GOMP_SPINCOUNT": "1000"}


def _run_uvicorn(model: str, path: Path, port: int, options: ServerOptions) -> None:
    for key, value in OPENMP_ENV.items():  # before libgomp loads with llama_cpp
        os.environ.setdefault(key, value)
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    p = preset(model)
    if _cpu_has_amx():
        _disable_extra_buffer_types()
    _install_bounded_cache()
    model_settings = ModelSettings(
        model=str(path), model_alias=model, n_ctx=options.n_ctx, n_threads=options.threads(),
        n_threads_batch=options.threads(), logits_all=False, cache=True, cache_type="ram",
        cache_size=options.cache_mb << 20, chat_format=p.chat_format, n_gpu_layers=0, verbose=True,
    )
    server_settings = ServerSettings(host=HOST, port=port)
    app = create_app(server_settings=server_settings, model_settings=[model_settings])
    uvicorn.run(app, host=HOST, port=port, log_level="warning", access_log=False)


def _watch_parent(parent: int) -> None:
    # A server started for one process must not outlive it (even after SIGKILL of the parent).
    while True:
        if not _alive(parent) or os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
            os._exit(0)
        time.sleep(1.0)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_state(path: Path, state: ServerState) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(state)))
    os.replace(tmp, path)


def _withdraw(path: Path, pid: int) -> None:
    # Remove the state file only if it still announces this server.
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == pid:
            path.unlink()


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


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _child_main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description="embedded llama.cpp server (child of a client process)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--model-path", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--n-threads", type=int, default=None)
    ap.add_argument("--cache-mb", type=int, default=1024)
    ap.add_argument("--parent", type=int, default=None)
    args = ap.parse_args(argv)
    if args.parent:
        threading.Thread(target=_watch_parent, args=(args.parent,), daemon=True).start()
    options = ServerOptions(n_ctx=args.n_ctx, n_threads=args.n_threads, cache_mb=args.cache_mb)
    _run_uvicorn(args.model, Path(args.model_path), args.port, options)


if __name__ == "__main__":
    _child_main()
