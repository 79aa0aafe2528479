"""`hindsight compare A B`: variants of the workspace, and a variant at another git revision read through DVC."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from pools.jsonl import write_jsonl
from tests.pools.analysis.test_compare import A, B, outcomes
from tests.repos import BIN, ENV, init_repo, sh


def compare(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "hindsight"), "compare", *args], cwd=repo, env=ENV, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A DVC project whose first commit (tag v1) holds two evaluated variants; the workspace then improves one."""
    repo = init_repo(tmp_path / "repo")
    (repo / "params.yaml").write_text(yaml.safe_dump({"evaluate": {"bootstrap": 500, "bootstrap_seed": 0}}))
    write_jsonl(repo / "data/eval/hindsight.jsonl", A, "rollout")
    write_jsonl(repo / "data/eval/no_hindsight.jsonl", B, "rollout")
    sh(repo, "dvc", "add", "-q", "data/eval/hindsight.jsonl", "data/eval/no_hindsight.jsonl")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "v1")
    sh(repo, "git", "tag", "v1")
    # The workspace's no_hindsight now solves everything.
    write_jsonl(repo / "data/eval/no_hindsight.jsonl", outcomes([(True, 2)] * 8), "rollout")
    return repo


def test_workspace_variants_as_text_and_json(repo: Path) -> None:
    text = compare(repo, "hindsight", "no_hindsight")
    assert text.returncode == 0, text.stderr
    assert "hindsight (A) vs no_hindsight (B): 8 tasks both ran" in text.stdout
    assert "6/0/2/0" in text.stdout  # both / only A / only B / neither: B also solves the two A fails
    out = json.loads(compare(repo, "hindsight", "no_hindsight", "--json").stdout)
    assert out["bootstrap"]["samples"] == 500  # from params evaluate.bootstrap
    assert out["all"]["table"] == {"both": 6, "only_a": 0, "only_b": 2, "neither": 0}


def test_a_variant_at_another_revision_through_dvc(repo: Path, tmp_path: Path) -> None:
    dest = tmp_path / "cmp.json"
    proc = compare(repo, "hindsight", "no_hindsight@v1", "--json", "--out", str(dest))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # v1's no_hindsight (B of tests/pools/analysis/test_compare.py), not the workspace's
    assert out["b"] == "no_hindsight@v1" and out["all"]["table"] == {"both": 2, "only_a": 4, "only_b": 0, "neither": 2}
    assert json.loads(dest.read_text()) == out
    same = json.loads(compare(repo, "no_hindsight@v1", "no_hindsight@HEAD", "--json").stdout)
    assert same["all"]["sr_diff"] == 0.0 and same["all"]["mcnemar_p"] == 1.0


def test_clear_errors(repo: Path) -> None:
    unknown = compare(repo, "hindsight", "no_hindsight@no-such-rev")
    assert unknown.returncode == 2 and "neither a git revision nor a DVC experiment" in unknown.stderr
    missing = compare(repo, "hindsight", "llm_planner")
    assert missing.returncode == 2 and "data/eval/llm_planner.jsonl does not exist" in missing.stderr
    itself = compare(repo, "hindsight", "hindsight")
    assert itself.returncode == 2 and "both 'hindsight'" in itself.stderr
