"""Nothing left running: a run stopped by SIGTERM or Ctrl-C takes its Prefect server and its command with it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.processes import descendants, wait_for, wait_gone

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def env_for(ws: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{BIN}:{os.environ['PATH']}",
               PREFECT_HOME=str(ws / ".cache" / "prefect"), PREFECT_SERVER_ANALYTICS_ENABLED="false")
    env.pop("PREFECT_API_URL", None)  # the run starts its own server
    return env


def command_lines(procs: dict[int, int]) -> list[str]:
    out = []
    for pid in procs:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_to_a_run_stops_its_command_and_prefect_server(tmp_path: Path, sig: signal.Signals) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "params.yaml").write_text("{}\n")  # a workspace: the server's home and log live here
    run = subprocess.Popen([sys.executable, "-m", "flows.runtime.prefect_server", "--", "sleep", "300"], cwd=ws,
                           env=env_for(ws), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # The command starts once the server is healthy: then the whole tree is there.
        tree = wait_for(lambda: (d := descendants(run.pid)) and any(c.startswith("sleep 300")
                                                                   for c in command_lines(d)) and d,
                        timeout=180, what="the Prefect server and the command")
        assert any(" server start" in c for c in command_lines(tree)), command_lines(tree)
        run.send_signal(sig)
        assert run.wait(timeout=90) == 128 + sig
        assert wait_gone(tree, timeout=10) == {}
    finally:
        if run.poll() is None:
            run.kill()


PYTEST_RUN = textwrap.dedent('''
    import time

    def test_waits(prefect_server):
        print("SERVER UP", prefect_server, flush=True)
        time.sleep(300)
''')


def test_sigterm_to_pytest_stops_the_session_prefect_server(tmp_path: Path) -> None:
    """What `timeout` does to a test run: the session's Prefect server must not outlive pytest."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "test_wait.py").write_text(PYTEST_RUN)
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-s", "-p", "tests.conftest", "-p", "no:cacheprovider",
                            "--rootdir", str(ws), str(ws / "test_wait.py")],
                           cwd=ws, env=env_for(ws), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert run.stdout is not None
        for line in run.stdout:
            if "SERVER UP" in line:
                break
        tree = descendants(run.pid)
        assert any(" server start" in c for c in command_lines(tree)), command_lines(tree)
        run.send_signal(signal.SIGTERM)
        run.wait(timeout=90)
        assert wait_gone(tree, timeout=10) == {}
    finally:
        if run.poll() is None:
            run.kill()


def test_sigterm_to_a_stage_stops_prefects_temporary_server(tmp_path: Path) -> None:
    """`hindsight stage` without a server starts Prefect's temporary one: SIGTERM must not orphan it."""
    ws = tmp_path / "ws"
    (ws / "data" / "relabel").mkdir(parents=True)
    (ws / "params.yaml").write_text((ROOT / "params.yaml").read_text())
    for name in ("completions.jsonl", "critic_samples.jsonl", "rollouts.jsonl"):
        (ws / "data" / "relabel" / name).write_text("")
    run = subprocess.Popen([str(BIN / "hindsight"), "stage", "pool"], cwd=ws, env=env_for(ws),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        tree = wait_for(lambda: descendants(run.pid), timeout=120, what="Prefect's temporary server")
        run.send_signal(signal.SIGTERM)
        out = run.communicate(timeout=90)[0]
        assert run.returncode == 128 + signal.SIGTERM, out[-2000:]
        assert "hindsight: terminated" in out and "Traceback" not in out, out[-2000:]
        assert wait_gone(tree, timeout=10) == {}
    finally:
        if run.poll() is None:
            run.kill()


def test_sigkill_of_the_owner_takes_its_prefect_server_and_command(tmp_path: Path) -> None:
    """SIGKILL runs no cleanup in the owner: the watchdog (flows.runtime.watchdog) must stop what it started."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "params.yaml").write_text("{}\n")
    run = subprocess.Popen([sys.executable, "-m", "flows.runtime.prefect_server", "--", "sleep", "300"], cwd=ws,
                           env=env_for(ws), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        tree = wait_for(lambda: (d := descendants(run.pid)) and any(c.startswith("sleep 300")
                                                                   for c in command_lines(d)) and d,
                        timeout=180, what="the Prefect server and the command")
        assert any(" server start" in c for c in command_lines(tree)), command_lines(tree)
        run.kill()
        run.wait(timeout=10)
        assert wait_gone(tree, timeout=30) == {}
    finally:
        if run.poll() is None:
            run.kill()


def test_sigkill_of_a_stage_takes_prefects_temporary_server(tmp_path: Path) -> None:
    """`hindsight stage` without a server starts Prefect's temporary one: a SIGKILL of the stage must not orphan
    it (flows.runtime.prefect_server.guard_temporary_server)."""
    ws = tmp_path / "ws"
    (ws / "data" / "relabel").mkdir(parents=True)
    (ws / "params.yaml").write_text((ROOT / "params.yaml").read_text())
    for name in ("completions.jsonl", "critic_samples.jsonl", "rollouts.jsonl"):
        (ws / "data" / "relabel" / name).write_text("")
    run = subprocess.Popen([str(BIN / "hindsight"), "stage", "pool"], cwd=ws, env=env_for(ws),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        tree = wait_for(lambda: (d := descendants(run.pid)) and any("uvicorn" in c for c in command_lines(d)) and d,
                        timeout=120, what="Prefect's temporary server")
        run.kill()
        run.wait(timeout=10)
        assert wait_gone(tree, timeout=30) == {}
    finally:
        if run.poll() is None:
            run.kill()
