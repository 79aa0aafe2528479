"""Fixtures of the planner tests: a pick-and-place task of valid_seen and a small gt pool of its type (a module may
define its own `task` and `pools` instead)."""
from __future__ import annotations

import pytest

from tests.planner.helpers import first_task, gt_pools


@pytest.fixture(scope="module")
def task():
    return first_task("pick_and_place_simple")


@pytest.fixture(scope="module")
def pools():
    return gt_pools("pick_and_place_simple", 2)
