"""Record I/O throughput: reading (with the check) and writing a large JSONL file of each record type, this checkout
against another one (the code before a change), measured interleaved.

Each file repeats the real records of a pipeline workspace's data/ (each copy with its own id) up to `--lines`
lines, in a temporary folder (the workspace is only read). Every repeat runs one fresh process per checkout, in
turn, which reads each file as its stages do (typed records where the checkout has them, `read_records`, else
JSON objects, `read_jsonl`) and writes them back (`write_jsonl`), timing each after a warm-up read; the process
start and imports are not timed. Prints per file its lines and size, the median seconds of each checkout over the
repeats and the ratio this/other (below 1: this checkout is faster). Another process on the machine makes the
absolute times noisy; the ratio, measured interleaved, much less.

    .venv/bin/python -m benchmarks.bench_records --other /path/to/other/checkout [--data WORKSPACE/data]
        [--lines 2000] [--repeats 5]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# data/ file -> its record schema
FILES = {
    "relabel/rollouts.jsonl": "rollout",
    "pools/gt.jsonl": "sample",
    "relabel/corrections.jsonl": "correction",
    "relabel/completions.jsonl": "completion",
    "relabel/critic_samples.jsonl": "critic_sample",
    "relabel/reflections.jsonl": "reflection",
    "probe/states.jsonl": "probe_state",
    "probe/picks.jsonl": "probe_pick",
}

# Run in each checkout (PYTHONPATH): time reading and writing each file; prints {file: [read s, write s]}.
WORKER = """
import json, sys, time
from pathlib import Path
import pools.jsonl as jsonl
files = json.loads(sys.argv[1])
typed = getattr(jsonl, "read_records", None)
read = typed or jsonl.read_jsonl
out = {}
for path, schema in files.items():
    read(path, schema)  # warm-up: schema files, validators, the page cache
    t0 = time.perf_counter()
    rows = read(path, schema).records
    t1 = time.perf_counter()
    jsonl.write_jsonl(Path(path).with_suffix(".out"), rows, schema)
    out[path] = [t1 - t0, time.perf_counter() - t1]
print(json.dumps(out))
"""


def build(data: Path, folder: Path, lines: int) -> dict[str, str]:
    """Large files from the workspace's records: each repeated, with fresh ids, up to `lines` lines."""
    made = {}
    for rel, schema in FILES.items():
        rows = [json.loads(x) for x in (data / rel).read_text(encoding="utf-8").splitlines() if x.strip()]
        out = folder / rel.replace("/", "-")
        with out.open("w", encoding="utf-8") as fh:
            for n in range(lines):
                row = dict(rows[n % len(rows)], id=f"{rows[n % len(rows)]['id']}-{n}")
                fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        made[str(out)] = schema
    return made


def measure(checkout: Path, files: dict[str, str]) -> dict[str, list[float]]:
    """One fresh process in `checkout`: {file: [read seconds, write seconds]}."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    proc = subprocess.run([sys.executable, "-c", WORKER, json.dumps(files)], cwd=checkout, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", type=Path, required=True, help="the checkout to compare with (e.g. a worktree of the "
                                                                  "commit before the change)")
    ap.add_argument("--data", type=Path, default=ROOT / "data", help="a pipeline workspace's data/ (read only)")
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    checkouts = {"this": ROOT, "other": args.other.resolve()}
    with tempfile.TemporaryDirectory(prefix="bench-records-") as tmp:
        files = build(args.data, Path(tmp), args.lines)
        runs: dict[str, list[dict[str, list[float]]]] = {k: [] for k in checkouts}
        for i in range(args.repeats):
            for name, checkout in checkouts.items():  # interleaved: both see the same load on the machine
                runs[name].append(measure(checkout, files))
            print(f"repeat {i + 1}/{args.repeats} done", file=sys.stderr, flush=True)
        sizes = {f: Path(f).stat().st_size for f in files}
    print(f"{args.lines} lines per file, median of {args.repeats} repeats (seconds); this = {ROOT}, "
          f"other = {checkouts['other']}")
    print(f"{'file (schema)':42s} {'MB':>6s} {'read this':>10s} {'other':>8s} {'ratio':>6s} "
          f"{'write this':>11s} {'other':>8s} {'ratio':>6s}")
    for f, schema in files.items():
        med: dict[str, Any] = {k: [statistics.median(r[f][i] for r in runs[k]) for i in (0, 1)] for k in checkouts}
        name = f"{Path(f).name.split('-', 1)[1]} ({schema})"
        print(f"{name:42s} {sizes[f] / 1e6:6.1f} {med['this'][0]:10.3f} {med['other'][0]:8.3f} "
              f"{med['this'][0] / med['other'][0]:6.2f} {med['this'][1]:11.3f} {med['other'][1]:8.3f} "
              f"{med['this'][1] / med['other'][1]:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
