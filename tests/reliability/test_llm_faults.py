"""LLM faults through the real client and stage engine: retried, then failed with the reason; share-gated exit."""
from __future__ import annotations

from pathlib import Path

import pytest

from flows.runtime.stage import StageFailed
from pools.jsonl import read_jsonl
from llm.scripted import ScriptedEndpoint
from testing.harness import (OUT, REASON, TABLE, ItemScript, lost_and_duplicated, make_fault,
                                       minimal_workspace, output_ids, set_param, summary, task_rows, thought)

TIMEOUT = 0.5


def _plan(rows: list[dict], kinds: list[str]) -> tuple[dict[str, list], dict[str, str], dict[str, str]]:
    """Per kind: one item faulted once (must recover) and one faulted every time (must fail with the reason).

    A huge answer is a valid HTTP answer (and cached at temperature 0): retrying cannot help, so it has no
    recovering item; its item fails on the output schema instead.
    """
    plan, transient, persistent = {}, {}, {}
    it = iter(r["id"] for r in rows)
    for kind in kinds:
        if kind != "huge":
            t = next(it)
            plan[t] = [make_fault(kind, TIMEOUT)]
            transient[t] = kind
        p = next(it)
        plan[p] = [make_fault(kind, TIMEOUT) for _ in range(8)]
        persistent[p] = kind
    return plan, transient, persistent


def test_every_fault_kind_retried_then_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                inproc_prefect: str) -> None:
    from testing.driver import driver_flow
    from flows.runtime.params import load_params

    kinds = list(REASON)
    rows = task_rows(per_type=len(kinds) + 3)  # 2 fault items per kind + clean ones
    plan, transient, persistent = _plan(rows, kinds)
    script = ItemScript(plan=plan)
    with ScriptedEndpoint(script) as ep:
        root = minimal_workspace(tmp_path / "ws", ep.url, ep.model, rows, timeout=TIMEOUT)
        monkeypatch.chdir(root)

        # 1) Tolerated share: the stage completes, failed items carry their reason, the rest are written.
        result = driver_flow(load_params(), "fail")
        summ = summary(root)
        failed = {f["item"]: f["reason"] for f in summ["failures"]}
        written = output_ids(root)
        assert set(failed) == set(persistent), failed
        assert set(written) == {r["id"] for r in rows} - set(persistent)
        assert result["failed"] == len(persistent) and summ["ok"] == len(written)
        recs = {r["id"]: r for r in read_jsonl(root / OUT, "reflection").records}
        assert all(recs[i]["think"] == thought(i) for i in transient)
        lost, dup = lost_and_duplicated([r["id"] for r in rows], written, failed)
        for kind in kinds:
            item = next(i for i, k in persistent.items() if k == kind)
            clear = REASON[kind] in failed[item]
            TABLE.add(f"llm {kind}", trials=script.served[kind], lost=lost if kind == kinds[0] else 0,
                      duplicated=dup if kind == kinds[0] else 0, clear=clear, note=f"reason '{REASON[kind]}'")
            assert clear, (kind, failed[item])
        assert (lost, dup) == (0, 0)

        # 2) Above the share: non-zero (StageFailed), previous output untouched, journal kept for the rerun.
        before = (root / OUT).read_bytes()
        set_param(root, "pipeline.max_failure_share", 0.1)
        script.heal()
        still = [i for i, k in persistent.items() if k != "huge"][:3]
        huge = next(i for i, k in persistent.items() if k == "huge")
        script.plan.update({i: [make_fault("status_500", TIMEOUT) for _ in range(8)] for i in still})
        with pytest.raises(StageFailed, match=r"4/\d+ items failed .* > allowed 10%"):
            driver_flow(load_params(), "fail")
        assert (root / OUT).read_bytes() == before
        assert {f["item"] for f in summary(root)["failures"]} == {*still, huge}

        # 3) The endpoint heals: the rerun redoes only the failed items. The huge answer is cached (temperature 0),
        #    so its item fails again with the same reason instead of being silently dropped.
        script.heal()
        calls_before = sum(script.calls.values())
        driver_flow(load_params(), "fail")
        summ = summary(root)
        assert [f["item"] for f in summ["failures"]] == [huge]
        assert summ["reused"] == len(rows) - 4
        assert sorted(output_ids(root) + [huge]) == sorted(r["id"] for r in rows)
        assert sum(script.calls.values()) - calls_before == len(still)
        TABLE.add("llm faults > max_failure_share", trials=1, clear=True, note="StageFailed, exit 1, output kept")
