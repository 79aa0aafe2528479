"""Stage `complete`: the LLM completes each rollout guided by its reflection; every completion is replayed."""
from __future__ import annotations

from typing import Any

from prefect import flow

from flows.runtime.items import Planned, StagePlan
from flows.runtime.llm_stage import run_llm_stage
from flows.runtime.params import load_params, on_bad, stage_params
from flows.runtime.stage_io import COMPLETIONS, GT_POOL, REFLECTIONS, ROLLOUTS
from flows.stages.relabel_inputs import read_reflected
from household.tasks import get_task
from planner.config import PlannerConfig
from planner.relabel.stages import complete
from pools.records import Reflection


def plan(params: dict[str, Any], policy: str) -> Planned:
    """The items of stage `complete` and how to run one (rebuilt from params and files on a Dask worker)."""
    inputs = read_reflected(policy)
    k = int(params["retrieval"]["k"])
    # The relabel keys dvc.yaml declares for the stage, and only those (a key left out there keeps its default).
    cfg = PlannerConfig.from_params({"world": params["world"], "retrieval": params["retrieval"],
                                     "relabel": params["relabel"]})

    def work(client: Any, reflection: dict[str, Any]) -> dict[str, Any]:
        rollout = inputs.rollouts[reflection["rollout_id"]]
        task = get_task(rollout.task_id)
        # The task's own gt sample is never among the examples; it is shown as the expert's rollout (alg. 3 l.9)
        # unless relabel.show_expert is off.
        examples = inputs.pools.retrieve("gt", rollout.instruction, k, exclude_task=task.id)
        return complete(Reflection.from_dict(reflection), rollout, task, client, cfg, examples=examples,
                        expert=inputs.experts.get(rollout.leave_out)).to_dict()

    return Planned(inputs.items, work, quarantined=inputs.quarantined)


@flow(name="complete")
def complete_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write one completion (hindsight actor sample + replay verdict) per reflection, shown K gt examples."""
    params = stage_params("complete", params)  # what dvc.yaml declares for the stage, and only that
    recipe = StagePlan(plan, (params, policy))
    planned = recipe()
    return run_llm_stage("complete", params, planned.items, planned.work, COMPLETIONS, "completion",
                         (REFLECTIONS, ROLLOUTS, GT_POOL), quarantined=planned.quarantined, plan=recipe)


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage complete`."""
    params = load_params()
    complete_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
