"""Stage `critic`: critic samples written from the same rollouts, values checked against the world replay."""
from __future__ import annotations

from typing import Any

from prefect import flow

from flows.common import COMPLETIONS, CRITIC_SAMPLES, ROLLOUTS, on_bad, read_input, run_llm_stage
from flows.params import load_params

SECTIONS = ("world", "llm", "relabel")


@flow(name="critic")
def critic_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write the critic samples of each completed rollout (one item per completion)."""
    from household.tasks import get_task
    from planner.config import PlannerConfig
    from planner.relabel import critic_samples
    from pools.records import Completion, Rollout

    completions = read_input(COMPLETIONS, "completion", policy)
    rollouts = read_input(ROLLOUTS, "rollout", policy)
    by_id = {r["id"]: Rollout.from_dict(r) for r in rollouts.records}
    cfg = PlannerConfig.from_params({"world": params["world"],
                                     "relabel": {"critic_prefixes": params["relabel"]["critic_prefixes"]}})
    items = [(c["id"], c) for c in completions.records if c["rollout_id"] in by_id]

    def work(client: Any, completion: dict[str, Any]) -> dict[str, Any]:
        done = Completion.from_dict(completion)
        samples = critic_samples(done, by_id[done.rollout_id], get_task(done.task_id), client, cfg)
        return {"id": done.id, "samples": [s.to_dict() for s in samples]}

    summary = run_llm_stage("critic", params, SECTIONS, items, work, CRITIC_SAMPLES, "critic_batch",
                            (COMPLETIONS, ROLLOUTS), quarantined=len(completions.rejected) + len(rollouts.rejected))
    return summary


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage critic`."""
    params = load_params()
    critic_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
