"""Where the project's caches live: $HINDSIGHT_CACHE_DIR, else ./.cache (never a DVC output)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """Return the project's cache folder (created on demand by its users)."""
    env = os.environ.get("HINDSIGHT_CACHE_DIR")
    return Path(env).expanduser().resolve() if env else (Path.cwd() / ".cache").resolve()


def llm_cache_dir() -> Path:
    """Folder of the response cache, call log, server state files and server logs."""
    return cache_root() / "llm"


def models_dir() -> Path:
    """Folder of the assembled GGUF models."""
    return cache_root() / "models"


EMBEDDINGS_VAR = "HINDSIGHT_EMBEDDINGS_DIR"


def embeddings_dir() -> Path:
    """Folder of the sentence vectors (keyed by encoder and text, so checkouts may share one: $HINDSIGHT_EMBEDDINGS_DIR),
    else the cache folder's embeddings/."""
    env = os.environ.get(EMBEDDINGS_VAR)
    return Path(env).expanduser().resolve() if env else cache_root() / "embeddings"
