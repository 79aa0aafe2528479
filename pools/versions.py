"""Read a pool as it was at a git revision or DVC experiment, through DVC (local cache, then the remote)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from pools.jsonl import read_json, read_jsonl

WORKSPACE = "workspace"
PROBE_PICKS = "data/probe/picks.jsonl"  # the probe's picks (stage probe), read beside a pool version


class VersionError(RuntimeError):
    """A revision could not be resolved or its pool data is not available; the message says what to do."""


def pool_paths(pool: str) -> tuple[str, str]:
    """Repo-relative paths of a pool's JSONL and manifest."""
    return f"data/pools/{pool}.jsonl", f"data/pools/{pool}.manifest.json"


def resolve_rev(repo: Path, rev: str) -> str:
    """A git revision or DVC experiment name -> commit sha."""
    sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if sha:
        return sha
    from dvc.repo import Repo  # imported here: dvc is slow to import and only needed for experiment names
    from dvc.repo.experiments.utils import resolve_name

    with Repo(str(repo)) as dvc_repo:
        found = resolve_name(dvc_repo.scm, rev).get(rev)
    if found is None:
        raise VersionError(f"'{rev}' is neither a git revision nor a DVC experiment in {repo} "
                           "(list them with `git log --oneline` and `dvc exp show`)")
    return _git(repo, "rev-parse", str(found)) or str(found)


def load_pool(repo: Path, pool: str, rev: str, schema: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Records and manifest of `pool` at `rev` (`workspace` reads the files on disk)."""
    data_path, manifest_path = pool_paths(pool)
    if rev == WORKSPACE:
        if not (repo / data_path).exists():
            raise VersionError(f"the workspace holds no {pool} pool ({data_path} does not exist): "
                               "make one with `dvc repro`")
        records = read_jsonl(repo / data_path, schema).records
        manifest = read_json(repo / manifest_path, "manifest") if (repo / manifest_path).exists() else None
        return records, manifest
    sha = resolve_rev(repo, rev)
    if not recorded_at(repo, sha, data_path):
        raise VersionError(no_pool_message(pool, data_path, rev, sha))
    text = _dvc_read(repo, data_path, sha, rev)
    try:
        manifest = json.loads(_dvc_read(repo, manifest_path, sha, rev))
    except VersionError:
        manifest = None
    tmp = repo / ".cache" / "versions" / sha / data_path
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(text, encoding="utf-8")
    return read_jsonl(tmp, schema).records, manifest


def no_pool_message(pool: str, path: str, rev: str, sha: str) -> str:
    """Why a revision has no pool to compare, and how to make a version that has one."""
    return (f"'{rev}' ({sha[:8]}) holds no {pool} pool: no dvc.lock (or .dvc file) committed there records "
            f"{path}. After a first `dvc repro` nothing is committed yet, so there is no earlier version to compare "
            "with. Make one: commit the run (`git add dvc.lock` and the .gitignore files `dvc repro` named, then "
            "`git commit`), or run an experiment (`dvc exp run -n NAME`, then `hindsight pools diff NAME`).")


def recorded_at(repo: Path, sha: str, path: str) -> bool:
    """True if commit `sha` records `path`: tracked by git, by a .dvc file, or as an output in a dvc.lock."""
    files = set(_git(repo, "ls-tree", "-r", "--name-only", sha).splitlines())
    target = PurePosixPath(path)
    holders = [target, *target.parents[:-1]]  # the file or a directory above it may be the tracked thing
    if str(target) in files or any(f"{p}.dvc" in files for p in holders):
        return True
    for lock in (f for f in files if PurePosixPath(f).name == "dvc.lock"):
        try:
            stages = (yaml.safe_load(_git(repo, "show", f"{sha}:{lock}")) or {}).get("stages") or {}
        except yaml.YAMLError:
            return True  # unreadable lock: let DVC itself say what is wrong
        base = PurePosixPath(lock).parent
        outs = {base / o["path"] for st in stages.values() if isinstance(st, dict)
                for o in st.get("outs") or [] if isinstance(o, dict) and "path" in o}
        if any(p in outs for p in holders):
            return True
    return False


def load_records(repo: Path, rel: str, rev: str, schema: str) -> list[dict[str, Any]]:
    """Schema-checked records of a JSONL file (a DVC output) at `rev`; `workspace` reads the file on disk."""
    if rev == WORKSPACE:
        if not (repo / rel).exists():
            raise VersionError(f"{rel} does not exist in the workspace: make it with `dvc repro`")
        return read_jsonl(repo / rel, schema).records
    sha = resolve_rev(repo, rev)
    text = _dvc_read(repo, rel, sha, rev)
    tmp = repo / ".cache" / "versions" / sha / rel
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(text, encoding="utf-8")
    return read_jsonl(tmp, schema).records


def text_at(repo: Path, rev: str, rel: str) -> str | None:
    """A file git tracks, as it was at `rev` (`workspace`: the file on disk); None where it does not exist."""
    if rev == WORKSPACE:
        return (repo / rel).read_text(encoding="utf-8") if (repo / rel).is_file() else None
    proc = subprocess.run(["git", "-C", str(repo), "show", f"{resolve_rev(repo, rev)}:{rel}"], capture_output=True)
    return proc.stdout.decode("utf-8") if proc.returncode == 0 else None


def _dvc_read(repo: Path, path: str, sha: str, rev: str) -> str:
    import dvc.api
    from dvc.exceptions import DvcException

    remote = _workspace_remote(repo)
    try:
        return dvc.api.read(path, repo=str(repo), rev=sha, mode="r", encoding="utf-8",
                            **({"remote": remote[0], "remote_config": remote[1]} if remote else {}))
    except FileNotFoundError:
        raise VersionError(f"{path} does not exist at '{rev}' ({sha[:8]}): that revision has no such pool "
                           "(was `dvc repro` run and dvc.lock committed there?)") from None
    except DvcException as exc:
        raise VersionError(
            f"{path} at '{rev}' ({sha[:8]}) is in neither the local DVC cache nor the configured remote "
            f"({type(exc).__name__}: {exc}). Fetch it with `dvc pull` / `dvc fetch --rev {rev}` on a machine "
            "that has a remote configured (`dvc remote add -d NAME URL`), or `dvc push` it from where it was built."
        ) from None


def _workspace_remote(repo: Path) -> tuple[str, dict[str, Any]] | None:
    """The workspace's default remote (name, config): old revisions' own config may predate it."""
    from dvc.config import Config

    try:
        conf = Config(dvc_dir=str(repo / ".dvc"))
        name = conf["core"].get("remote")
        return (name, dict(conf["remote"][name])) if name else None
    except Exception:  # noqa: BLE001 - no usable config: each revision's own applies
        return None


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""
