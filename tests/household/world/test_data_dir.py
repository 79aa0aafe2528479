"""ALFRED's data is read in place from one data directory, never committed; ALFRED's own download imports."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from household.world.alfred_import import import_alfred
from household.world.resources import ENV_VAR, PACKAGE_DIR, SPLIT_FILES, WORLD_FILES, data_dir

ROOT = Path(__file__).resolve().parents[3]
# Everything the data directory holds came from elsewhere (its README gives each source): none of it is committed.
FETCHED = ("*.json", "*.json.gz", "*.pddl", "alfred_samples/**/*", "alfworld_samples/**/*")
MAY_STAY = {"README.md"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetched_files() -> list[Path]:
    files = {p for pattern in FETCHED for p in data_dir().glob(pattern) if p.is_file()}
    return sorted(p for p in files if p.name not in MAY_STAY)


def test_no_fetched_file_is_committed() -> None:
    fetched = fetched_files()
    assert len(fetched) >= 3 + 4 + 3 + 12, f"{data_dir()}: the fetched files were not found"
    tracked = [ROOT / f for f in subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                               check=True).stdout.splitlines()]
    names = {p.name for p in fetched}
    hashes = {sha256(p): p for p in fetched}
    by_name = [str(f.relative_to(ROOT)) for f in tracked if f.name in names]
    by_content = [f"{f.relative_to(ROOT)} = {hashes[h].relative_to(data_dir())}" for f in tracked
                  if f.is_file() and (h := sha256(f)) in hashes]
    assert not by_name and not by_content, (by_name, by_content)


def test_the_check_sees_a_committed_copy(tmp_path: Path) -> None:
    """The name and content checks above would see a copy (here: one not tracked, checked the same way)."""
    copy = tmp_path / "renamed.json"
    shutil.copy2(data_dir() / SPLIT_FILES["valid_seen"], copy)
    assert sha256(copy) in {sha256(p) for p in fetched_files()}
    assert SPLIT_FILES["valid_unseen"] in {p.name for p in fetched_files()}


def test_the_package_keeps_only_its_own_files() -> None:
    kept = {p.name for p in PACKAGE_DIR.iterdir()}
    assert kept == {"dev_set.json", "PROVENANCE.md"}, kept


def spec_of(traj: dict) -> str:
    """ALFRED's folder name for a trajectory: type-object-mrecep-parent-scene (the toggle target stands for the
    parent in look_at tasks)."""
    p = traj["pddl_params"]
    obj = p["object_target"] + ("Sliced" if p["object_sliced"] else "")
    return "-".join([traj["task_type"], obj, p["mrecep_target"] or "None",
                     p["parent_target"] or p["toggle_target"], str(traj["scene"]["scene_num"])])


def compact_rows(folder: Path) -> dict[tuple[str, str], dict]:
    rows = {}
    for split, name in SPLIT_FILES.items():
        path = folder / name
        if path.is_file():
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as fh:
                rows.update({(split, r["task_id"]): r for r in json.load(fh)})
    return rows


def test_import_alfred_gives_the_provided_compact_rows(tmp_path: Path) -> None:
    """The three verbatim traj_data.json files, laid out as ALFRED's download, import to the provided rows."""
    samples = sorted((data_dir() / "alfred_samples").glob("*_traj_data.json"))
    assert len(samples) == 3
    root = tmp_path / "alfred" / "data" / "json_2.1.0"
    for f in samples:
        traj = json.loads(f.read_text(encoding="utf-8"))
        split = next(s for s in SPLIT_FILES if f.name.startswith(s + "_trial"))
        dest = root / split / spec_of(traj) / traj["task_id"] / "traj_data.json"
        dest.parent.mkdir(parents=True)
        shutil.copy2(f, dest)
    counts = import_alfred(tmp_path / "alfred", tmp_path / "out")
    assert counts == {"train": 1, "valid_seen": 1, "valid_unseen": 1}
    provided = compact_rows(data_dir())
    imported = compact_rows(tmp_path / "out")
    assert len(imported) == 3
    for key, row in imported.items():
        want = provided[key]
        assert set(row) == set(want), key
        for field in want:
            assert row[field] == want[field], (key, field)


def test_import_alfred_names_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "json_2.1.0" / "valid_seen" / "pick_and_place_simple-Pen-None-Desk-1" / "trial_x" / "traj_data.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"task_id": "trial_x", "task_type": "pick_and_place_simple"}')
    with pytest.raises(ValueError, match=r"traj_data.json: field 'pddl_params' missing"):
        import_alfred(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out" / SPLIT_FILES["valid_seen"]).exists()


def hindsight(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def without_data_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


@pytest.mark.parametrize("args", [("data", "check"), ("world", "stats", "--split", "valid_unseen", "--limit", "2"),
                                  ("stage", "tasks")])
def test_missing_data_is_one_line_naming_the_path(tmp_path: Path, args: tuple[str, ...]) -> None:
    gone = tmp_path / "no-alfred-here"
    out = hindsight(*args, env=without_data_env(**{ENV_VAR: str(gone)}), cwd=tmp_path)
    lines = out.stderr.strip().splitlines()
    assert out.returncode != 0 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert str(gone) in lines[0] and "import-alfred" in lines[0] and "HINDSIGHT_DATA" in lines[0], lines[0]


def test_data_dir_param_and_environment(tmp_path: Path) -> None:
    """data.dir of the workspace's params.yaml (relative to it) when HINDSIGHT_DATA is unset; the variable wins."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "params.yaml").write_text(f"data:\n  dir: ../elsewhere\n")
    (tmp_path / "elsewhere").mkdir()
    for name in (*WORLD_FILES, *SPLIT_FILES.values()):
        (tmp_path / "elsewhere" / name).write_bytes(b"")
    out = hindsight("data", "check", env=without_data_env(), cwd=tmp_path / "ws")
    assert out.returncode == 0 and str(tmp_path / "elsewhere") in out.stdout, out.stdout + out.stderr
    out = hindsight("data", "check", env=without_data_env(**{ENV_VAR: str(data_dir())}), cwd=tmp_path / "ws")
    assert out.returncode == 0 and str(data_dir()) in out.stdout, out.stdout + out.stderr
