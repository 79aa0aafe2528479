"""Fault soak on a real pipeline stage: `reflect`, its own code, on inputs the real `gt_pool` and `collect` wrote.

Setup, once: a temporary workspace (the project's params.yaml, every LLM role sent to the scripted endpoint of
llm.scripted) with `--per-type` train tasks of each of ALFRED's 7 types, chosen so that no two share a phi (the task
rewritten from its arguments): the real `gt_pool` and `collect` stages (planner variant llm_planner, scripted
planner answers) write the gt pool and one practice rollout per task. Those two files are the stage's inputs.

Then, each in a fresh copy of those inputs with its own empty LLM cache:
- soak rounds: `flows.stages.reflect.main` (what `hindsight stage reflect` runs) in this process, with faults aimed per item (the reflect prompt's
  `Task:` line is the item's phi): HTTP 500, 429, timeouts, dropped connections, garbage / truncated / empty /
  non-UTF-8 bodies and huge answers. One item per fault kind per round is faulted on every request (it must fail
  for good); the others get 0-3 random faults (they must come through: an item gets 2 client tries x 2 task tries,
  unless one of its faults is a huge answer, which is cached at temperature 0), a tenth of them 8.
- bad input: broken rows interleaved in the rollouts file, stage run with `--on-bad-record quarantine`.
- SIGKILL: `hindsight stage reflect` as a subprocess, killed once its journal holds a random number of finished
  items, then rerun to the end.

Checks (the benchmark exits 1 when one fails): no item lost (neither written nor reported failed), none written or
reported twice; each item that failed for good carries, as its reason code, exactly the code of the fault that
ended it (the last one served to it; LLMError's code, or 'invalid reflection record' for a huge answer); every
written reflection holds the healthy answer; each bad row is quarantined at its line with its own reason; after a
SIGKILL and rerun, the records equal an uninterrupted run's, the rerun reused the killed run's finished items and no
journal is left; an item with at most 3 transient faults comes through; at least `--min-faults` (200) faults
injected; every request the endpoint saw was attributed to an item.

    .venv/bin/python -m benchmarks.bench_faults [--per-type 6] [--rounds 3] [--kills 5] [--workers 4] [--seed 0]
        [--min-faults 200]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from contextlib import chdir
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
# Item failures are injected by the hundred: their tracebacks would drown the table (each is in the stage summary).
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "CRITICAL")

from llm.scripted import Fault, Request, ScriptedEndpoint  # noqa: E402
from planner.variants import PRESETS  # noqa: E402
from testing.harness import (BIN, REASON, FaultTable, lost_and_duplicated, make_fault,  # noqa: E402
                             on_endpoint, output_ids, planner_answer, prefect_server, write_rows, write_with_bad)

STAGE = "reflect"
ROLLOUTS = "data/relabel/rollouts.jsonl"
GT_POOL = "data/pools/gt.jsonl"
OUT = "data/relabel/reflections.jsonl"
SUMMARY = "details/stages/reflect.json"
TIMEOUT = 1.0  # client timeout per request in the soak (a `delay` fault answers 0.5 s past it)
HEALTHY = "ok"
# LLMError's message: "LLM call for role 'reflect' failed after N attempt(s): CODE (detail)"; the engine prefixes
# the exception's type. The code is compared for equality, not searched for: 'http_500' must not pass for 'http_5'.
LLM_CODE = re.compile(r"^LLMError: LLM call for role 'reflect' failed after \d+ attempt\(s\): (\S+)")
SCHEMA_CODE = "invalid reflection record"
REQUIRED = ("status_500", "status_429", "delay", "garbage")  # the fault kinds the soak must show: each must end items
log = logging.getLogger("bench_faults")


def reason_code(reason: str) -> str:
    """The reason code of a recorded item failure (the whole text when it has none)."""
    m = LLM_CODE.match(reason)
    if m:
        return m.group(1)
    return SCHEMA_CODE if reason.startswith(SCHEMA_CODE) else reason


def healthy(item: str) -> str:
    """What a healthy endpoint answers for an item (deterministic: runs compare record by record)."""
    return f"thought about {item}"


@dataclass
class PhiScript:
    """Endpoint script for reflect: the item is the rollout whose phi the prompt's `Task:` line names; its queued
    faults are served first, then the healthy answer (after `pace` s). Records what it served per item, in order."""

    item_of: dict[str, str]
    plan: dict[str, list[Fault]] = field(default_factory=dict)
    pace: float = 0.0
    served: Counter = field(default_factory=Counter)  # fault kind -> faults served
    order: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # item -> kinds served, in order
    unattributed: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, req: Request) -> Any:
        m = re.search(r"^Task: (.*)$", req.prompt, re.M)
        item = self.item_of.get(m.group(1).strip()) if m else None
        with self._lock:
            if item is None:
                self.unattributed += 1
                return "unattributed"
            queue = self.plan.get(item)
            if queue:
                fault = queue.pop(0)
                kind = f"status_{fault.status}" if fault.kind == "status" else fault.kind
                self.served[kind] += 1
                self.order[item].append(kind)
                return fault
            self.order[item].append(HEALTHY)
        return Fault.delay(self.pace, healthy(item)) if self.pace else healthy(item)


def distinct_phi_rows(per_type: int) -> list[dict[str, Any]]:
    """Task rows (as stage `tasks` writes them) of `per_type` expert-solvable train tasks per type, no phi twice."""
    from household.expert.expert import solve
    from household.world.tasks import load_tasks
    from planner.relabel.phi import phi

    taken: Counter[str] = Counter()
    seen: set[str] = set()
    rows = []
    for t in sorted(load_tasks("train"), key=lambda t: t.id):
        text = phi(t.task_type, t.args.as_dict())
        if taken[t.task_type] >= per_type or text in seen:
            continue
        result = solve(t, seed=0)
        if not result.success:
            continue
        seen.add(text)
        taken[t.task_type] += 1
        rows.append({"id": t.id, "split": "train", "task_type": t.task_type, "floorplan": t.floorplan, "seed": 0,
                     "args": t.args.as_dict(), "instructions": [a.task_desc for a in t.annotations] or [""],
                     "expert_len": len(result.plan), "expert_ok": True, "expert_reason": ""})
    return rows


def write_params(root: Path, url: str, model: str, *, per_type: int, workers: int, timeout: float) -> None:
    """The project's params.yaml with every role on the scripted endpoint, sized for the benchmark."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    on_endpoint(params, url, model, timeout=timeout, retries=1, backoff=0.01, max_concurrency=workers,
                constrain="off")
    params["pools"].update(gt_split="train", gt_per_type=per_type)
    params["collect"].update(per_type=per_type, variant=PRESETS["llm_planner"])
    params["planner"].update(max_subgoals=4)
    params["pipeline"].update(workers=workers, task_runner="threads", dask_address=None, max_failure_share=1.0,
                              on_bad_record="fail")
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")


