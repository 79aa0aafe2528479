"""Which tasks a stage works on: the seeded cap on an evaluation's tasks."""
from __future__ import annotations

from pools.select import at_most


def test_at_most_is_a_seeded_sample_in_order_and_zero_keeps_all():
    rows = [{"id": f"t{i}"} for i in range(7)]
    picked = at_most(rows, 3, seed=0)
    assert len(picked) == 3 and picked == at_most(rows, 3, seed=0)  # the same tasks for every variant
    assert [r["id"] for r in picked] == sorted(r["id"] for r in picked)  # in the rows' order
    assert len({tuple(r["id"] for r in at_most(rows, 3, seed=s)) for s in range(6)}) > 1  # the seed chooses
    assert at_most(rows, 0, seed=0) == rows and at_most(rows, 9, seed=0) == rows
