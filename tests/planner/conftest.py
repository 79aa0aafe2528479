"""Fixtures of the planner tests: a pick-and-place task of valid_seen and a small gt pool of its type (a module may
define its own `task` and `pools` instead)."""
from __future__ import annotations

import pytest

from household.tasks import load_tasks
from planner.examples import ExamplePools
from planner.gt import build_gt_samples
from tests.planner.helpers import ListIndex


@pytest.fixture(scope="module")
def task():
    return next(t for t in load_tasks("valid_seen") if t.task_type == "pick_and_place_simple")


@pytest.fixture(scope="module")
def pools():
    train = [t for t in load_tasks("train") if t.task_type == "pick_and_place_simple"][:2]
    return ExamplePools(gt=build_gt_samples(train), index_factory=ListIndex)
