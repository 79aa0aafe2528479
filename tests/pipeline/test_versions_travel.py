"""Pool versions travel: a pool param changed and changed back, committed, pushed to the DVC remote and pulled into
fresh clones, with real git, DVC and Prefect on the tiny profile of tests/pipeline/conftest.py (docs/sharing.md).

A module of its own, with its own copy of the project, so that it runs beside test_dvc_pipeline.py's on another
worker.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pools.jsonl import read_jsonl
from pools.versions import RUN_PATHS
from tests.pipeline.conftest import BIN, FAIL_TYPE, ROOT, VERIFY_TYPE
from tests.pipeline.test_dvc_pipeline import MANIFESTS, OUTPUTS, READS_HINDSIGHT, RESULTS, changed_stages, ran_stages

pytestmark = pytest.mark.slow

# What `dvc pull` brings to a clone: the pools, the relabeling outputs, the evaluation records, the probe's picks.
PULLED = [*OUTPUTS, "data/relabel/corrections.jsonl", "data/probe/picks.jsonl"]


def files_of(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under `root` with its size and mtime, but git's and DVC's own scratch (.git, .dvc/tmp)."""
    out = {}
    for f in root.rglob("*"):
        rel = f.relative_to(root).as_posix()
        if not (rel == ".git" or rel.startswith((".git/", ".dvc/tmp"))):
            out[rel] = (f.lstat().st_size, f.lstat().st_mtime_ns) if f.is_file() else (0, 0)
    return out


