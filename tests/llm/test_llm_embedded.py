"""The embedded model for real: gemma3-270m through the llama.cpp server (one server per test session)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from llm.client import LLMClient
from llm.settings import LLMSettings
from llm.presets import ModelChecksumError, PRESETS, ensure_model, verify_model
from llm.embedded import ensure_server, stop_owned_servers
from llm.registry import running_server

MODEL = "gemma3-270m"


@pytest.fixture(scope="session")
def embedded_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache dir whose gemma server is started once and stopped at the end of the session."""
    cache = tmp_path_factory.mktemp("llm-embedded")
    yield cache
    stop_owned_servers()


@pytest.fixture
def gemma(embedded_cache: Path) -> Iterator[LLMClient]:
    settings = LLMSettings(endpoint="embedded", model=MODEL, max_tokens=8, timeout=60, retries=1)
    with LLMClient(settings, cache_dir=embedded_cache) as client:
        yield client


@pytest.mark.llm
def test_real_call_then_cache_hit(gemma: LLMClient) -> None:
    prompt = "Q: What is the capital of France?\nA: Paris\nQ: What is the capital of Italy?\nA:"
    first = gemma.complete("actor", prompt, stop=["\n"])
    second = gemma.complete("actor", prompt, stop=["\n"])
    assert first.text.strip() and first.prompt_tokens > 10 and first.completion_tokens >= 1
    assert not first.cached and second.cached and second.text == first.text
    assert second.seconds < 0.1
    summary = gemma.usage.summary()
    assert summary["calls"] == 2 and summary["cache_hits"] == 1
    assert summary["prompt_tokens"] == first.prompt_tokens
    assert gemma.model_id.startswith("embedded:gemma3-270m@sha256:a5fd3b62230a")


@pytest.mark.llm
def test_grammar_constrains_output(gemma: LLMClient) -> None:
    resp = gemma.complete("critic", "Is the sky blue? Answer yes or no:", grammar='root ::= "yes" | "no"')
    assert resp.text in ("yes", "no")


@pytest.mark.llm
def test_running_server_is_reused(gemma: LLMClient, embedded_cache: Path) -> None:
    gemma.complete("adapter", "Hello", max_tokens=2)
    state = running_server(MODEL, embedded_cache)
    assert state is not None
    assert ensure_server(MODEL, cache_dir=embedded_cache) == state.base_url


def test_model_file_checked_against_pinned_hash(tmp_path: Path) -> None:
    fake = tmp_path / PRESETS[MODEL].filename
    fake.write_bytes(b"GGUF not really")
    with pytest.raises(ModelChecksumError):
        verify_model(MODEL, fake)


def test_preset_assembled_and_verified() -> None:
    path = ensure_model(MODEL)  # fast: sidecar (size + mtime + verified hash)
    verify_model(MODEL, path)
    assert path.stat().st_size > 200_000_000
