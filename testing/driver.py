"""A minimal LLM stage on the real engine (flows.runtime.llm_stage.run_llm_stage): one chat call per task, one record out.

It stands in for collect/reflect (whose planner code is still moving) so the reliability suite exercises exactly
the shared machinery every LLM stage uses: schema-checked input with the bad-record policy, Prefect task per item
with retries on LLMError, the per-item journal, the stage lock, atomic output and the stage summary.
Run it in a project copy as `python -m testing.driver [--on-bad-record fail|quarantine]`.
"""
from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from prefect import flow

STAGE = "reldriver"
INPUT = "data/tasks.jsonl"
OUTPUT = "data/rel/out.jsonl"


def prompt(task: dict[str, Any]) -> str:
    """The prompt of one item; it names the item so a scripted endpoint can aim faults at it."""
    return f"ITEM {task['id']}\nReflect on: {task['instructions'][0]}"


def plan(params: dict[str, Any], policy: str) -> Any:
    """The driver's items (one per input task) and its work: one chat call, one reflection-shaped record."""
    from flows.runtime.items import Planned
    from flows.runtime.stage_io import read_input
    from pools.records import Reflection

    tasks = read_input(INPUT, "task", policy)
    items = [(t["id"], t) for t in tasks.records]

    def work(client: Any, task: dict[str, Any]) -> Reflection:
        text = client.chat("reflect", [{"role": "user", "content": prompt(task)}]).text
        # Built unchecked, as Reflection.new builds, but keyed by its task (runs compare record by record); the
        # engine checks it, so an oversize answer fails the item as an invalid reflection record.
        return Reflection.model_construct(id=task["id"], rollout_id=task["id"], task_id=task["id"],
                                          phi=task["instructions"][0], think=text)

    return Planned(items, work, quarantined=len(tasks.rejected))


@flow(name=STAGE)
def driver_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Ask the LLM once per input task and write one reflection-shaped record per task."""
    from flows.runtime.items import StagePlan
    from flows.runtime.llm_stage import run_llm_stage

    from flows.runtime.params import StageParams

    # Declared as dvc.yaml declares an LLM stage's params (the driver is not in dvc.yaml).
    params = StageParams(params, STAGE, ("llm", "pipeline.on_bad_record", "pipeline.max_failure_share"))
    return run_llm_stage(STAGE, params, StagePlan(plan, (params, policy)), OUTPUT, "reflection", (INPUT,))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; exit codes and messages as `hindsight stage` gives them."""
    from flows.runtime.workspace import configure

    configure()
    from flows.runtime.params import ParamsError, load_params, on_bad
    from flows.runtime.stage import StageFailed
    from pools.journal import StageBusy
    from pools.jsonl import RecordError

    ap = argparse.ArgumentParser(prog="reldriver")
    ap.add_argument("--on-bad-record", choices=("fail", "quarantine"), default=None)
    args = ap.parse_args(argv)
    params = load_params()
    try:
        driver_flow(params, on_bad(params, args.on_bad_record))
    except (ParamsError, RecordError, StageBusy, StageFailed) as exc:
        logging.getLogger("hindsight").error("%s", exc)
        print(f"{STAGE}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
