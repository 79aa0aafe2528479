"""The probe's picks at a decision state (planner/probe/states.py), and their score.

A configuration answers once per state, constrained to that set, with the very prompt `run_episode` builds there
(`History.context`; tests/planner/test_probe.py checks it against an episode's own prompts). A pick is optimal when
its d is the least among the options; progress is d(s) - d(s'), regret d(s') minus the least. An option whose d is
undefined (Stop ends the episode; no plan within the search's limit) counts as one more than the largest defined d.
Beside each pick, random's optimal rate at its state, exact from the ties (`chance`).
"""
from __future__ import annotations

import random
from typing import Any

from household.world.tasks import Task
from planner.config import PlannerConfig
from planner.loop.episode import NO_SUBGOAL, run_episode
from planner.probe.states import context, replay_state
from planner.scaffold.legal import named_classes
from planner.search.actors import Actor
from planner.search.beam import Node
from planner.search.generator import Belief
from pools.records import ProbePick, ProbeState


def _costs(state: ProbeState) -> tuple[list[int], int]:
    """d after each option, an undefined one counted as one more than the largest defined; and that worst cost."""
    defined = [d for d in state.d_options if d is not None]
    worst = max(defined, default=0) + 1
    return [worst if d is None else d for d in state.d_options], worst


def score(state: ProbeState, pick: str, d_pick: int | None = None) -> tuple[bool, int, int]:
    """(optimal, progress, regret) of a pick among the state's options (see the module docstring); a pick outside
    them (the full planner step's own legal set) is scored by `d_pick`, its cost-to-go."""
    costs, worst = _costs(state)
    least = min(costs)
    if pick in state.legal:
        mine = costs[state.legal.index(pick)]
    else:
        mine = worst if d_pick is None else d_pick
    here = worst if state.d is None else state.d
    return mine <= least, here - mine, max(0, mine - least)


def chance(state: ProbeState) -> float:
    """Random's optimal rate at the state, exact: the share of its options that are optimal (ties included)."""
    costs, _ = _costs(state)
    return round(costs.count(min(costs)) / len(costs), 4)


def scored(state: ProbeState, config: str, pick: str, d_pick: int | None = None) -> ProbePick:
    """A configuration's pick at the state as a record: its score (`score`) and the state's `chance`."""
    optimal, progress, regret = score(state, pick, d_pick)
    return ProbePick.new(state_id=state.id, config=config, task_id=state.task_id, task_type=state.task_type,
                         kind=state.kind, pick=pick, optimal=optimal, progress=progress, regret=regret,
                         chance=chance(state))


def actor_pick(actor: Actor, task: Task, state: ProbeState, cfg: PlannerConfig, seed: int) -> str | None:
    """The actor's one constrained answer at the state (None when it gave none)."""
    world, history = replay_state(task, state.steps, cfg, seed)
    ctx, legal = context(task, history, world)
    if legal != state.legal:
        raise ValueError(f"probe state {state.id}: its legal set no longer matches the world's (rebuild the set)")
    got = actor.write_plan(ctx, Node((), Belief()), list(ctx.seen) + named_classes(ctx.args), legal=legal)
    return got[0] if got else None


def full_step_pick(task: Task, state: ProbeState, pools: Any, client: Any, params_cfg: PlannerConfig,
                   variant: Any) -> str | None:
    """The paper planner's whole step at the state (both actors, critic, beam): `run_episode` from the state's steps
    with a cap of one sub-goal; its planned step is the pick (None when nothing legal was proposed)."""
    rollout = run_episode(task, variant, pools, client, params_cfg.replace(max_subgoals=1), prefix=state.steps)
    pick = rollout.steps[0].subgoal if rollout.steps else None
    return None if pick in (None, NO_SUBGOAL) else pick


def random_pick(state: ProbeState, seed: int) -> str:
    """The floor: a uniform pick among the options, seeded by the state."""
    return random.Random(f"{seed}:{state.id}").choice(state.legal)
