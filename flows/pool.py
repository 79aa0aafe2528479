"""Stage `pool`: the hindsight pool = verified hindsight actor samples + critic samples, with a manifest."""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

from prefect import flow, get_run_logger

from flows.common import COMPLETIONS, CRITIC_SAMPLES, on_bad, path, read_input, write_pool
from flows.params import load_params
from flows.stage import StageResult, stage_lock, write_summary
from pools.jsonl import atomic_write_text


def select(completions: list[dict[str, Any]], critics: list[dict[str, Any]], keep_unverified: bool
           ) -> list[dict[str, Any]]:
    """Hindsight actor samples (verified unless keep_unverified) and verified critic samples, deduplicated by id."""
    out: dict[str, dict[str, Any]] = {}
    for c in completions:
        if c["verified"] or keep_unverified:
            out[c["sample"]["id"]] = c["sample"]
    for s in critics:
        if s["verified"] or keep_unverified:
            out[s["id"]] = s
    return list(out.values())


@flow(name="pool")
def pool_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
    """Write data/pools/hindsight.jsonl, its manifest and the pool-composition plot data."""
    log = get_run_logger()
    completions = read_input(COMPLETIONS, "completion", policy)
    critics = read_input(CRITIC_SAMPLES, "critic_sample", policy)
    keep = bool(params["relabel"]["keep_unverified"])
    records = select(completions.records, critics.records, keep)
    quarantined = len(completions.rejected) + len(critics.rejected)
    used = {"relabel": {"keep_unverified": keep}, "llm": {"endpoint": params["llm"]["endpoint"]}}
    manifest = write_pool("hindsight", records, used, params["llm"]["model"], quarantined)
    rows = [{"task_type": t, "kind": k, "count": n}
            for (t, k), n in sorted(Counter((r["task_type"], r["kind"]) for r in records).items())]
    atomic_write_text(path("plots/pool_composition.json"), json.dumps(rows, indent=1) + "\n")
    write_summary(StageResult("pool", records), quarantined=quarantined)
    log.info("pool: %d records %s, verified share %.2f", manifest["records"], manifest["by_kind"],
             manifest["verified_share"])
    return manifest


def main(item: str | None = None, on_bad_record: str | None = None) -> None:
    """Entry point for `hindsight stage pool`."""
    params = load_params()
    with stage_lock("pool"):
        pool_flow(params, on_bad(params, on_bad_record))


if __name__ == "__main__":
    main()
