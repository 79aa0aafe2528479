"""Stage `gt_pool`: the few-shot ground-truth pool, N expert trajectories per task type, with critic samples."""
from __future__ import annotations

import time
from typing import Any

from prefect import flow, get_run_logger

from flows.runtime.params import load_params, on_bad, section, stage_params, subset
from flows.runtime.stage import StageResult, stage_lock, write_summary
from flows.runtime.stage_io import GT_POOL, TASKS, read_input, write_pool
from planner.config import PlannerConfig
from planner.probe.quality import quality_of
from planner.relabel.gt_samples import draw_gt_pool


@flow(name="gt_pool")
def gt_pool_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Pick tasks stratified by type and write their expert plans as gt samples (plus gt critic samples)."""
    params = stage_params("gt_pool", params)  # what dvc.yaml declares for the stage, and only that

    log = get_run_logger()
    started = time.monotonic()
    pools, world = section(params, "pools"), section(params, "world")
    tasks = read_input(TASKS, "task", policy)
    cfg = PlannerConfig.from_params({"world": world})
    samples, critics = draw_gt_pool(tasks.records, int(pools["gt_per_type"]), int(world["seed"]),
                                    split=pools["gt_split"], navigation=str(pools["gt_navigation"]),
                                    cfg=cfg)
    records = [*samples, *critics]
    used = subset(params, "world", "pools")
    manifest = write_pool("gt_pool", records, used, None, quarantined=len(tasks.rejected),
                          quality=lambda rows: quality_of(rows, cfg, int(world["seed"])))
    write_summary(StageResult("gt_pool", records, seconds=time.monotonic() - started), quarantined=len(tasks.rejected))
    log.info("gt_pool: %d tasks -> %d records %s (%s)", len(samples), manifest["records"], manifest["by_kind"], GT_POOL)
    return manifest


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage gt_pool`."""
    params = load_params()
    with stage_lock("gt_pool"):
        gt_pool_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
