"""What bench_planner and bench_adapter share: the gt pool as the `gt_pool` stage draws it, and the seeded task sample
(the same tasks for the same --split, --per-type and --types). Imports are lazy: call after
flows.runtime.workspace.configure()."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def gt_pool(params: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The ground-truth actor and critic samples, drawn as the `gt_pool` stage draws them (params pools.*)."""
    from household.world.tasks import load_tasks
    from planner.relabel.gt_samples import draw_gt_pool

    train = [{"id": t.id, "split": t.split, "task_type": t.task_type} for t in load_tasks("train")]
    return draw_gt_pool(train, int(params["pools"]["gt_per_type"]), int(params["world"]["seed"]),
                        split=params["pools"]["gt_split"],
                        navigation=str(params["pools"].get("gt_navigation", "object")))


def with_hindsight(gt: list[Any], critic: list[Any], hindsight_pool: Path | None) -> Any:
    """ExamplePools of the gt samples and critic samples, plus a hindsight pool file's samples: its hindsight samples
    and corrections for Actor_hind, its critic samples beside `critic` (none when the file is None or missing)."""
    from planner.retrieval.examples import ExamplePools
    from pools.jsonl import read_records

    found = hindsight_pool is not None and Path(hindsight_pool).is_file()
    read = ExamplePools.from_records(read_records(hindsight_pool, "sample").records if found else [])
    return ExamplePools(gt=gt, hind=list(read.hind), critic=[*critic, *read.critic])


def seeded_tasks(split: str, per_type: int, seed: int, types: str = "", task_set: str = "all") -> list[Any]:
    """`per_type` tasks of each task type of `split` (pools.select.stratified, `seed`) among those of `task_set`
    (heldout: outside the dev set, dev, all); `types`: comma-separated. The dev set holds the specs of the sample
    `--per-type 4` of every valid_unseen task (task_set all), which bench_gate still uses."""
    from household.world.tasks import in_task_set, load_tasks
    from pools.select import stratified

    tasks = load_tasks(split)
    keep = set(filter(None, types.split(",")))
    rows = [{"id": t.id, "split": t.split, "task_type": t.task_type} for t in tasks
            if (not keep or t.task_type in keep) and in_task_set(t.id, task_set)]
    by_id = {t.id: t for t in tasks}
    return [by_id[r["id"]] for r in stratified(rows, per_type, seed, split=split)]
