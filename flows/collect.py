"""Stage `collect`: the agent's leave-one-out practice rollouts on ground-truth tasks."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from prefect import flow

from flows.common import GT_POOL, ROLLOUTS, on_bad, read_input, run_llm_stage, subset
from flows.params import load_params, section

SECTIONS = ("world", "llm", "retrieval", "planner", "collect")


def practice_samples(gt_records: list[dict[str, Any]], per_type: int) -> list[dict[str, Any]]:
    """The gt actor samples to practise on: the first `per_type` of each task type, by id."""
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in sorted(gt_records, key=lambda r: r["id"]):
        if rec["kind"] == "gt":
            by_type[rec["task_type"]].append(rec)
    return [rec for t in sorted(by_type) for rec in by_type[t][:per_type]]


@flow(name="collect")
def collect_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Run the planner on each practice task with its own gt sample left out; write the rollouts."""
    from household.tasks import get_task
    from planner.config import PlannerConfig
    from planner.examples import ExamplePools
    from planner.relabel import collect_rollout
    from pools.records import CriticSample, Sample

    gt = read_input(GT_POOL, "sample", policy)
    cfg = PlannerConfig.from_params(subset(params, *SECTIONS), variant=section(params, "collect")["variant"])
    pools = ExamplePools(
        gt=[Sample.from_dict(r) for r in gt.records if r["kind"] == "gt"],
        critic=[CriticSample.from_dict(r) for r in gt.records if r["kind"] == "critic"],
    )
    items = [(s["id"], s) for s in practice_samples(gt.records, int(section(params, "collect")["per_type"]))]

    def work(client: Any, sample: dict[str, Any]) -> dict[str, Any]:
        return collect_rollout(get_task(sample["task_id"]), (), (), client, cfg, leave_out=sample["id"],
                               pools=pools).to_dict()

    return run_llm_stage("collect", params, SECTIONS, items, work, ROLLOUTS, "rollout", (GT_POOL,),
                         quarantined=len(gt.rejected))


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage collect`."""
    params = load_params()
    collect_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
