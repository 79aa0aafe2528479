"""Pipeline timings: cold `dvc repro`, no-op `dvc repro`, warm-cache `dvc repro -f`, and the stage rerun set
after a critic-only param change. Runs in a temporary copy of the project (its own LLM cache: a real cold run).
Per-stage times are printed for the cold run and for the warm-cache run, each labelled. Exits non-zero when a
target is missed: a no-op `dvc repro` runs a stage or takes 3 s or more (median), the warm-cache
`dvc repro -f` is less than 20x faster than the cold run, the critic-only change reruns anything upstream of
critic, or (default profile only: no --small, no -S) the cold run takes 45 minutes or more.

    python -m benchmarks.bench_pipeline                     # the default profile (params.yaml as is)
    python -m benchmarks.bench_pipeline --small             # a small profile, for a quick look
    python -m benchmarks.bench_pipeline -S llm.model=gemma3-270m
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flows.runtime.prefect_server import prefect_server
from household.world.resources import data_dir

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

# A critic-only param change reruns critic (and what reads its output, if that changed), never these:
CRITIC_UPSTREAM = {"tasks", "gt_pool", "collect", "reflect", "complete"}
NOOP_MAX_S = 3.0          # a no-op `dvc repro` (median)
WARM_MIN_SPEEDUP = 20.0   # cold / warm-cache `dvc repro -f`
COLD_MAX_S = 45 * 60      # cold `dvc repro` of the default profile (`make run` from a fresh clone)
SMALL = ["tasks.task_types=[pick_and_place_simple,pick_heat_then_place_in_recep]", "pools.gt_per_type=2",
         "collect.per_type=1", "evaluate.splits=[valid_seen]", "evaluate.per_type=1", "planner.max_subgoals=6"]


def sh(cwd: Path, env: dict, *cmd: str) -> tuple[float, str]:
    """Run a command; return (seconds, stdout+stderr); raise on failure."""
    exe = str(BIN / cmd[0]) if (BIN / cmd[0]).exists() else cmd[0]
    t0 = time.perf_counter()
    proc = subprocess.run([exe, *cmd[1:]], cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return dt, proc.stdout + proc.stderr


def ran_stages(output: str) -> set[str]:
    """Stages `dvc repro` ran, from its own output."""
    return set(re.findall(r"Running stage '([^']+)'", output))


def stage_summaries(proj: Path) -> dict[str, dict]:
    """Items, failures, seconds and LLM calls of each stage's last run (its full summary, details/stages/*.json)."""
    out = {}
    folder = proj / "details" / "stages"
    for f in sorted((folder if folder.is_dir() else proj / "metrics" / "stages").glob("*.json")):
        d = json.loads(f.read_text())
        out[d["stage"]] = {"items": d["items"], "failed": d["failed"], "seconds": d["seconds"],
                           "llm_calls": (d.get("llm") or {}).get("calls")}
    return out


