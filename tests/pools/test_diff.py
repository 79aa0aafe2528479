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


def test_the_pools_quality_is_compared_by_kind_and_not_leaf_by_leaf() -> None:
    from planner.probe.quality import pool_quality
    from pools.records import Sample

    a, b = sample("a"), sample("b")
    sa, sb = Sample.model_validate(a), Sample.model_validate(b)
    q_old = pool_quality([(sa, ["progress", "neutral"])])
    q_new = pool_quality([(sa, ["progress", "progress"]), (sb, ["progress", "regress", "refused", "progress"])])
    man_a = build_manifest("gt", [a], "sample", {}, None, quality=q_old)
    man_b = build_manifest("gt", [a, b], "sample", {}, None, quality=q_new)
    d = diff_pools("gt", "HEAD", [a], man_a, "workspace", [a, b], man_b)
    assert d.to_json()["quality"] == {"gt": {"a": 0.5, "b": 0.6667}}  # no hindsight samples on either side
    assert not any(k.startswith("quality") for k in d.manifest_changes)
    assert "quality, gt samples' steps that lower the expert's cost-to-go: 50% -> 67%" in d.to_text()
    # a manifest written before the pool's quality was measured
    old = diff_pools("gt", "HEAD", [a], build_manifest("gt", [a], "sample", {}, None), "workspace", [a, b], man_b)
    assert "not measured -> 67%" in old.to_text()


def correction(label: str, n: int) -> dict:
    """A correction record (pure data) after `n` steps of a run, the last one labeled `label`."""
    from pools.records import Correction
    from tests.pools.test_jsonl import ARGS

    steps = ["Navigation Apple", "PickupObject Apple", "Navigation Sink", "PutObject Apple Sink"][:n]
    return Correction.new(task_id="t1", task_type="pick_cool_then_place_in_recep", instruction="Cool an apple.",
                          args=ARGS, source="ro-1", steps=steps, reasons=[""] * n, label=label, d=4,
                          optimal=["Navigation Fridge"], shown="Navigation Fridge", shown_by="task",
                          robot_next="").model_dump()


def test_corrections_added_and_removed_are_counted_by_label() -> None:
    a, kept, gone = sample("a"), correction("neutral", 2), correction("regress", 3)
    new = [correction("neutral", 1), correction("refused", 4)]
    d = diff_pools("hindsight", "HEAD", [a, kept, gone], None, "workspace", [a, kept, *new], None)
    assert d.to_json()["corrections"] == {"neutral": {"added": 1, "removed": 0},
                                          "refused": {"added": 1, "removed": 0},
                                          "regress": {"added": 0, "removed": 1}}
    assert "corrections (the expert's next step after a step that did not lower its cost-to-go): added 2, " \
           "removed 1; by the step before: neutral +1 -0, refused +1 -0, regress +0 -1" in d.to_text()
    assert {"task_type": "pick_cool_then_place_in_recep", "kind": "correction", "added": 2, "removed": 1,
            "changed": 0} in d.to_json()["counts"]
    plain = diff_pools("gt", "HEAD", [a], None, "workspace", [a, sample("b")], None)
    assert plain.to_json()["corrections"] == {} and "corrections" not in plain.to_text()
