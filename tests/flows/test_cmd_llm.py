"""`hindsight llm ask|stats` against the scripted endpoint (no model needed)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from flows.cli import cmd_llm
from llm.scripted import Fault, Reply, ScriptedEndpoint


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="hindsight")
    cmd_llm.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)  # no params.yaml here: defaults + flags


def test_ask_json_then_cached_then_stats(scripted_endpoint: ScriptedEndpoint, capsys: pytest.CaptureFixture) -> None:
    scripted_endpoint.push(Reply("Hi there", 3, 2))
    argv = ["llm", "ask", "Say hi", "--json", "--endpoint", scripted_endpoint.url, "--model", "scripted"]
    assert run(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert run(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["answer"] == second["answer"] == "Hi there"
    assert first["cached"] is False and second["cached"] is True
    assert {"model", "prompt_tokens", "completion_tokens", "seconds"} <= set(first)
    assert run(["llm", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["calls"] == 2 and stats["cache_hits"] == 1 and stats["prompt_tokens"] == 3


def test_ask_reports_llm_error(scripted_endpoint: ScriptedEndpoint, tmp_path: Path,
                               capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "params.yaml").write_text(f"llm:\n  endpoint: {scripted_endpoint.url}\n  model: scripted\n"
                                          "  retries: 1\n  backoff: 0.01\n")
    scripted_endpoint.push(Fault.status(503), Fault.status(503))
    assert run(["llm", "ask", "x", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["reason"] == "http_503"