def copy_project(dest: Path) -> None:
    """Copy the tracked files of the checkout (plus uncommitted edits) into `dest`."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    for rel in files:
        if rel.startswith(("data/", "metrics/", "plots/", "dvc.lock")):
            continue
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    # The copy reads the checkout's data in place: data.dir (what dvc.yaml tracks) made absolute.
    params = dest / "params.yaml"
    params.write_text(re.sub(r"^(data:\n  dir: )\S+", lambda m: m.group(1) + str(data_dir()), params.read_text(),
                             count=1, flags=re.M))
    models = dest / ".cache" / "models"
    models.parent.mkdir(parents=True, exist_ok=True)
    if (ROOT / ".cache" / "models").is_dir():  # assembled GGUF files: shared, read-only
        os.symlink(ROOT / ".cache" / "models", models)
    # else (a checkout without them, e.g. a git worktree) the copy assembles its own on first use: a link to a
    # missing folder would make the server's start fail on every call


def project_copy(dest: Path, api: str) -> dict[str, str]:
    """A copy of the checkout in `dest` as its own git repository; returns the environment its commands run in."""
    copy_project(dest)
    # PYTHONPATH: the stages import the copy's code, so edits to the checkout during a run do not leak in.
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", PREFECT_API_URL=api, DVC_NO_ANALYTICS="1",
               PYTHONPATH=str(dest))
    for cmd in (["git", "init", "-q"], ["git", "config", "user.email", "b@example.com"],
                ["git", "config", "user.name", "bench"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
        sh(dest, env, *cmd)
    return env


def missed_targets(noop_ran: list[str], noop: list[float], cold: float, warm: float, rerun: list[str],
                   default_profile: bool) -> list[str]:
    """The targets this run missed (empty when all are met)."""
    missed = []
    if noop_ran:
        missed.append(f"a no-op dvc repro ran {noop_ran}")
    if statistics.median(noop) >= NOOP_MAX_S:
        missed.append(f"no-op dvc repro {statistics.median(noop):.2f} s >= {NOOP_MAX_S} s (median of {len(noop)})")
    if cold / warm < WARM_MIN_SPEEDUP:
        missed.append(f"warm-cache dvc repro -f only {cold / warm:.1f}x faster than cold (target {WARM_MIN_SPEEDUP}x)")
    if default_profile and cold >= COLD_MAX_S:
        missed.append(f"cold dvc repro of the default profile {cold:.0f} s >= {COLD_MAX_S} s")
    if "critic" not in rerun or set(rerun) & CRITIC_UPSTREAM:
        missed.append(f"relabel.critic_examples reran {rerun}: expected critic and none of {sorted(CRITIC_UPSTREAM)}")
    return missed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="a small profile (2 task types, 1 eval split)")
    ap.add_argument("-S", dest="sets", action="append", default=[], help="extra params override key=value")
    ap.add_argument("--keep", action="store_true", help="keep the temporary project (its path is printed)")
    ap.add_argument("--noop-repeats", type=int, default=3, help="no-op `dvc repro` runs (the median is quoted)")
    args = ap.parse_args()
    sets = (SMALL if args.small else []) + args.sets
    tmp = tempfile.mkdtemp(prefix="bench-pipeline-")
    with prefect_server() as api:
        proj = Path(tmp)
        env = project_copy(proj, api)
        if sets:
            import yaml

            params = yaml.safe_load((proj / "params.yaml").read_text())
            for item in sets:
                key, value = item.split("=", 1)
                *parents, leaf = key.split(".")
                node = params
                for p in parents:
                    node = node[p]
                node[leaf] = yaml.safe_load(value)
            (proj / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        cold, cold_out = sh(proj, env, "dvc", "repro")
        # Per-stage figures of the COLD run: the summaries are rewritten by every later run, so read them now.
        stages = stage_summaries(proj)
        noops = [sh(proj, env, "dvc", "repro") for _ in range(args.noop_repeats)]
        noop = [t for t, _ in noops]
        noop_ran = sorted(set().union(*(ran_stages(out) for _, out in noops)))
        warm, _ = sh(proj, env, "dvc", "repro", "-f")
        warm_stages = stage_summaries(proj)
        params = (proj / "params.yaml").read_text()
        (proj / "params.yaml").write_text(re.sub(r"critic_examples: (\d+)",
                                                 lambda m: f"critic_examples: {int(m.group(1)) + 1}", params))
        _, out = sh(proj, env, "dvc", "repro")
        rerun = sorted(ran_stages(out))
    if args.keep:
        print(f"kept: {proj}")
    else:
        shutil.rmtree(proj, ignore_errors=True)
    print(f"profile: {'small' if args.small else 'default'} {' '.join(args.sets)}")
    print(f"cold dvc repro (1 run, own empty LLM cache): {cold:8.1f} s, ran {len(ran_stages(cold_out))} stages")
    print(f"no-op dvc repro: {statistics.median(noop):8.2f} s (median of {len(noop)}), stages run: {noop_ran or 'none'}")
    print(f"warm-cache dvc repro -f (1 run, LLM cache hits): {warm:8.1f} s  -> cold/warm = {cold / warm:.1f}x")
    print(f"after relabel.critic_examples + 1, reran: {', '.join(rerun)}")
    for title, table in (("per stage, cold run", stages), ("per stage, warm-cache run", warm_stages)):
        print(f"{title}:")
        for name, d in table.items():
            print(f"  {name:<24} items {d['items']:>4}  failed {d['failed']:>3}  {d['seconds']:8.1f} s  "
                  f"llm calls {d['llm_calls']}")
    missed = missed_targets(noop_ran, noop, cold, warm, rerun, default_profile=not sets)
    print("targets met" if not missed else "TARGETS MISSED: " + "; ".join(missed), file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
