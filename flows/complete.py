"""Stage `complete`: the LLM completes each rollout guided by its reflection; every completion is replayed."""
from __future__ import annotations

from typing import Any

from prefect import flow

from flows.common import COMPLETIONS, GT_POOL, REFLECTIONS, ROLLOUTS, on_bad, read_input, run_llm_stage
from flows.items import Planned, StagePlan
from flows.params import load_params

SECTIONS = ("world", "llm", "retrieval", "relabel")
COMPLETE_KEYS = ("complete_steps", "complete_tokens", "show_expert", "repair_rounds", "collapse_repeats",
                 "repair_temperature")


def plan(params: dict[str, Any], policy: str) -> Planned:
    """The items of stage `complete` and how to run one (rebuilt from params and files on a Dask worker)."""
    from household.tasks import get_task
    from planner.config import PlannerConfig
    from planner.examples import ExamplePools
    from planner.relabel import complete
    from pools.records import Reflection, Rollout

    reflections = read_input(REFLECTIONS, "reflection", policy)
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    gt = read_input(GT_POOL, "sample", policy)
    by_id = {r["id"]: Rollout.from_dict(r) for r in rollouts.records}
    pools = ExamplePools.from_records(gt.records)
    gt_by_id = {s.id: s for s in pools.gt}
    k = int(params["retrieval"]["k"])
    relabel = params["relabel"]
    cfg = PlannerConfig.from_params({"world": params["world"], "retrieval": params["retrieval"], "relabel": {
        key: relabel[key] for key in COMPLETE_KEYS}})
    items = [(r["id"], r) for r in reflections.records if r["rollout_id"] in by_id]

    def work(client: Any, reflection: dict[str, Any]) -> dict[str, Any]:
        rollout = by_id[reflection["rollout_id"]]
        task = get_task(rollout.task_id)
        # The task's own gt sample is never among the examples; it is shown as the expert's rollout (alg. 3 l.9)
        # unless relabel.show_expert is off.
        examples = pools.retrieve("gt", rollout.instruction, k, exclude_task=task.id)
        return complete(Reflection.from_dict(reflection), rollout, task, client, cfg, examples=examples,
                        expert=gt_by_id.get(rollout.leave_out)).to_dict()

    return Planned(items, work, quarantined=len(reflections.rejected) + len(rollouts.rejected) + len(gt.rejected))


@flow(name="complete")
def complete_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write one completion (hindsight actor sample + replay verdict) per reflection, shown K gt examples."""
    recipe = StagePlan(plan, (params, policy))
    planned = recipe()
    return run_llm_stage("complete", params, SECTIONS, planned.items, planned.work, COMPLETIONS, "completion",
                         (REFLECTIONS, ROLLOUTS, GT_POOL), quarantined=planned.quarantined, plan=recipe)


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage complete`."""
    params = load_params()
    complete_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
