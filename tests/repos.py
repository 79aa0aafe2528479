"""Commands run with the test's venv, and a fresh git + DVC repository to run them in (what `pools diff`, `pools
export` and `compare` read versions from)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
ENV = dict(os.environ, DVC_NO_ANALYTICS="1", HF_HUB_OFFLINE="1")


def sh(cwd: Path, *cmd: str, env: dict[str, str] | None = None) -> str:
    """Run a command (the venv's binary when it has one) in `cwd`; its stdout, or AssertionError with its output."""
    exe = str(BIN / cmd[0]) if (BIN / cmd[0]).exists() else cmd[0]
    proc = subprocess.run([exe, *cmd[1:]], cwd=cwd, env=env or ENV, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def init_repo(repo: Path) -> Path:
    """A new folder holding an empty git repository (a committer set) with DVC initialised."""
    repo.mkdir(parents=True)
    for cmd in (["git", "init", "-q"], ["git", "config", "user.email", "t@example.com"],
                ["git", "config", "user.name", "t"], ["dvc", "init", "-q"]):
        sh(repo, *cmd)
    return repo
