"""Access to the ALFRED data shipped as package data under household/data/."""
from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"


def data_path(name: str) -> Path:
    """Path of one packaged data file (works from a checkout and from an installed wheel)."""
    return DATA_DIR / name


@lru_cache(maxsize=None)
def load_json(name: str) -> Any:
    """Load a packaged JSON (or .json.gz) file once per process."""
    path = data_path(name)
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"{path}: packaged data file missing") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: invalid JSON ({exc.msg})") from exc
