"""Stage `critic`: the LLM writes a critic sample from each practice rollout; its value is checked by replay."""
from __future__ import annotations

from typing import Any

from prefect import flow

from flows.common import CRITIC_SAMPLES, GT_POOL, REFLECTIONS, ROLLOUTS, on_bad, read_input, run_llm_stage
from flows.items import Planned, StagePlan
from flows.params import load_params

SECTIONS = ("world", "llm", "relabel")
CRITIC_KEYS = ("show_expert", "collapse_repeats")


def plan(params: dict[str, Any], policy: str) -> Planned:
    """The items of stage `critic` and how to run one (rebuilt from params and files on a Dask worker)."""
    from household.tasks import get_task
    from planner.config import PlannerConfig
    from planner.examples import ExamplePools
    from planner.relabel import critic_sample
    from pools.records import Reflection, Rollout

    reflections = read_input(REFLECTIONS, "reflection", policy)
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    gt = read_input(GT_POOL, "sample", policy)
    by_id = {r["id"]: Rollout.from_dict(r) for r in rollouts.records}
    n_examples = int(params["relabel"]["critic_examples"])
    pools = ExamplePools.from_records(gt.records)
    gt_by_id = {s.id: s for s in pools.gt}
    cfg = PlannerConfig.from_params({"world": params["world"], "relabel": {
        key: params["relabel"][key] for key in CRITIC_KEYS}})
    items = [(r["id"], r) for r in reflections.records if r["rollout_id"] in by_id]

    def work(client: Any, reflection: dict[str, Any]) -> dict[str, Any]:
        rollout = by_id[reflection["rollout_id"]]
        # The practice task's own gt critic samples would give the answer away: never shown.
        examples = pools.retrieve("critic_gt", rollout.instruction, n_examples, exclude_task=rollout.task_id)
        return critic_sample(rollout, Reflection.from_dict(reflection), get_task(rollout.task_id), client, cfg,
                             examples=examples, expert=gt_by_id.get(rollout.leave_out)).to_dict()

    return Planned(items, work, quarantined=len(reflections.rejected) + len(rollouts.rejected) + len(gt.rejected))


@flow(name="critic")
def critic_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write one critic sample per reflected rollout, prompted with the nearest gt critic examples of other tasks."""
    recipe = StagePlan(plan, (params, policy))
    planned = recipe()
    return run_llm_stage("critic", params, SECTIONS, planned.items, planned.work, CRITIC_SAMPLES, "critic_sample",
                         (REFLECTIONS, ROLLOUTS, GT_POOL), quarantined=planned.quarantined, plan=recipe)


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage critic`."""
    params = load_params()
    critic_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
