"""Reading params.yaml: the one place flows learn their settings."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from flows.env import project_dir


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
