"""Secrets: with OPENAI_API_KEY set, no file of the workspace, caches, logs or DVC cache holds it after a run."""
from __future__ import annotations

import secrets
from pathlib import Path

from testing.harness import TABLE, output_ids, task_rows, use_driver_pipeline


def files_containing(root: Path, needle: bytes) -> tuple[list[str], int]:
    """Files under `root` (all of them: .git, .dvc/cache, .cache, logs) whose bytes contain `needle`."""
    hits, scanned = [], 0
    for f in root.rglob("*"):
        if f.is_file() and not f.is_symlink():
            scanned += 1
            if needle in f.read_bytes():
                hits.append(str(f.relative_to(root)))
    return hits, scanned


def test_api_key_never_written(project) -> None:
    key = f"sk-test-{secrets.token_hex(16)}"
    rows = task_rows(per_type=2)
    use_driver_pipeline(project, rows)
    project.env["OPENAI_API_KEY"] = key
    run = project.run("dvc", "repro")
    stats = project.run("hindsight", "llm", "stats", check=False)
    logs = project.path / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "repro.log").write_text(run.stdout + run.stderr + stats.stdout + stats.stderr)
    assert sorted(output_ids(project.path)) == sorted(r["id"] for r in rows)
    assert list((project.path / ".dvc" / "cache").rglob("*")), "dvc cache should hold the stage output"
    requests = project.endpoint.requests
    assert requests and all(r.has_auth for r in requests)  # the key was used...
    hits, scanned = files_containing(project.path, key.encode())
    TABLE.add("OPENAI_API_KEY in files after a run", trials=1, clear=not hits,
              note=f"{scanned} files scanned, {len(hits)} hold the key")
    assert not hits, hits  # ...and never written

