"""Stage `corrections`: the expert's corrections of every practice run (planner/probe/corrections.py): at each state
reached right after a step that did not lower the expert's cost-to-go, the legal options with the least cost-to-go.
Writes data/relabel/corrections.jsonl, which the `pool` stage pools with relabel.corrections. No LLM; deterministic
given the rollouts and the world's params."""
from __future__ import annotations

from collections import Counter
from typing import Any

from prefect import flow, get_run_logger

from flows.runtime.declared import output
from flows.runtime.params import load_params, max_failure_share, on_bad, resume_key, section, stage_params
from flows.runtime.stage import finish, run_items, stage_lock
from flows.runtime.stage_io import ROLLOUTS, file_digest, read_input
from flows.runtime.workspace import path
from household.world.tasks import get_task
from planner.config import PlannerConfig
from planner.probe.corrections import corrections
from pools.jsonl import write_jsonl
from pools.records import Rollout


@flow(name="corrections")
def corrections_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write data/relabel/corrections.jsonl: every practice run's corrections, run by run, in step order."""
    params = stage_params("corrections", params)
    log = get_run_logger()
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    cfg = PlannerConfig.from_params({"world": section(params, "world")})

    def work(payload: Rollout) -> dict[str, Any]:
        # An item's corrections (zero or more) are journaled as their JSON; written under the correction schema.
        return {"corrections": [c.model_dump() for c in corrections(payload, get_task(payload.task_id), cfg)]}

    items = [(r.id, r) for r in rollouts.records]
    with stage_lock("corrections"):
        result = run_items("corrections", items, work, key=[resume_key(params), file_digest(ROLLOUTS)])
        rows = [c for rec in result.records for c in rec["corrections"]]
        out = finish(result, max_failure_share(params), quarantined=len(rollouts.rejected),
                     commit=lambda: write_jsonl(path(output("corrections")), rows, "correction"))
    log.info("corrections: %d from %d practice runs, by label %s", len(rows), len(items),
             dict(Counter(c["label"] for c in rows)))
    return out


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage corrections`."""
    params = load_params()
    corrections_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