def build_inputs(root: Path, per_type: int, workers: int) -> dict[str, str]:
    """Run the real `gt_pool` and `collect` stages once; return phi -> rollout id of the rollouts they wrote."""
    from flows.stages import collect, gt_pool
    from planner.relabel.phi import phi
    from pools.jsonl import read_jsonl

    rows = distinct_phi_rows(per_type)
    with ScriptedEndpoint(planner_answer) as ep:
        write_params(root, ep.url, ep.model, per_type=per_type, workers=workers, timeout=30)
        write_rows(root / "data" / "tasks.jsonl", rows)
        with chdir(root):
            gt_pool.main(on_bad_record="fail")  # what `hindsight stage gt_pool` runs
            collect.main(on_bad_record="fail")
    gt = {r["id"]: r for r in read_jsonl(root / GT_POOL, "sample").records if r["kind"] == "gt"}
    rollouts = read_jsonl(root / ROLLOUTS, "rollout").records
    item_of = {phi(gt[r["leave_out"]]["task_type"], gt[r["leave_out"]]["args"]): r["id"] for r in rollouts}
    if len(item_of) != len(rollouts) or len(rollouts) != len(rows):
        raise SystemExit(f"inputs: {len(rows)} tasks -> {len(rollouts)} rollouts, {len(item_of)} distinct phi; "
                         "every item must be one practice task with its own phi")
    return item_of


