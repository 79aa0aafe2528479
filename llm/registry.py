"""Running embedded servers, as announced in `.cache/llm/server-<model>.json`: state files, discovery, health.

A server announces itself (pid + port + model + model hash) so that other processes borrow it instead of starting
their own; an announcement counts only while its process lives and answers a health request with its model.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from llm.atomic import atomic_write_text
from llm.paths import llm_cache_dir
from llm.presets import preset

HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0


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


def lock_path(model: str, cache_dir: Path) -> Path:
    """The lock one process holds while it decides whether to start a server of `model`."""
    return cache_dir / f"server-{model}.lock"


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
    while alive(state.pid):
        if healthy(state.base_url, model):
            return state
        if time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    return None


def announce(path: Path, state: ServerState) -> None:
    """Write a server's state file (atomically: a reader never sees half an announcement)."""
    atomic_write_text(path, json.dumps(asdict(state)))


def withdraw(path: Path, pid: int) -> None:
    """Remove the state file only if it still announces the server with this pid."""
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == pid:
            path.unlink()


def alive(pid: int) -> bool:
    """True while process `pid` exists (a zombie counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
