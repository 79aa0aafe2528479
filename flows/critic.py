"""Stage `critic`: the LLM writes a critic sample from each practice rollout; its value is checked by replay."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from prefect import flow

from flows.common import CRITIC_SAMPLES, GT_POOL, REFLECTIONS, ROLLOUTS, on_bad, read_input, run_llm_stage
from flows.params import load_params

SECTIONS = ("world", "llm", "relabel")


@flow(name="critic")
def critic_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write one critic sample per reflected rollout, prompted with gt critic examples of the same task type."""
    from household.tasks import get_task
    from planner.config import PlannerConfig
    from planner.relabel import critic_sample
    from pools.records import CriticSample, Reflection, Rollout

    reflections = read_input(REFLECTIONS, "reflection", policy)
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    gt = read_input(GT_POOL, "sample", policy)
    by_id = {r["id"]: Rollout.from_dict(r) for r in rollouts.records}
    n_examples = int(params["relabel"]["critic_examples"])
    examples: dict[str, list[CriticSample]] = defaultdict(list)
    for rec in sorted(gt.records, key=lambda r: r["id"]):
        if rec["kind"] == "critic" and len(examples[rec["task_type"]]) < n_examples:
            examples[rec["task_type"]].append(CriticSample.from_dict(rec))
    cfg = PlannerConfig.from_params({"world": params["world"]})
    items = [(r["id"], r) for r in reflections.records if r["rollout_id"] in by_id]

    def work(client: Any, reflection: dict[str, Any]) -> dict[str, Any]:
        rollout = by_id[reflection["rollout_id"]]
        return critic_sample(rollout, Reflection.from_dict(reflection), get_task(rollout.task_id), client, cfg,
                             examples=examples[rollout.task_type]).to_dict()

    return run_llm_stage("critic", params, SECTIONS, items, work, CRITIC_SAMPLES, "critic_sample",
                         (REFLECTIONS, ROLLOUTS, GT_POOL),
                         quarantined=len(reflections.rejected) + len(rollouts.rejected) + len(gt.rejected))


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage critic`."""
    params = load_params()
    critic_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
