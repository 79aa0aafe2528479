"""`hindsight pools diff` reads old pool versions through real DVC (git revisions, cache, clear errors)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pools.jsonl import write_jsonl
from pools.manifest import build_manifest
from pools.versions import VersionError, load_pool
from tests.pools.test_jsonl import sample
from tests.repos import BIN, ENV, init_repo, sh


def write_version(repo: Path, records: list[dict], gt_per_type: int) -> None:
    write_jsonl(repo / "data/pools/gt.jsonl", records, "sample")
    manifest = build_manifest("gt", records, "sample", {"pools": {"gt_per_type": gt_per_type}}, None)
    (repo / "data/pools/gt.manifest.json").write_text(json.dumps(manifest))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write_version(repo, [sample("a"), sample("b")], 1)
    sh(repo, "dvc", "add", "-q", "data/pools/gt.jsonl", "data/pools/gt.manifest.json")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "v1")
    sh(repo, "git", "tag", "v1")
    return repo


def run_diff(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "hindsight"), "pools", "diff", *args], cwd=repo, env=ENV,
                          capture_output=True, text=True)


def test_diff_head_vs_workspace_and_two_revisions(repo: Path) -> None:
    write_version(repo, [sample("b"), sample("c")], 2)
    out = json.loads(run_diff(repo, "--pool", "gt", "--json").stdout)
    assert out["added"] == [sample("c")["id"]] and out["removed"] == [sample("a")["id"]]
    assert out["manifest_changes"]["params.pools.gt_per_type"] == {"a": 1, "b": 2}

    sh(repo, "dvc", "add", "-q", "data/pools/gt.jsonl", "data/pools/gt.manifest.json")
    sh(repo, "git", "commit", "-qam", "v2")
    text = run_diff(repo, "v1", "HEAD", "--pool", "gt").stdout
    assert "added 1, removed 1, changed 0, unchanged 1" in text


def test_missing_cache_says_what_to_do(repo: Path) -> None:
    write_version(repo, [sample("b"), sample("c")], 2)
    sh(repo, "dvc", "add", "-q", "data/pools/gt.jsonl", "data/pools/gt.manifest.json")
    sh(repo, "git", "commit", "-qam", "v2")
    shutil.rmtree(repo / ".dvc" / "cache")
    with pytest.raises(VersionError, match="neither the local DVC cache nor a remote .none is configured"):
        load_pool(repo, "gt", "v1", "sample")
    before = sorted(p for p in repo.rglob("*") if ".git" not in p.parts and "tmp" not in p.parts)
    proc = run_diff(repo, "v1", "HEAD", "--pool", "gt")
    assert proc.returncode == 2, proc.stdout
    # The revision, the file and the command that brings it; nothing written.
    assert "data/pools/gt.jsonl at revision v1 (" in proc.stderr and "`dvc pull` (`git checkout v1` first" in proc.stderr
    assert sorted(p for p in repo.rglob("*") if ".git" not in p.parts and "tmp" not in p.parts) == before


def test_unknown_revision(repo: Path) -> None:
    proc = run_diff(repo, "no-such-rev", "--pool", "gt")
    assert proc.returncode == 2 and "neither a git revision nor a DVC experiment" in proc.stderr


WRITER = '''
import json, sys, yaml
sys.path.insert(0, {root!r})
from pools.jsonl import write_jsonl
from pools.manifest import build_manifest
from tests.pools.test_jsonl import sample
n = yaml.safe_load(open("params.yaml"))["pools"]["n"]
records = [sample(f"t{{i}}") for i in range(n)]
write_jsonl("data/pools/gt.jsonl", records, "sample")
json.dump(build_manifest("gt", records, "sample", {{"pools": {{"n": n}}}}, None), open("data/pools/gt.manifest.json", "w"))
'''


def pipeline_repo(repo: Path) -> Path:
    """A git+DVC repo whose one stage writes the gt pool (params pools.n samples); nothing run yet."""
    init_repo(repo)
    root = str(Path(__file__).resolve().parents[2])
    (repo / "write_pool.py").write_text(WRITER.format(root=root))
    (repo / "params.yaml").write_text("pools:\n  n: 2\n")
    (repo / "dvc.yaml").write_text(
        f"stages:\n  pool:\n    cmd: {sys.executable} write_pool.py\n    deps: [write_pool.py]\n"
        "    params: [pools.n]\n    outs: [data/pools/gt.jsonl, data/pools/gt.manifest.json]\n")
    return repo


def test_first_run_not_committed_says_there_is_no_earlier_version(tmp_path: Path) -> None:
    repo = pipeline_repo(tmp_path / "first")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "code only")
    with pytest.raises(VersionError, match=r"the workspace holds no gt pool .*`dvc repro`"):
        load_pool(repo, "gt", "workspace", "sample")
    sh(repo, "dvc", "repro", "-q")  # the first run: its dvc.lock is not committed yet
    proc = run_diff(repo, "--pool", "gt")
    assert proc.returncode == 2, proc.stdout
    assert "'HEAD'" in proc.stderr and "holds no gt pool" in proc.stderr, proc.stderr
    assert "dvc.lock" in proc.stderr and "git commit" in proc.stderr and "dvc exp run" in proc.stderr
    assert "dvc pull" not in proc.stderr and "Traceback" not in proc.stderr
    sh(repo, "git", "add", "dvc.lock", "data/pools/.gitignore")  # what the message says to do
    sh(repo, "git", "commit", "-qm", "pool v1")
    out = json.loads(run_diff(repo, "--pool", "gt", "--json").stdout)
    assert out["unchanged"] == 2 and out["added"] == [] and out["removed"] == []


def test_diff_against_a_dvc_experiment_by_name(tmp_path: Path) -> None:
    repo = pipeline_repo(tmp_path / "exp")
    for cmd in (["dvc", "repro", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"],
                ["dvc", "exp", "run", "-q", "-n", "more-samples", "-S", "pools.n=3"]):
        sh(repo, *cmd)
    # The workspace now holds the experiment's result; restore the baseline so the diff reads both through DVC.
    sh(repo, "git", "checkout", "--", "params.yaml", "dvc.lock")
    sh(repo, "dvc", "checkout", "-q")
    out = json.loads(run_diff(repo, "HEAD", "more-samples", "--pool", "gt", "--json").stdout)
    assert out["added"] == [sample("t2")["id"]] and out["removed"] == [] and out["unchanged"] == 2
    assert out["manifest_changes"]["params.pools.n"] == {"a": 2, "b": 3}


def test_fresh_clone_reads_old_version_from_the_remote(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    sh(repo, "dvc", "remote", "add", "-d", "store", str(remote))
    sh(repo, "git", "commit", "-qam", "remote")
    sh(repo, "dvc", "push", "-q")
    write_version(repo, [sample("b"), sample("c")], 2)
    sh(repo, "dvc", "add", "-q", "data/pools/gt.jsonl", "data/pools/gt.manifest.json")
    sh(repo, "git", "commit", "-qam", "v2")
    sh(repo, "dvc", "push", "-q")
    clone = tmp_path / "clone"
    sh(tmp_path, "git", "clone", "-q", str(repo), str(clone))  # no DVC cache at all in the clone
    out = json.loads(run_diff(clone, "v1", "HEAD", "--pool", "gt", "--json").stdout)
    assert out["added"] == [sample("c")["id"]] and out["removed"] == [sample("a")["id"]]
