"""A temporary copy of the project wired to one shared Prefect server and a scripted LLM endpoint."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from tests.fakes import Request, ScriptedEndpoint

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COPY = ["household", "pools", "planner", "flows", "schemas", "dvc.yaml", "params.yaml", ".dvcignore", "pyproject.toml"]


def answer(req: Request) -> str:
    """Plausible, parseable answers for every role, chosen from the prompt's wording."""
    prompt = req.prompt
    if "the value is" in prompt:
        n = max(1, len(re.findall(r"^\s*\d+\.\s", prompt.split("Values:")[-1], re.M)) or 2)
        return "\n".join(f"{i}. the value is 1/2" for i in range(1, n + 1))
    if "object=" in prompt or "object_target" in prompt:
        return "object=Apple parent=Fridge mrecep= toggle= state=none sliced=no two=no"
    return "Navigation CounterTop; PickupObject Apple; Stop"


@pytest.fixture
def project(tmp_path: Path, prefect_server: str) -> Iterator["Project"]:
    """A fresh git+DVC copy of the project with a tiny profile pointed at a scripted endpoint."""
    with ScriptedEndpoint(answer) as endpoint:
        yield Project(tmp_path / "proj", endpoint, prefect_server)


class Project:
    """Helpers to run commands in the copy."""

    def __init__(self, path: Path, endpoint: ScriptedEndpoint, prefect_url: str):
        self.path = path
        self.endpoint = endpoint
        path.mkdir()
        for name in COPY:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, path / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(src, path / name)
        params = yaml.safe_load((ROOT / "params.yaml").read_text())
        from flows.cmd_profile import endpoint_profile

        # Every role (also those the laptop profile pins to the embedded model) goes to the scripted endpoint.
        scripted = endpoint_profile(params, endpoint.url, endpoint.model)["llm"]
        params["llm"].update(endpoint=scripted["endpoint"], model=scripted["model"], timeout=5, retries=1)
        for role, over in scripted.get("roles", {}).items():
            params["llm"]["roles"][role].update(over)
        params["tasks"].update(splits=["train", "valid_seen"], task_types=["pick_and_place_simple",
                                                                           "pick_heat_then_place_in_recep"])
        params["pools"].update(gt_per_type=2)
        params["collect"].update(per_type=1)
        # The scripted answers never solve a task, so keep unverified samples to exercise the pool's plumbing.
        params["relabel"].update(keep_unverified=True)
        params["planner"].update(max_subgoals=6)
        params["evaluate"].update(variants=["hindsight", "llm_planner", "expert"], splits=["valid_seen"], per_type=1)
        params["evaluate"].update(compare=[{"a": "hindsight", "b": "llm_planner"}], bootstrap=1000)
        (path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        self.env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", PREFECT_API_URL=prefect_url,
                        PREFECT_HOME=str(path / ".cache" / "prefect"), DVC_NO_ANALYTICS="1")
        self.env.pop("OPENAI_API_KEY", None)
        self.run("git", "init", "-q")
        self.run("git", "config", "user.email", "t@example.com")
        self.run("git", "config", "user.name", "t")
        self.run("dvc", "init", "-q")
        self.run("dvc", "config", "core.analytics", "false")
        self.run("git", "add", "-A")
        self.run("git", "commit", "-qm", "init")

    def run(self, *cmd: str, check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess:
        """Run a command in the copy (binaries from the test's venv)."""
        exe = str(BIN / cmd[0]) if (BIN / cmd[0]).exists() else cmd[0]
        proc = subprocess.run([exe, *cmd[1:]], cwd=self.path, env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
        return proc

    def set_param(self, dotted: str, value: object) -> None:
        """Change one key of params.yaml."""
        params = yaml.safe_load((self.path / "params.yaml").read_text())
        node = params
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node[key]
        node[leaf] = value
        (self.path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
