"""Stage `complete`: the LLM completes each rollout guided by its reflection, shown K gt examples; every completion
is replayed (one hindsight actor sample and its replay verdict per reflection)."""
from __future__ import annotations

from typing import Any

from flows.runtime.items import Planned
from flows.runtime.llm_stage import LLMStage
from flows.runtime.stage_io import COMPLETIONS, GT_POOL, REFLECTIONS, ROLLOUTS
from flows.stages.relabel_inputs import read_reflected
from household.world.tasks import get_task
from planner.config import PlannerConfig
from planner.relabel.stages import complete
from pools.records import Completion, Reflection


def plan(params: dict[str, Any], policy: str) -> Planned:
    """The items of stage `complete` and how to run one (rebuilt from params and files on a Dask worker)."""
    inputs = read_reflected(policy)
    k = int(params["retrieval"]["k"])
    # The relabel keys dvc.yaml declares for the stage, and only those (a key left out there keeps its default).
    cfg = PlannerConfig.from_params({"world": params["world"], "retrieval": params["retrieval"],
                                     "relabel": params["relabel"]})

    def work(client: Any, reflection: Reflection) -> Completion:
        rollout = inputs.rollouts[reflection.rollout_id]
        task = get_task(rollout.task_id)
        # The task's own gt sample is never among the examples; it is shown as the expert's rollout (alg. 3 l.9)
        # unless relabel.show_expert is off.
        examples = inputs.pools.retrieve("gt", rollout.instruction, k, exclude_task=task.id)
        return complete(reflection, rollout, task, client, cfg, examples=examples,
                        expert=inputs.experts.get(rollout.leave_out))

    return Planned(inputs.items, work, quarantined=inputs.quarantined)


STAGE = LLMStage("complete", plan, inputs=(REFLECTIONS, ROLLOUTS, GT_POOL), out=COMPLETIONS, record="completion")
main = STAGE.main


if __name__ == "__main__":
    main()
