"""Stage `probe_set`: the probe's decision states (planner/probe/states.py), with the legal set and the expert's
cost-to-go of every option: recovery states on each probe task, on-policy states from the reference policy's
episodes. Writes them (data/probe/states.jsonl) and the candidate states dropped, by kind and reason
(data/probe/dropped.json, which the probe stage copies into metrics/probe.json). No LLM; deterministic given its
params and seed."""
from __future__ import annotations

import random
from typing import Any

from prefect import flow, get_run_logger

from flows.runtime.declared import output
from flows.runtime.params import load_params, max_failure_share, on_bad, resume_key, section, stage_params
from flows.runtime.stage import finish, run_items, stage_lock
from flows.runtime.stage_io import GT_POOL, TASKS, declared_out, file_digest, read_input
from flows.runtime.workspace import path
from household.world.tasks import get_task
from planner.config import PlannerConfig
from planner.probe.states import (KINDS, dropped_by_kind, executed_subgoals, on_policy_states, probe_tasks,
                                  recovery_states)
from pools.jsonl import write_json, write_jsonl

REFERENCE = output("probe_reference")
DROPPED_FILE = declared_out("probe_set", "dropped.json")


def states_of(params: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """One item: the recovery states of a task, or the on-policy states of a reference rollout, and the candidates
    dropped by reason."""
    probe, seed = section(params, "probe"), int(section(params, "world")["seed"])
    cfg = PlannerConfig.from_params({"world": section(params, "world")})
    task = get_task(payload["task_id"])
    rng = random.Random(f"{probe['seed']}:{payload['kind']}:{task.id}")
    known: dict[tuple, int] = {}
    if payload["kind"] == "recovery":
        got, dropped = recovery_states(task, int(probe["states_per_task"]), cfg, seed, rng, known)
    else:
        got, dropped = on_policy_states(task, payload["executed"], int(probe["on_policy_per_task"]), cfg, seed, rng,
                                        known)
    # Journaled as JSON (an item gives several states); written under the probe_state schema.
    return {"kind": payload["kind"], "states": [s.model_dump() for s in got], "dropped": dict(dropped)}


@flow(name="probe_set")
def probe_set_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write data/probe/states.jsonl: every probe state, recovery then on-policy, task by task."""
    params = stage_params("probe_set", params)
    log = get_run_logger()
    tasks = read_input(TASKS, "task", policy)
    gt = read_input(GT_POOL, "sample", policy)
    reference = read_input(REFERENCE, "rollout", policy)

    probe = section(params, "probe")
    chosen = probe_tasks(tasks.records, gt.records, probe["split"], int(probe["per_type"]), int(probe["seed"]))
    items: list[tuple[str, Any]] = [(f"recovery:{t.id}", {"kind": "recovery", "task_id": t.id}) for t in chosen]
    for r in reference.records:
        items.append((f"on_policy:{r.task_id}", {"kind": "on_policy", "task_id": r.task_id,
                                                  "executed": executed_subgoals(r)}))
    with stage_lock("probe_set"):
        result = run_items("probe_set", items, lambda payload: states_of(params, payload),
                           key=[resume_key(params), file_digest(TASKS, GT_POOL, REFERENCE)])
        rows = [s for rec in result.records for s in rec["states"]]  # an item's states, items in order
        dropped = dropped_by_kind((rec["kind"], rec["dropped"]) for rec in result.records)

        def commit() -> None:
            write_jsonl(path(output("probe_set")), rows, "probe_state")
            write_json(path(DROPPED_FILE), dropped, "probe_dropped")

        out = finish(result, max_failure_share(params), commit=commit,
                     quarantined=len(tasks.rejected) + len(gt.rejected) + len(reference.rejected))
    kinds = {k: sum(1 for s in rows if s["kind"] == k) for k in KINDS}
    log.info("probe_set: %d states %s, d undefined in %d; dropped %s", len(rows), kinds,
             sum(s["d"] is None for s in rows), dropped)
    return out


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage probe_set`."""
    params = load_params()
    probe_set_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
