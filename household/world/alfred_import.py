"""ALFRED's distribution as published (`json_2.1.0/{split}/{spec}/trial_*/traj_data.json`) to the compact files the
project reads: one row per trajectory with its id, type, arguments, scene, human annotations and the expert's
high-level plan; everything else of `traj_data.json` (low-level actions, images, object poses) is left out."""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from household.world.resources import SPLIT_FILES

PDDL_KEYS = ("mrecep_target", "object_sliced", "object_target", "parent_target", "toggle_target")


def _field(data: dict[str, Any], where: str, *keys: str) -> Any:
    node: Any = data
    for i, key in enumerate(keys):
        if not isinstance(node, dict) or key not in node:
            raise ValueError(f"{where}: field '{'.'.join(keys[:i + 1])}' missing (expected ALFRED's traj_data.json)")
        node = node[key]
    return node


def compact_row(traj: dict[str, Any], split: str, path: str, where: str = "traj_data.json") -> dict[str, Any]:
    """One compact row of a `traj_data.json` found at `{split}/{path}/traj_data.json` (path: `spec/trial`)."""
    pddl = _field(traj, where, "pddl_params")
    scene = _field(traj, where, "scene")
    return {
        "task_id": _field(traj, where, "task_id"),
        "path": path,
        "split": split,
        "task_type": _field(traj, where, "task_type"),
        "pddl_params": {k: _field(pddl, where, k) for k in PDDL_KEYS},
        "scene": {"floor_plan": _field(scene, where, "floor_plan"), "scene_num": _field(scene, where, "scene_num")},
        "anns": [{"task_desc": a["task_desc"], "high_descs": a["high_descs"]}
                 for a in _field(traj, where, "turk_annotations", "anns")],
        "high_pddl": [{"high_idx": h["high_idx"], "action": h["discrete_action"]["action"],
                       "args": h["discrete_action"]["args"]} for h in _field(traj, where, "plan", "high_pddl")],
        "n_low_actions": len(_field(traj, where, "plan", "low_actions")),
    }


def read_split(root: Path, split: str) -> list[dict[str, Any]]:
    """Compact rows of every `root/split/*/trial_*/traj_data.json`, sorted by path."""
    rows = []
    for f in sorted((root / split).glob("*/trial_*/traj_data.json")):
        path = f"{f.parent.parent.name}/{f.parent.name}"
        try:
            traj = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{f}: line {exc.lineno}: invalid JSON ({exc.msg})") from exc
        rows.append(compact_row(traj, split, path, str(f)))
    return rows


def find_root(path: Path) -> Path:
    """The folder holding the split folders: `path` itself or its `json_2.1.0/` (as ALFRED's download lays it)."""
    for cand in (path, path / "json_2.1.0", path / "data" / "json_2.1.0"):
        if any((cand / s).is_dir() for s in SPLIT_FILES):
            return cand
    raise FileNotFoundError(f"{path}: no ALFRED split folder ({', '.join(SPLIT_FILES)}) here or under json_2.1.0/ "
                            "(expected ALFRED's json_2.1.0/{split}/{spec}/trial_*/traj_data.json)")


def import_alfred(src: Path, out: Path) -> dict[str, int]:
    """Write the compact file of every split found under `src` into `out`; returns rows per split written."""
    root = find_root(src)
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split, name in SPLIT_FILES.items():
        if not (root / split).is_dir():
            continue
        rows = read_split(root, split)
        text = json.dumps(rows)
        tmp = out / f".{name}.tmp"
        if name.endswith(".gz"):
            with gzip.open(tmp, "wt", encoding="utf-8") as fh:
                fh.write(text)
        else:
            tmp.write_text(text, encoding="utf-8")
        tmp.replace(out / name)  # atomic: a half-written file never replaces a good one
        counts[split] = len(rows)
    return counts
