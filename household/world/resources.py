"""Where the world's data is read from.

Two places. The project's own file under household/data/ (the dev set): committed, always there. ALFRED's data (the
ontology and floorplans, the trajectories as compact files) and ALFWorld's games come from elsewhere: they are read in
place from one data directory, never copied into the repository:
- `HINDSIGHT_DATA` (environment) when set;
- else `data.dir` of the workspace's params.yaml (flows.runtime.workspace.configure exports it into
  `HINDSIGHT_DATA`, so the processes a command starts read the same folder);
- else `../shared/alfred` beside this checkout (params.yaml's default).
"""
from __future__ import annotations

import gzip
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "data"  # household/data
PROJECT_ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "HINDSIGHT_DATA"
DEFAULT_DATA_DIR = "../shared/alfred"  # data.dir's default, relative to the project root
SPLIT_FILES = {
    "train": "alfred_compact_train.json.gz",
    "valid_seen": "alfred_compact_valid_seen.json",
    "valid_unseen": "alfred_compact_valid_unseen.json",
}
WORLD_FILES = ("ontology.json", "floorplans.json")  # from the alfworld wheel (ALFRED's constants and layouts)
HOW_TO_PROVIDE = ("point HINDSIGHT_DATA or data.dir at a folder holding ALFRED's data (README: Data), "
                  "or build them from ALFRED's json_2.1.0 download with `hindsight data import-alfred PATH --out DIR` "
                  "(README: Data)")


class DataMissing(FileNotFoundError):
    """ALFRED data is not where the project looked: one line naming the path and how to provide it."""


def resolve_data_dir(value: str | Path, base: Path) -> Path:
    """`data.dir` as a folder: relative to `base` (the workspace) unless absolute."""
    p = Path(value).expanduser()
    return (p if p.is_absolute() else base / p).resolve()


def data_dir() -> Path:
    """The data directory: `HINDSIGHT_DATA`, else `../shared/alfred` beside the checkout."""
    env = os.environ.get(ENV_VAR)
    return Path(env).expanduser().resolve() if env else resolve_data_dir(DEFAULT_DATA_DIR, PROJECT_ROOT)


def data_source() -> str:
    """Where data_dir() comes from, for messages."""
    return f"${ENV_VAR}, else params.yaml data.dir, else {DEFAULT_DATA_DIR} beside the project"


def data_file(name: str) -> Path:
    """A file of the data directory; DataMissing (one line: the path looked at, how to provide it) when absent."""
    path = data_dir() / name
    if not path.is_file():
        raise DataMissing(f"ALFRED data not found: {path} (the data directory is {data_source()}); {HOW_TO_PROVIDE}")
    return path


def data_path(value: str | Path) -> Path:
    """A path a param gives: relative to the data directory unless absolute."""
    p = Path(value).expanduser()
    return p if p.is_absolute() else data_dir() / p


def games_dir(value: str | Path) -> Path:
    """`world.alfworld_games` as a folder: relative to the data directory unless absolute."""
    return data_path(value)


def missing_data() -> list[Path]:
    """The ALFRED files of the data directory that are not there (empty when the project can run)."""
    return [data_dir() / name for name in (*WORLD_FILES, *SPLIT_FILES.values()) if not (data_dir() / name).is_file()]


def _read_json(path: Path) -> Any:
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: invalid JSON ({exc.msg})") from exc


@lru_cache(maxsize=None)
def load_json(name: str) -> Any:
    """Load one of the project's own JSON files (household/data/) once per process."""
    path = PACKAGE_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: packaged data file missing (reinstall the project)")
    return _read_json(path)


@lru_cache(maxsize=None)
def _load_data(path: Path) -> Any:
    return _read_json(path)


def load_data_json(name: str) -> Any:
    """Load a JSON (or .json.gz) file of the data directory once per process and folder."""
    return _load_data(data_file(name))
