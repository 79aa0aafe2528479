"""The workspace a command runs in, and the process settings that keep every stage offline, quiet and self-contained
(applied before Prefect is imported)."""
from __future__ import annotations

import os
from pathlib import Path

from household.world.resources import ENV_VAR, DataMissing, data_dir, data_file, missing_data, resolve_data_dir

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
    data = workspace_data_dir()
    if data is not None:
        defaults[ENV_VAR] = str(data)
    for key, value in defaults.items():
        os.environ.setdefault(key, value)


def workspace_data_dir() -> Path | None:
    """The workspace's `data.dir` (relative to the workspace), or None when its params.yaml has none."""
    import yaml

    file = project_dir() / "params.yaml"
    try:
        data = (yaml.safe_load(file.read_text(encoding="utf-8")) or {}).get("data") or {}
    except (OSError, yaml.YAMLError, AttributeError):
        return None  # load_params reports a broken params.yaml where a command reads it
    value = data.get("dir") if isinstance(data, dict) else None
    return resolve_data_dir(value, project_dir()) if value else None


def check_data_dir() -> Path:
    """The data directory a pipeline stage reads, after checking it is there and is the one dvc.yaml tracks
    (`${data.dir}`): a `HINDSIGHT_DATA` elsewhere would let DVC hash one folder while the stage reads another."""
    if missing_data():
        data_file(missing_data()[0].name)  # raises DataMissing: one line, the path and how to provide it
    tracked = workspace_data_dir()
    if tracked is not None and tracked != data_dir():
        raise DataMissing(f"{ENV_VAR}={data_dir()} but params.yaml data.dir is {tracked}, the folder dvc.yaml "
                          f"tracks: set data.dir to {data_dir()} for the pipeline (or unset {ENV_VAR})")
    return data_dir()
