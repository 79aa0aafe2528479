"""Reading params.yaml: the one place flows learn their settings."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from flows.runtime.workspace import project_dir


class ParamsError(ValueError):
    """params.yaml is missing, unreadable, or lacks a key a stage needs."""


def load_params(path: Path | str | None = None) -> dict[str, Any]:
    """Load params.yaml (default: the workspace's)."""
    path = Path(path) if path else project_dir() / "params.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParamsError(f"{path}: not found (run from the project root)") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: expected a mapping of sections, got {type(data).__name__}")
    return data


def section(params: dict[str, Any], name: str) -> dict[str, Any]:
    """One section of params.yaml; a clear error naming it when absent."""
    value = params.get(name)
    if not isinstance(value, dict):
        raise ParamsError(f"params.yaml: section '{name}' is missing or not a mapping")
    return value


def subset(params: dict[str, Any], *sections: str) -> dict[str, Any]:
    """Only the params sections a stage declares in dvc.yaml (so nothing undeclared can change its result)."""
    return {name: params[name] for name in sections if name in params}


def on_bad(params: dict[str, Any], flag: str | None) -> str:
    """The bad-record policy: the command-line flag, else params `pipeline.on_bad_record`, else fail."""
    return flag or (params.get("pipeline") or {}).get("on_bad_record", "fail")


def max_failure_share(params: dict[str, Any]) -> float:
    """Failed items a stage tolerates before exiting non-zero (params `pipeline.max_failure_share`)."""
    return float((params.get("pipeline") or {}).get("max_failure_share", 0.5))
