"""LLM-free policies on the planner's own legal sets: the floors beside an LLM planner's success rate.

An oracle adapter answers each task's true arguments, and every constrained pick of an actor is answered by a
policy instead of a model: `first` (the first legal sub-goal, bench_gate's policy) or `random` (uniform among the
offered sub-goals, seeded by task and call). Both answer through the scripted endpoint (no model; seconds per
task). Under `scaffold: full` the scaffold's rules shape the legal set; under `none` it is the paper planner's.
Imports are lazy: call after flows.runtime.workspace.configure().
"""
from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable

POLICIES = ("first", "random")


def floor_rollouts(tasks: Iterable[Any], params: dict[str, Any], scaffold: str, policy: str, seed: int = 0,
                   **overrides: Any) -> list[dict[str, Any]]:
    """One episode per task under `policy` with true arguments; the rollout records (their `llm_decided` counts
    the picks the policy made among two or more offered sub-goals)."""
    from household.world.tasks import load_tasks
    from planner.config import PlannerConfig
    from llm.client import LLMClient
    from planner.prompts.parsing import format_args
    from llm.scripted import ScriptedEndpoint, grammar_choices
    from planner.loop.episode import run_episode
    from planner.relabel.gt_samples import build_gt_samples
    from planner.retrieval.examples import ExamplePools
    from planner.variants import get_variant

    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    variant = get_variant("no_hindsight")
    cfg = PlannerConfig.from_params(params, variant=variant, scaffold=scaffold, k=1, width=1, **overrides)
    # Two train tasks as examples: the answers never read them; the prompts only need some.
    pools = ExamplePools(gt=build_gt_samples(load_tasks("train")[:2]))
    out = []
    for task in tasks:
        truth = " " + format_args(task.args.as_dict())  # the adapter's answer line, true arguments
        rng = random.Random(f"{seed}:{task.id}")

        def answer(request: Any) -> str:
            if request.prompt.startswith("Read each"):
                return truth
            options = grammar_choices(request.body)
            if not options:
                return " the value is 1/2"
            return " " + (options[0] if policy == "first" else rng.choice(options))

        with tempfile.TemporaryDirectory() as cache, ScriptedEndpoint(answer) as ep, \
                LLMClient(replace(ep.settings(), constrain="grammar"), cache_dir=Path(cache)) as client:
            out.append(run_episode(task, variant, pools, client, cfg).model_dump())
    return out
