"""Small stand-ins shared by the planner tests (no world, no encoder)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pools.records import CriticSample, Sample

ARGS = {"object_target": "Apple", "parent_target": "Fridge", "mrecep_target": "", "toggle_target": "",
        "object_state": "cool", "object_sliced": False, "two_objects": False}


class ListIndex:
    """kNN stand-in: 'nearest' is list order; honours `exclude` like the real index."""

    def __init__(self, texts: list[str], cache_key: str = "") -> None:
        self.texts = texts

    def query(self, text: str, k: int, exclude: set[int] = frozenset()) -> list[int]:
        return [i for i in range(len(self.texts)) if i not in exclude][:k]


class RejectingMapper:
    """SubgoalMapper stand-in that maps nothing (strict parsing only)."""

    def __init__(self, legal: list[str], floor: float) -> None:
        pass

    def map(self, text: str) -> tuple[str | None, float]:
        return None, 0.0


@dataclass(frozen=True)
class _Args:
    values: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass(frozen=True)
class FakeTask:
    id: str = "task-under-test"
    task_type: str = "pick_cool_then_place_in_recep"
    text: str = "Put a cold apple in the fridge."
    args: _Args = field(default_factory=lambda: _Args(ARGS))

    def instruction(self, i: int = 0) -> str:
        return self.text


def sample(kind: str, task_id: str, text: str, steps: list[str]) -> Sample:
    return Sample.new(kind=kind, task_id=task_id, task_type="pick_cool_then_place_in_recep", instruction=text,
                      args=ARGS, steps=steps, verified=True, source="expert")


def critic(task_id: str, text: str, steps: list[str], num: int, den: int) -> CriticSample:
    return CriticSample.new(task_id=task_id, task_type="pick_cool_then_place_in_recep", instruction=text,
                            steps=steps, value_num=num, value_den=den, verified=True, source="expert")


def first_task(task_type: str, split: str = "valid_seen") -> Any:
    """The first task of a type in a split."""
    from household.world.tasks import load_tasks

    return next(t for t in load_tasks(split) if t.task_type == task_type)


def gt_pools(task_type: str, n: int) -> Any:
    """ExamplePools holding the gt samples of the first `n` train tasks of a type (list index: no encoder)."""
    from household.world.tasks import load_tasks
    from planner.relabel.gt_samples import build_gt_samples
    from planner.retrieval.examples import ExamplePools

    train = [t for t in load_tasks("train") if t.task_type == task_type][:n]
    return ExamplePools(gt=build_gt_samples(train), index_factory=ListIndex)
