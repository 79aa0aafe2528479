"""Where the caches live: $HINDSIGHT_CACHE_DIR, and the vector store's own $HINDSIGHT_EMBEDDINGS_DIR."""
from __future__ import annotations

from pathlib import Path

import pytest

from llm.paths import EMBEDDINGS_VAR, cache_root, embeddings_dir


def test_the_vector_store_follows_its_variable_else_the_cache_folder(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(EMBEDDINGS_VAR, raising=False)
    assert cache_root() == (tmp_path / "cache").resolve()
    assert embeddings_dir() == (tmp_path / "cache" / "embeddings").resolve()
    monkeypatch.setenv(EMBEDDINGS_VAR, str(tmp_path / "shared" / ".." / "vectors"))
    assert embeddings_dir() == (tmp_path / "vectors").resolve()  # resolved: every process sees one folder
