"""Same config, same response cache, same records: `dvc repro` of the checkout in a temporary copy that starts from a
baseline project's LLM response cache, compared byte for byte with the baseline's records (a refactor
changes no output). The baseline is a project directory after a `dvc repro` (e.g. a fresh clone after `make run`)
on the same params.

    python -m benchmarks.bench_same_records --baseline /path/to/clone [--keep]

Prints the cache misses per stage (LLM calls the baseline's cache did not answer: they must be 0, or the comparison
says nothing about the code) and every record file (data/, metrics/) that is identical, differs, or exists on one
side only. Exits 1 when a call missed the cache or a file is not identical.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_pipeline import project_copy, sh
from flows.runtime.prefect_server import prefect_server

RECORDS = ("data", "metrics")  # what the stages write as results (details/ holds seconds; report/ is a view)


def record_files(root: Path) -> set[str]:
    """Relative paths of every record file under `root` (DVC's .gitignore files left out)."""
    return {str(p.relative_to(root)) for top in RECORDS for p in (root / top).rglob("*")
            if p.is_file() and p.name != ".gitignore"}


def cache_misses(proj: Path) -> dict[str, int]:
    """LLM calls the response cache did not answer, per stage (details/stages/*.json)."""
    out = {}
    for f in sorted((proj / "details" / "stages").glob("*.json")):
        llm = json.loads(f.read_text()).get("llm") or {}
        out[f.stem] = int(llm.get("calls", 0)) - int(llm.get("cache_hits", 0))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, type=Path, help="a project directory after `dvc repro`")
    ap.add_argument("--keep", action="store_true", help="keep the temporary project (its path is printed)")
    args = ap.parse_args()
    base = args.baseline.resolve()
    cache = base / ".cache" / "llm" / "llm.sqlite"
    if not cache.is_file():
        raise SystemExit(f"{cache}: no LLM response cache (the baseline must have run `dvc repro`)")
    proj = Path(tempfile.mkdtemp(prefix="bench-same-"))
    with prefect_server() as api:
        env = project_copy(proj, api)
        (proj / ".cache" / "llm").mkdir(parents=True, exist_ok=True)
        shutil.copy2(cache, proj / ".cache" / "llm" / "llm.sqlite")
        seconds, _ = sh(proj, env, "dvc", "repro")
    misses = cache_misses(proj)
    ours, theirs = record_files(proj), record_files(base)
    same = sorted(f for f in ours & theirs if filecmp.cmp(proj / f, base / f, shallow=False))
    differ = sorted(f for f in ours & theirs if f not in same)
    print(f"dvc repro on the baseline's cache: {seconds:.0f} s; cache misses: {sum(misses.values())} "
          f"({', '.join(f'{k} {v}' for k, v in misses.items() if v) or 'none'})")
    print(f"record files: {len(same)} identical, {len(differ)} differ, {len(ours - theirs)} only here, "
          f"{len(theirs - ours)} only in the baseline")
    for title, files in (("differ", differ), ("only here", sorted(ours - theirs)),
                         ("only in the baseline", sorted(theirs - ours))):
        for f in files:
            print(f"  {title}: {f}")
    if args.keep:
        print(f"kept: {proj}")
    else:
        shutil.rmtree(proj, ignore_errors=True)
    return 1 if differ or ours ^ theirs or any(misses.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