def test_keep_unverified_reruns_pool_and_evaluation_only_and_the_versions_travel(project) -> None:
    # One pool param changed and changed back, and docs/sharing.md's protocol on the versions it makes, with real
    # git and DVC (one test: the two partial runs are the expensive part). Workspace A: the first run and the
    # changed one, each committed and `dvc push`ed to the copy's default remote; the change back as an experiment,
    # `dvc exp push`ed through a bare git repository.
    a = project
    top = a.path.parent  # .dvc/config's remote, ../../hindsight-dvc-remote from .dvc/, is a folder here
    remote, origin, exp = top / "hindsight-dvc-remote", top / "origin.git", "verified-only"
    a.run("git", "init", "-q", "--bare", str(origin))
    a.run("git", "remote", "add", "origin", str(origin))
    branch = a.run("git", "symbolic-ref", "--short", "HEAD").stdout.strip()
    a.run("dvc", "repro")  # the whole pipeline, in this test's own copy
    shas = []
    for keep_unverified in (False, True):
        if keep_unverified:
            a.set_param("relabel.keep_unverified", True)
            out = a.run("dvc", "repro")
            # The pool changes (the unverified completion and critic sample join it), so the evaluations that read
            # it rerun (not llm_planner's or the expert's: their `pool` is gt), the probe, what reads the
            # evaluations, and the export; the pool with the corrections too (the same switch), which no variant
            # here reads.
            assert ran_stages(out.stdout) == MANIFESTS | {"probe", "export"} | READS_HINDSIGHT | RESULTS, \
                out.stdout[-3000:]
            pooled = read_jsonl(a.path / "data/pools/hindsight.jsonl", "sample").records
            assert sorted((r["kind"], r["task_type"], r["verified"]) for r in pooled) == sorted([
                ("critic", FAIL_TYPE, False), ("critic", VERIFY_TYPE, True),
                ("hindsight", FAIL_TYPE, False), ("hindsight", VERIFY_TYPE, True)])
        # The first-commit step every message gives (pools.versions.RUN_PATHS): nothing of the run is left out.
        a.run("git", "add", "params.yaml", *RUN_PATHS)
        a.run("git", "commit", "-qm", f"pool with keep_unverified={keep_unverified}")
        assert a.run("git", "status", "--short").stdout == "", a.run("git", "status", "--short").stdout
        a.run("dvc", "push")
        shas.append(a.run("git", "rev-parse", "HEAD").stdout.strip())
    a.run("git", "push", "-q", "origin", branch)
    v1, v2 = shas
    assert any(f.is_file() for f in remote.rglob("*")), "`dvc push` wrote nothing to the default remote"
    built = {rel: (a.path / rel).read_bytes() for rel in PULLED}
    diff_a = a.run("hindsight", "pools", "diff", v1, v2).stdout
    assert "added 2, removed 0, changed 0, unchanged 2" in diff_a and "no probe" not in diff_a, diff_a
    # The metrics and plots of two commits side by side (each commit holds metrics/ and plots/).
    metrics_a = json.loads(a.run("dvc", "metrics", "diff", v1, v2, "--all", "--json").stdout)
    progress = metrics_a["metrics/pools/hindsight.json"]["progress"]
    assert progress.get("old") is not None and progress.get("new") is not None, metrics_a
    plots = json.loads(a.run("dvc", "plots", "diff", v1, v2, "--json").stdout)
    assert not plots.get("errors") and "pool_composition" in json.dumps(plots.get("data")), plots
    back = a.run("dvc", "exp", "run", "-n", exp, "-S", "relabel.keep_unverified=false")
    assert ran_stages(back.stdout) == MANIFESTS | {"probe"} | READS_HINDSIGHT | RESULTS, back.stdout[-3000:]
    # The pool is the first run's again: its export comes back from DVC's run cache (all its outputs are cached).
    assert "Stage 'export' is cached" in back.stdout, back.stdout[-3000:]
    assert len(read_jsonl(a.path / "data/pools/hindsight.jsonl", "sample").records) == 2
    assert changed_stages(a) == set()
    a.run("dvc", "exp", "push", "origin", exp)
    exp_a = a.run("hindsight", "pools", "diff", "HEAD", exp).stdout
    assert "added 0, removed 2, changed 0, unchanged 2" in exp_a, exp_a

    # A fresh clone B (the same default remote: it sits beside A) pulls HEAD's files, then the experiment.
    b = a.clone(str(origin), top / "clone", "-b", branch)
    assert not (b.path / ".dvc" / "cache").exists() and not (b.path / ".dvc" / "config.local").exists()
    b.run("dvc", "pull")
    assert {rel: (b.path / rel).read_bytes() for rel in PULLED} == built
    assert b.run("hindsight", "pools", "diff", v1, v2).stdout == diff_a  # v1: read from the remote, not pulled
    assert json.loads(b.run("dvc", "metrics", "diff", v1, v2, "--all", "--json").stdout) == metrics_a
    b.run("hindsight", "report")
    assert (b.path / "report/index.html").read_text(encoding="utf-8").count('class="episode"') == 6
    b.run("dvc", "exp", "pull", "origin", exp)
    assert b.run("hindsight", "pools", "diff", "HEAD", exp).stdout == exp_a

    # A clone C that pulled nothing, its remote an empty folder ($HINDSIGHT_DVC_REMOTE, `make remote`): each read
    # names the revision, the file and the command that brings it, and writes nothing.
    c = a.clone(str(origin), top / "unpulled", "-b", branch)
    empty = top / "empty-remote"
    empty.mkdir()
    c.env["HINDSIGHT_DVC_REMOTE"] = str(empty)
    c.run("make", "-s", "-f", str(ROOT / "Makefile"), "remote", f"BIN={BIN}")
    assert str(empty) in "".join(c.run("dvc", "remote", "list").stdout.split())  # DVC wraps a long path
    before = files_of(c.path)
    for cmd, said in [
        (("pools", "diff", v1, v2), [f"data/pools/hindsight.jsonl at revision {v1}",
                                     f"neither the local DVC cache nor the remote 'storage' ({empty})", "`dvc pull`"]),
        (("pools", "diff", exp, "HEAD"), [f"'{exp}' is neither a git revision nor a DVC experiment",
                                          f"`dvc exp pull origin {exp}`"]),
        (("pools", "diff"), ["data/pools/hindsight.jsonl at revision HEAD", "`dvc pull`"]),
        (("report",), ["nothing written", "records data/eval/", "`dvc pull`"]),
    ]:
        proc = c.run("hindsight", *cmd, check=False)
        assert proc.returncode == 2 and all(s in proc.stderr for s in said), (cmd, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, proc.stderr
    assert files_of(c.path) == before and not list(empty.iterdir())
    assert c.run("git", "status", "--porcelain").stdout == ""  # .dvc/config.local: ignored by git

    # No committed file, in any commit or experiment, names a local path of these checkouts or their remotes.
    revs = a.run("git", "rev-list", "--all").stdout.split()
    leaked = a.run("git", "grep", "-l", "-F", str(top), *revs, check=False)
    assert leaked.returncode == 1 and not leaked.stdout, leaked.stdout
