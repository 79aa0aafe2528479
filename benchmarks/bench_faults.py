"""Fault soak: hundreds of injected LLM faults, SIGKILLs and bad rows through the real client and stage engine.

The stage is a stand-in: `tests/reliability/driver.py`, one LLM call per task on the real engine every LLM stage
uses (flows.runtime.llm_stage.run_llm_stage: retries, journal, lock, atomic output, summary), not one of the pipeline's
stages. Prints the same table as `pytest tests/reliability` (fault, trials, items lost, items duplicated, clear
error). An error is clear when the item's recorded failure names the reason code of the fault that ended it (the
last one served to it). Exits non-zero when any item is lost or duplicated, any error is unclear, or fewer than
200 faults were injected.

    .venv/bin/python benchmarks/bench_faults.py [--items 60] [--rounds 3] [--kills 5] [--seed 0]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")  # per-item progress lines would drown the table

from tests.fakes import Fault, Request, ScriptedEndpoint  # noqa: E402
from tests.reliability.harness import (OUT, REASON, ItemScript, FaultTable, bad_rows, driver_env,  # noqa: E402
                                       kill_and_resume, lost_and_duplicated, make_fault, minimal_workspace,
                                       output_ids, prefect_server, run_driver, summary, task_rows, thought,
                                       write_with_bad)

TIMEOUT = 0.5
log = logging.getLogger("bench_faults")


HEALTHY = "ok"  # a healthy answer was served (the client may still have given up on it: a timeout under load)


class RecordingScript(ItemScript):
    """ItemScript that also records, per item, what it served, in order: fault kinds, or HEALTHY."""

    def __init__(self, plan: dict[str, list[Fault]]) -> None:
        super().__init__(plan=plan)
        self.order: dict[str, list[str]] = {}

    def __call__(self, req: Request) -> object:
        answer = super().__call__(req)
        m = re.search(r"ITEM (\S+)", req.prompt)
        if isinstance(answer, Fault):  # no pace here: every Fault answered is an injected one
            kind = f"status_{answer.status}" if answer.kind == "status" else answer.kind
        else:
            kind = HEALTHY
        self.order.setdefault(m.group(1) if m else "?", []).append(kind)
        return answer


def soak_round(table: FaultTable, work: Path, rows: list[dict], rng: random.Random) -> tuple[int, int]:
    """One stage run with random faults per item; returns the faults served and the items that failed for good."""
    from flows.runtime.params import load_params
    from pools.jsonl import read_jsonl
    from tests.reliability.driver import driver_flow

    kinds = list(REASON)
    plan: dict[str, list] = {}
    got: dict[str, list[str]] = {}
    for r in rows:
        # Mostly 0-3 faults (recoverable within client retries x task retries), some items faulted for good.
        n = 8 if rng.random() < 0.1 else rng.choice([0, 1, 1, 2, 3])
        picked = [rng.choice(kinds) for _ in range(n)]
        if picked:
            plan[r["id"]], got[r["id"]] = [make_fault(k, TIMEOUT) for k in picked], picked
    script = RecordingScript(plan)
    with ScriptedEndpoint(script) as ep:
        root = minimal_workspace(work, ep.url, ep.model, rows, timeout=TIMEOUT, max_failure_share=1.0)
        os.chdir(root)
        driver_flow(load_params(), "fail")
    summ = summary(root)
    failed = {f["item"]: f["reason"] for f in summ["failures"]}
    written = output_ids(root)
    records = {r["id"]: r for r in read_jsonl(root / OUT, "reflection").records}
    for kind in kinds:
        items = [i for i, ks in got.items() if kind in ks]
        lost, dup = lost_and_duplicated(items, [w for w in written if w in items], [f for f in failed if f in items])
        # A failed item must name the reason of the fault that ended it: the last one served to it.
        ended = [i for i in failed if i in got and script.order.get(i, [None])[-1] == kind]
        clear = all(REASON[kind] in failed[i] for i in ended)
        right = all(records[i]["think"] == thought(i) for i in items if i in records)
        table.add(f"llm {kind}", trials=script.served[kind], lost=lost, duplicated=dup, clear=clear and right,
                  note=f"reason '{REASON[kind]}'")
    # An item whose last request got a healthy answer failed because the client gave up waiting (a loaded machine):
    # its error must say so.
    late = [i for i in failed if script.order.get(i, [HEALTHY])[-1] == HEALTHY]
    if late:
        table.add("llm healthy answer past the timeout (load)", trials=len(late),
                  clear=all(REASON["delay"] in failed[i] for i in late), note=f"reason '{REASON['delay']}'")
    lost, dup = lost_and_duplicated([r["id"] for r in rows], written, failed)
    assert (lost, dup) == (0, 0), (lost, dup)
    return sum(script.served.values()), len(failed)


def main() -> int:
    """Run the soak and print the fault table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=60, help="items per soak round")
    ap.add_argument("--rounds", type=int, default=3, help="soak rounds (fresh workspace each)")
    ap.add_argument("--kills", type=int, default=5, help="SIGKILL + rerun trials")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    rng = random.Random(args.seed)
    table = FaultTable()
    started = time.monotonic()
    print(f"stand-in stage tests/reliability/driver.py: {args.rounds} soak rounds x {args.items} items, "
          f"{args.kills} SIGKILL trials, seed {args.seed}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp:
        tmp_path = Path(tmp)
        server, url = prefect_server(tmp_path / "prefect")
        try:
            from prefect.settings import PREFECT_API_URL, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

            rows = task_rows(per_type=(args.items + 1) // 2)[: args.items]
            injected = failed_for_good = 0
            with temporary_settings(updates={PREFECT_API_URL: url, PREFECT_LOGGING_TO_API_ENABLED: False}):
                for n in range(args.rounds):
                    served, failed = soak_round(table, tmp_path / f"soak{n}", rows, rng)
                    injected, failed_for_good = injected + served, failed_for_good + failed
                    print(f"soak round {n + 1}/{args.rounds}: {injected} faults injected so far", file=sys.stderr)
                os.chdir(ROOT)

                # Bad input through the stage, quarantined and counted.
                from flows.runtime.params import load_params
                from tests.reliability.driver import INPUT, driver_flow

                with ScriptedEndpoint(ItemScript()) as ep:
                    root = minimal_workspace(tmp_path / "bad", ep.url, ep.model, rows[:12])
                    where = write_with_bad(root / INPUT, rows[:12], bad_rows(rows[0]))
                    os.chdir(root)
                    driver_flow(load_params(), "quarantine")
                    os.chdir(ROOT)
                    written = output_ids(root)
                    lost, dup = lost_and_duplicated([r["id"] for r in rows[:12]], written)
                    # Clear: each rejected row is counted, at its line, with the reason its kind must give.
                    from pools.jsonl import quarantine_path
                    side = {s["line"]: s["reason"] for s in map(json.loads, quarantine_path(
                        root / INPUT).read_text(encoding="utf-8").splitlines())}
                    explained = set(side) == set(where) and all(where[n][1] in side[n] for n in where)
                    table.add("bad input rows (quarantine)", trials=len(where), lost=lost, duplicated=dup,
                              clear=explained and summary(root)["quarantined"] == len(where),
                              note="reason per row; counted in stage summary")

            # SIGKILL at random points, then rerun: same records as an uninterrupted run.
            env = driver_env(url)
            kill_rows = rows[:12]
            with ScriptedEndpoint(ItemScript(pace=0.25)) as ep:
                ref_root = minimal_workspace(tmp_path / "ref", ep.url, ep.model, kill_rows)
                t0 = time.monotonic()
                assert run_driver(ref_root, env).returncode == 0
                seconds = time.monotonic() - t0
                from pools.jsonl import read_jsonl
                reference = {r["id"]: r for r in read_jsonl(ref_root / OUT, "reflection").records}
                for k in range(args.kills):
                    root = minimal_workspace(tmp_path / f"kill{k}", ep.url, ep.model, kill_rows)
                    lost, dup, same, _ = kill_and_resume(root, env, reference, kill_after=rng.uniform(0, seconds))
                    table.add("SIGKILL mid-stage, rerun", trials=1, lost=lost, duplicated=dup, clear=same,
                              note="records identical to uninterrupted run")
                    print(f"kill {k + 1}/{args.kills}: lost {lost}, duplicated {dup}", file=sys.stderr)
        finally:
            os.chdir(ROOT)
            server.terminate()
            server.wait(timeout=30)
    print(table.render())
    print(f"{injected} LLM faults injected into {args.rounds} x {args.items} items; {failed_for_good} items failed "
          f"for good, each checked for its fault's reason; {time.monotonic() - started:.0f} s")
    bad = [r for r in table.rows.values() if r.lost or r.duplicated or not r.clear]
    return 1 if bad or injected < 200 else 0


if __name__ == "__main__":
    sys.exit(main())
