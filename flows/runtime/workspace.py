"""The workspace a command runs in, and the process settings that keep every stage offline, quiet and self-contained
(applied before Prefect is imported)."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def project_dir() -> Path:
    """The workspace a command runs in: the current directory when it is a project (params.yaml or .dvc/), else
    the checkout this code lives in."""
    cwd = Path.cwd()
    return cwd if (cwd / "params.yaml").exists() or (cwd / ".dvc").is_dir() else PROJECT_ROOT


def path(rel: str) -> Path:
    """Absolute path of a workspace-relative file."""
    return project_dir() / rel


def configure() -> None:
    """Set offline/quiet defaults (a user's own environment wins)."""
    cache = project_dir() / ".cache"
    defaults = {
        "PREFECT_HOME": str(cache / "prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
        "PREFECT_LOGGING_LEVEL": "INFO",
        # Flow-run results are not Prefect's to keep: outputs are the stage's schema-checked files.
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "false",
        "DVC_NO_ANALYTICS": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
