"""What bench_probe and bench_ladder share: the pools the probe's configurations read, their answers at a set's
states (planner/probe/picks.py, as the `probe` stage answers), and the figures of those answers. Imports are lazy:
call after flows.runtime.workspace.configure()."""
from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any, Sequence

# Which actor a configuration is; `actor_hind_empty` is Actor_hind with the hindsight pool emptied (no examples).
ACTOR_POOL = {"actor_gt": "gt", "actor_hind": "hind", "actor_hind_empty": "hind"}


def probe_pools(params: dict[str, Any], hindsight_pool: Path | None) -> tuple[Any, Any]:
    """(the pools, the same with the hindsight pool emptied): the gt pool drawn as the `gt_pool` stage draws it, the
    hindsight actor and critic samples read from `hindsight_pool` (none when it is None or missing)."""
    from benchmarks.sample import gt_pool, with_hindsight
    from planner.retrieval.examples import ExamplePools

    pools = with_hindsight(*gt_pool(params), hindsight_pool)
    return pools, ExamplePools(gt=pools.gt, hind=[], critic=pools.critic)


def answer(configs: Sequence[str], states: Sequence[Any], pools: Any, empty: Any, params: dict[str, Any],
           cfg: Any, cache: Path | None = None) -> tuple[dict[str, list[dict[str, Any]]], dict[str, float]]:
    """Each configuration's scored pick at every state (the same states for all) and its seconds; one LLM client
    (response cache in `cache`, else the project's), started outside the timings. The follower's configurations
    (planner.probe.picks FOLLOW_CONFIGS) read `pools`' gt and hindsight records by kind (follow_corr needs the
    hindsight pool file to hold the expert's corrections); the adapter's arguments at each state are asked once, before
    them, and timed apart (`adapter`)."""
    from flows.runtime.llm_stage import llm_client
    from household.world.tasks import get_task
    from planner.follow.reader import follower_from_config
    from planner.probe.picks import (FOLLOW_CONFIGS, TRUE, actor_pick, follow_pick, follow_records, predicted_args,
                                     probe_adapter, random_pick, scored)
    from planner.probe.states import cost_after
    from planner.retrieval.grounding import Grounder
    from planner.search.assembly import make_actor

    seed = int(params["world"]["seed"])
    picks: dict[str, list[dict[str, Any]]] = {}
    seconds: dict[str, float] = {}
    grounder = Grounder(cfg.retrieval.map_threshold)
    llm_free = all(c == "random" or (c in FOLLOW_CONFIGS and c.endswith(TRUE)) for c in configs)
    with (contextlib.nullcontext() if llm_free else llm_client(params, cache_dir=cache)) as client:
        if client is not None:  # no server for configurations that make no LLM call
            client.complete("actor", "warm-up", max_tokens=1)
            pools.retrieve("gt", "warm-up", 1)
        guesses: dict[str, dict[str, Any]] = {}
        if any(c in FOLLOW_CONFIGS and not c.endswith(TRUE) for c in configs):
            t0 = time.perf_counter()
            adapters: dict[str, Any] = {}
            for state in states:
                task = get_task(state.task_id)
                adapter = adapters.setdefault(task.id, probe_adapter(task, pools, client, cfg))
                guesses[state.id] = predicted_args(adapter, task, state, cfg, seed)
            seconds["adapter"] = time.perf_counter() - t0
        records = [(r, f"{r.kind} record {r.id}") for r in [*pools.gt, *pools.hind]]
        for config in configs:
            follower = None
            if config in FOLLOW_CONFIGS:
                wanted = follow_records(config, records)
                if config.startswith("follow_corr") and not any(r.kind == "correction" for r, _ in wanted):
                    raise ValueError(f"{config}: the hindsight pool holds no corrections (--hindsight-pool: the "
                                     "pool_corrections stage's data/pools/hindsight_corrections.jsonl)")
                follower = follower_from_config(wanted, cfg.retrieval, seed)
            t0, rows = time.perf_counter(), []
            for state in states:
                task = get_task(state.task_id)
                how = ""
                if config == "random":
                    pick = random_pick(state, seed)
                elif follower is not None:
                    got, how = follow_pick(follower, task, state, cfg, seed,
                                            None if config.endswith(TRUE) else guesses[state.id])
                    pick = got or "Stop"
                else:
                    actor = make_actor(ACTOR_POOL[config], task, empty if config == "actor_hind_empty" else pools,
                                       client, cfg, grounder)
                    pick = actor_pick(actor, task, state, cfg, seed) or "Stop"
                off_list = None if pick in state.legal else cost_after(task, state, pick, cfg, seed)
                rows.append({**scored(state, config, pick, off_list, how).model_dump(), "wrong": state.wrong})
            picks[config], seconds[config] = rows, time.perf_counter() - t0
            print(f"{config}: done in {seconds[config]:.0f} s", file=sys.stderr, flush=True)
    return picks, seconds


def config_figures(picks: dict[str, list[dict[str, Any]]], seconds: dict[str, float], samples: int, seed: int
                   ) -> dict[str, dict[str, Any]]:
    """Per configuration: its summary (overall, by state kind, by task type), seconds, optimal rate by wrong step."""
    from pools.analysis.probe_metrics import summary

    return {c: {**summary(c, r, samples, seed), "seconds": round(seconds[c], 1),
                "by_wrong": {w: summary(c, [x for x in r if x["wrong"] == w], samples, seed)["optimal"]
                             for w in sorted({x["wrong"] for x in r})}} for c, r in picks.items()}


def paired_by_kind(a: str, rows_a: list[dict[str, Any]], b: str, rows_b: list[dict[str, Any]], samples: int,
                   seed: int) -> dict[str, dict[str, Any]]:
    """A vs B paired on the same states (pools.analysis.probe_metrics.paired): over all of them, and recovery and
    on-policy apart (a kind no state has is left out)."""
    from pools.analysis.probe_metrics import paired

    out = {"all": paired(a, rows_a, b, rows_b, samples, seed)}
    for kind in ("recovery", "on_policy"):
        ka, kb = [r for r in rows_a if r["kind"] == kind], [r for r in rows_b if r["kind"] == kind]
        if ka and kb:
            out[kind] = paired(a, ka, b, kb, samples, seed)
    return out
