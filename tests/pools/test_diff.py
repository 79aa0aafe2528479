"""Pool diff by stable id: added, removed, changed, counts per task type and kind, manifest changes."""
from __future__ import annotations

from pools.diff import diff_pools
from pools.manifest import build_manifest
from tests.pools.test_jsonl import sample


def test_added_removed_changed() -> None:
    a, b, c = sample("a"), sample("b"), sample("c")
    b2 = dict(b, verified=False)
    old = [a, b]
    new = [b2, c]
    made_by = {"reflect": {"model": "m", "endpoint": "embedded", "id": "embedded:m@sha256:0"}}
    man_a = build_manifest("gt", old, "sample", {"pools": {"gt_per_type": 1}}, made_by)
    man_b = build_manifest("gt", new, "sample", {"pools": {"gt_per_type": 2}},
                           {"reflect": dict(made_by["reflect"], model="n", id="n@api.example.com/v1",
                                            endpoint="openai-compatible")})
    d = diff_pools("gt", "HEAD", old, man_a, "workspace", new, man_b)
    out = d.to_json()
    assert out["added"] == [c["id"]] and out["removed"] == [a["id"]] and out["changed"] == [b["id"]]
    assert out["counts"] == [{"task_type": "pick_cool_then_place_in_recep", "kind": "gt",
                              "added": 1, "removed": 1, "changed": 1}]
    assert out["manifest_changes"]["params.pools.gt_per_type"] == {"a": 1, "b": 2}
    assert "verified_share" in out["manifest_changes"]
    assert out["manifest_changes"]["models.reflect.model"] == {"a": "m", "b": "n"}  # who made it is compared too
    assert "+ " + c["id"] in d.to_text()
