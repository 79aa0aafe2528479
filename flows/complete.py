"""Stage `complete`: the LLM completes each rollout guided by its reflection; every completion is replayed."""
from __future__ import annotations

from typing import Any

from prefect import flow

from flows.common import COMPLETIONS, REFLECTIONS, ROLLOUTS, on_bad, read_input, run_llm_stage
from flows.params import load_params

SECTIONS = ("world", "llm", "relabel")


@flow(name="complete")
def complete_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write one completion (hindsight actor sample + replay verdict) per reflection."""
    from household.tasks import get_task
    from planner.config import PlannerConfig
    from planner.relabel import complete
    from pools.records import Reflection, Rollout

    reflections = read_input(REFLECTIONS, "reflection", policy)
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    by_id = {r["id"]: Rollout.from_dict(r) for r in rollouts.records}
    relabel = params["relabel"]
    cfg = PlannerConfig.from_params({"world": params["world"], "relabel": {
        "complete_steps": relabel["complete_steps"], "complete_tokens": relabel["complete_tokens"]}})
    items = [(r["id"], r) for r in reflections.records if r["rollout_id"] in by_id]

    def work(client: Any, reflection: dict[str, Any]) -> dict[str, Any]:
        rollout = by_id[reflection["rollout_id"]]
        return complete(Reflection.from_dict(reflection), rollout, get_task(rollout.task_id), client, cfg).to_dict()

    return run_llm_stage("complete", params, SECTIONS, items, work, COMPLETIONS, "completion",
                         (REFLECTIONS, ROLLOUTS), quarantined=len(reflections.rejected) + len(rollouts.rejected))


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage complete`."""
    params = load_params()
    complete_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
