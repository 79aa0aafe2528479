"""Wall-clock timing of a stage's items, kept apart from the records they produced.

A record that a stage writes (a rollout, a reflection, ...) holds only what the same inputs always give, so that
`pipeline.workers: 16` writes the bytes of `workers: 1` and a rerun changes no hash downstream. What was measured
(the item's wall seconds, the seconds spent waiting on the LLM, per role, and what the run met: response-cache
hits, retries, errors) goes to the stage's timing file, details/timing/<stage>.jsonl (schema `timing`), one line
per record, joined to it by the record's `id`.
Pure data: no world, no LLM.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Timed:
    """What an item's work hands back to the stage engine: its record and what running it measured (picklable:
    it crosses from a Dask worker to the flow)."""

    record: Any                    # a typed record (pools/records.py)
    seconds: float                 # the item's wall time, where it ran
    usage: dict[str, Any]          # the item's LLM usage summary (llm.usage.Usage.summary, with seconds)


def timing_row(item: str, timed: Timed) -> dict[str, Any]:
    """The timing line of one finished item (schema `timing`): record id, item id, wall and LLM seconds."""
    llm_s = float(timed.usage.get("seconds", 0.0))
    wall = max(float(timed.seconds), 0.0)
    roles = {role: round(float(u.get("seconds", 0.0)), 3) for role, u in sorted((timed.usage.get("by_role")
                                                                                 or {}).items())}
    return {"id": timed.record.id, "item": item, "seconds": round(wall, 3),
            "llm_seconds": round(llm_s, 3),
            "outside_llm_share": round(max(wall - llm_s, 0.0) / wall, 4) if wall > 0 else 0.0,
            "llm_roles": roles, **{k: int(timed.usage.get(k, 0)) for k in ("cache_hits", "retries", "errors")}}


def by_id(rows: Iterable[Row]) -> dict[str, Row]:
    """Timing lines keyed by the id of the record they timed."""
    return {str(r["id"]): r for r in rows}


def speed(records: Iterable[Row], timings: Mapping[str, Row]) -> dict[str, float | int]:
    """Wall and LLM seconds per planned sub-goal of rollouts, and the share of wall time outside LLM waits, from
    their timing lines (`timings`: by_id of the stage's timing file). `timed` says how many rollouts had one: a
    rollout without a timing line (a file from before timing moved out) counts its sub-goals but no seconds."""
    rows = list(records)
    subgoals = sum(len(r["steps"]) for r in rows)
    lines = [timings[r["id"]] for r in rows if r["id"] in timings]
    wall = sum(float(t["seconds"]) for t in lines)
    llm_s = sum(float(t["llm_seconds"]) for t in lines)
    return {
        "timed": len(lines),
        "seconds_per_subgoal": round(wall / subgoals, 3) if subgoals else 0.0,
        "llm_seconds_per_subgoal": round(llm_s / subgoals, 3) if subgoals else 0.0,
        "outside_llm_share": round(max(wall - llm_s, 0.0) / wall, 4) if wall > 0 else 0.0,
        "seconds_per_episode_median": round(statistics.median(float(t["seconds"]) for t in lines), 1)
        if lines else None,
    }