def workspace(src: Path, dst: Path, url: str, model: str, *, workers: int, timeout: float) -> Path:
    """A fresh copy of the stage's inputs (no LLM cache, journal or outputs) with params for this endpoint."""
    for rel in (ROLLOUTS, GT_POOL):
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, dst / rel)
    params = yaml.safe_load((src / "params.yaml").read_text(encoding="utf-8"))
    params["llm"].update(endpoint=url, model=model, timeout=timeout, max_concurrency=workers)
    for over in params["llm"]["roles"].values():
        over.update({k: url if k == "endpoint" else model for k in over if k in ("endpoint", "model")})
    params["pipeline"].update(workers=workers)
    (dst / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    return dst


def written_ids(root: Path) -> list[str]:
    """Rollout ids of the reflections written, duplicates kept."""
    return output_ids(root, OUT, "rollout_id")


def summary(root: Path) -> dict[str, Any]:
    """The stage's full summary."""
    return json.loads((root / SUMMARY).read_text(encoding="utf-8"))


@dataclass
class KindStats:
    """What one fault kind did across the soak rounds."""

    served: int = 0
    lost: int = 0
    duplicated: int = 0
    ended: int = 0      # items that failed for good with this kind as the last thing served
    clear: int = 0      # of those, items whose reason code is exactly this kind's
    wrong: list[str] = field(default_factory=list)  # reason texts that did not carry it


def soak_round(stats: dict[str, KindStats], src: Path, work: Path, item_of: dict[str, str], rng: random.Random,
               workers: int) -> dict[str, int]:
    """One `reflect` run with faults per item; updates `stats`; returns counts of this round."""
    from flows.stages import reflect
    from pools.jsonl import read_jsonl

    kinds = list(REASON)
    items = sorted(item_of.values())
    rng.shuffle(items)
    plan: dict[str, list[Fault]] = {}
    # One item per kind faulted on every request (8 > the 4 requests an item gets: 2 client tries x 2 task tries).
    for kind, item in zip(kinds, items):
        plan[item] = [make_fault(kind, TIMEOUT) for _ in range(8)]
    for item in items[len(kinds):]:
        n = 8 if rng.random() < 0.1 else rng.choice([0, 1, 1, 2, 3])
        if n:
            plan[item] = [make_fault(rng.choice(kinds), TIMEOUT) for _ in range(n)]
    planned = {i: len(q) for i, q in plan.items()}
    script = PhiScript(item_of, plan)
    with ScriptedEndpoint(script) as ep:
        root = workspace(src, work, ep.url, ep.model, workers=workers, timeout=TIMEOUT)
        with chdir(root):
            reflect.main(on_bad_record="fail")  # what `hindsight stage reflect` runs
    failed = {f["item"]: f["reason"] for f in summary(root)["failures"]}
    written = written_ids(root)
    records = {r["rollout_id"]: r for r in read_jsonl(root / OUT, "reflection").records}
    wrong_answer = [i for i, r in records.items() if r["think"] != healthy(i)]
    for kind in kinds:
        st = stats.setdefault(kind, KindStats())
        hit = [i for i, ks in script.order.items() if kind in ks]
        lost, dup = lost_and_duplicated(hit, [w for w in written if w in hit], [f for f in failed if f in hit])
        st.served += script.served[kind]
        st.lost += lost
        st.duplicated += dup
        for i in failed:
            if script.order.get(i, [None])[-1] == kind:
                st.ended += 1
                if reason_code(failed[i]) == REASON[kind]:
                    st.clear += 1
                else:
                    st.wrong.append(f"{i}: {failed[i][:160]}")
    # An item whose last request got a healthy answer failed because the client gave up waiting (a loaded machine).
    late = stats.setdefault("healthy answer past the timeout (load)", KindStats())
    for i in failed:
        if script.order.get(i, [HEALTHY])[-1] == HEALTHY:
            late.ended += 1
            late.served += 1
            if reason_code(failed[i]) == REASON["delay"]:
                late.clear += 1
            else:
                late.wrong.append(f"{i}: {failed[i][:160]}")
    # Up to 3 transient faults fit in the 4 requests an item gets: such an item must come through (a huge answer is
    # not transient: it is cached at temperature 0, so every retry reads it again).
    unrecovered = [i for i in failed if 0 < planned.get(i, 0) <= 3 and script.order[i][-1] != HEALTHY
                   and "huge" not in script.order[i]]
    lost, dup = lost_and_duplicated(items, written, failed)
    return {"served": sum(script.served.values()), "failed": len(failed), "written": len(written), "lost": lost,
            "duplicated": dup, "wrong_answer": len(wrong_answer), "unattributed": script.unattributed,
            "recoverable_failed": len(unrecovered)}


def bad_rollout_rows(good: dict[str, Any]) -> list[tuple[str, bytes, str]]:
    """Broken rows for the rollouts file: (kind, raw line, what the quarantine reason must mention)."""
    line = json.dumps(good, sort_keys=True).encode()
    wrong = dict(good, id=good["id"] + "-bad-seed", seed="zero")
    missing = {k: v for k, v in good.items() if k != "steps"} | {"id": good["id"] + "-bad-steps"}
    return [
        ("truncated line", line[: len(line) // 2], "not valid JSON"),
        ("wrong type", json.dumps(wrong, sort_keys=True).encode(), "schema path rollout.schema.json#/properties/seed"),
        ("missing field", json.dumps(missing, sort_keys=True).encode(), "schema path rollout.schema.json#/required"),
        ("duplicate id", line, "duplicate id"),
        ("non-UTF-8 bytes", b'{"id": "\xff\xfe"}', "not UTF-8"),
        ("not an object", b"[1, 2, 3]", "schema path rollout.schema.json#/type"),
    ]


def bad_input(table: FaultTable, src: Path, work: Path, item_of: dict[str, str], workers: int) -> None:
    """Bad rows in the rollouts file, stage run with the quarantine policy: each counted, at its line, with its reason."""
    from flows.stages import reflect
    from pools.jsonl import quarantine_path, read_jsonl

    with ScriptedEndpoint(PhiScript(item_of)) as ep:
        root = workspace(src, work, ep.url, ep.model, workers=workers, timeout=10)
        good = read_jsonl(root / ROLLOUTS, "rollout").records
        where = write_with_bad(root / ROLLOUTS, good, bad_rollout_rows(good[0]))
        with chdir(root):
            reflect.main(on_bad_record="quarantine")
    lost, dup = lost_and_duplicated([r["id"] for r in good], written_ids(root))
    side = {s["line"]: s["reason"] for s in map(json.loads, quarantine_path(
        root / ROLLOUTS).read_text(encoding="utf-8").splitlines())}
    explained = set(side) == set(where) and all(where[n][1] in side[n] for n in where)
    table.add("bad input rows (quarantine)", trials=len(where), lost=lost, duplicated=dup,
              clear=explained and summary(root)["quarantined"] == len(where),
              note="each at its line with its own reason; counted in the stage summary")


def stage_env(prefect_url: str) -> dict[str, str]:
    """Environment of `hindsight stage reflect`: the benchmark's Prefect server, this checkout's code, no key."""
    env = dict(os.environ, PREFECT_API_URL=prefect_url, PYTHONPATH=str(ROOT), DVC_NO_ANALYTICS="1",
               PATH=f"{BIN}:{os.environ.get('PATH', '')}", PREFECT_LOGGING_LEVEL="WARNING")
    env.pop("OPENAI_API_KEY", None)
    return env


def run_stage(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`hindsight stage reflect` in `root`, to the end."""
    return subprocess.run([str(BIN / "hindsight"), "stage", STAGE], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)


def kill_mid_stage(root: Path, env: dict[str, str], after_items: int) -> bool:
    """Start the stage, SIGKILL its process group once the journal holds `after_items` finished items.
    Returns whether it was killed mid-stage (not before the first item or after the last)."""
    proc = subprocess.Popen([str(BIN / "hindsight"), "stage", STAGE], cwd=root, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        journals = list((root / ".cache" / "journal").glob("*.jsonl"))
        if journals and journals[0].read_bytes().count(b"\n") >= after_items:
            break
        time.sleep(0.02)
    mid = proc.poll() is None and not (root / OUT).exists()
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return mid


def kills(table: FaultTable, src: Path, tmp: Path, item_of: dict[str, str], n: int, prefect_url: str,
          rng: random.Random) -> None:
    """SIGKILL `hindsight stage reflect` mid-stage, rerun it: the records equal an uninterrupted run's."""
    from pools.jsonl import read_jsonl

    env = stage_env(prefect_url)
    # One item at a time, 0.1 s per answer: the stage runs long enough for a kill to land between items.
    with ScriptedEndpoint(PhiScript(item_of, pace=0.1)) as ep:
        ref = workspace(src, tmp / "ref", ep.url, ep.model, workers=1, timeout=10)
        done = run_stage(ref, env)
        if done.returncode != 0:
            raise SystemExit(f"uninterrupted reflect exited {done.returncode}: {done.stderr[-2000:]}")
        reference = {r["id"]: r for r in read_jsonl(ref / OUT, "reflection").records}
        for k in range(n):
            root = workspace(src, tmp / f"kill{k}", ep.url, ep.model, workers=1, timeout=10)
            after = rng.randrange(1, len(item_of))
            mid = kill_mid_stage(root, env, after)
            rerun = run_stage(root, env)
            written = written_ids(root)
            lost, dup = lost_and_duplicated(item_of.values(), written)
            got = {r["id"]: r for r in read_jsonl(root / OUT, "reflection").records} if not dup and written else {}
            reused = summary(root).get("reused", 0) if rerun.returncode == 0 else 0
            same = (rerun.returncode == 0 and got == reference and mid and reused > 0
                    and not list((root / ".cache" / "journal").glob("*.jsonl")))
            table.add("SIGKILL mid-stage, rerun", trials=1, lost=lost, duplicated=dup, clear=same,
                      note="rerun reuses the journal; records equal to an uninterrupted run")
            print(f"kill {k + 1}/{n} after {after} items (mid-stage: {mid}): rerun exit {rerun.returncode}, "
                  f"{reused} reused, lost {lost}, duplicated {dup}", file=sys.stderr)


def main() -> int:
    """Run the soak, the bad-input run and the kills; print the fault table; exit 1 on any missed check."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-type", type=int, default=6, help="practice tasks per task type (items: 7 x this)")
    ap.add_argument("--rounds", type=int, default=3, help="soak rounds (fresh workspace and LLM cache each)")
    ap.add_argument("--kills", type=int, default=5, help="SIGKILL + rerun trials")
    ap.add_argument("--workers", type=int, default=4, help="pipeline.workers (and llm.max_concurrency) of the soak")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-faults", type=int, default=200, help="target: LLM faults injected in the soak")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("llm").setLevel(logging.ERROR)  # the client's retry warning per injected fault: hundreds
    logging.getLogger("planner").setLevel(logging.ERROR)
    rng = random.Random(args.seed)
    started = time.monotonic()
    table = FaultTable()
    stats: dict[str, KindStats] = {}
    totals: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp:
        tmp_path = Path(tmp)
        server, url = prefect_server(tmp_path / "prefect")
        try:
            from prefect.settings import PREFECT_API_URL, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

            with temporary_settings(updates={PREFECT_API_URL: url, PREFECT_LOGGING_TO_API_ENABLED: False}):
                src = tmp_path / "inputs"
                item_of = build_inputs(src, args.per_type, args.workers)
                print(f"inputs: {len(item_of)} practice rollouts written by the real gt_pool and collect stages "
                      f"(scripted planner answers); {time.monotonic() - started:.0f} s", file=sys.stderr)
                for n in range(args.rounds):
                    got = soak_round(stats, src, tmp_path / f"soak{n}", item_of, rng, args.workers)
                    totals.update(got)
                    print(f"soak round {n + 1}/{args.rounds}: {got}", file=sys.stderr)
                bad_input(table, src, tmp_path / "bad", item_of, args.workers)
            kills(table, src, tmp_path, item_of, args.kills, url, rng)
        finally:
            server.terminate()
            server.wait(timeout=30)
    soak = FaultTable()
    for kind, st in stats.items():
        if kind.startswith("healthy") and not st.ended:
            continue  # no healthy answer came too late this time
        name = kind if kind.startswith("healthy") else f"llm {kind}"
        code = REASON["delay"] if kind.startswith("healthy") else REASON[kind]
        soak.add(name, trials=st.served, lost=st.lost, duplicated=st.duplicated, clear=st.clear == st.ended,
                 note=f"{st.clear}/{st.ended} failed items carry code '{code}'")
    soak.rows.update(table.rows)
    import inspect

    from flows.stages import reflect as stage_module

    where = lambda m: Path(inspect.getfile(m)).resolve().relative_to(ROOT)  # noqa: E731 - named in the header
    print(f"real stage `reflect` ({where(stage_module)}), scripted endpoint ({where(ScriptedEndpoint)}); {len(item_of)} items "
          f"(practice rollouts of the real gt_pool + collect), {args.rounds} soak rounds, workers {args.workers}, "
          f"{args.kills} SIGKILL trials, seed {args.seed}, 1 run")
    print(soak.render())
    print(f"soak: {totals['served']} LLM faults injected into {args.rounds} x {len(item_of)} items; "
          f"{totals['written']} reflections written, {totals['failed']} items failed for good "
          f"({totals['recoverable_failed']} of them with <= 3 transient faults), "
          f"{totals['lost']} lost, {totals['duplicated']} duplicated, {totals['wrong_answer']} written with a wrong "
          f"answer, {totals['unattributed']} requests not attributed to an item; {time.monotonic() - started:.0f} s")
    missed = []
    for row in soak.rows.values():
        if row.lost or row.duplicated or not row.clear:
            missed.append(f"{row.fault}: lost {row.lost}, duplicated {row.duplicated}, clear {row.clear}")
    for kind, st in stats.items():
        missed += [f"{kind}: {w}" for w in st.wrong[:3]]
    missed += [f"{k} never ended an item" for k in REQUIRED if stats.get(k, KindStats()).ended == 0]
    if totals["served"] < args.min_faults:
        missed.append(f"only {totals['served']} faults injected (target {args.min_faults})")
    for key in ("lost", "duplicated", "wrong_answer", "unattributed", "recoverable_failed"):
        if totals[key]:
            missed.append(f"{totals[key]} {key.replace('_', ' ')}")
    if missed:
        print("TARGETS MISSED:\n  " + "\n  ".join(missed))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
