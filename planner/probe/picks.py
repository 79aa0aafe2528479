"""The probe's picks at a decision state (planner/probe/states.py), and their score.

A configuration answers once per state, constrained to that set, with the very prompt `run_episode` builds there
(`History.context`; tests/planner/test_probe.py checks it against an episode's own prompts). A pick is optimal when
its d is the least among the options; progress is d(s) - d(s'), regret d(s') minus the least. An option whose d is
undefined (Stop ends the episode; no plan within the search's limit) counts as one more than the largest defined d.
Beside each pick, random's optimal rate at its state, exact from the ties (`chance`).
"""
from __future__ import annotations

import random
from typing import Any, Iterable

from household.world.tasks import Task
from planner.adapter.predict import Adapter
from planner.config import PlannerConfig
from planner.follow.reader import Follower
from planner.follow.situation import live_situation
from planner.loop.episode import NO_SUBGOAL, paper_legal, run_episode
from planner.retrieval.grounding import classes_of
from planner.probe.states import context, replay_state, replay_trace
from planner.scaffold.legal import named_classes
from planner.search.actors import Actor
from planner.search.assembly import make_adapter
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


def scored(state: ProbeState, config: str, pick: str, d_pick: int | None = None, how: str = "") -> ProbePick:
    """A configuration's pick at the state as a record: its score (`score`), the state's `chance`, and how a
    follower reached it (`how`; '' for the others)."""
    optimal, progress, regret = score(state, pick, d_pick)
    return ProbePick.new(state_id=state.id, config=config, task_id=state.task_id, task_type=state.task_type,
                         kind=state.kind, pick=pick, optimal=optimal, progress=progress, regret=regret,
                         chance=chance(state), how=how)


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


# The follower's configurations (flows/stages/probe.py, benchmarks/probe_run.py): the kinds of pool records each
# reads, with the adapter's arguments at the state, and again with the task's true ones (`_true`: an upper bound).
FOLLOW_POOLS = {"follow_empty": (), "follow_gt": ("gt",), "follow_hind": ("gt", "hindsight"),
                "follow_corr": ("gt", "hindsight", "correction")}
TRUE = "_true"
FOLLOW_CONFIGS = tuple(FOLLOW_POOLS) + tuple(c + TRUE for c in FOLLOW_POOLS)


def follow_records(config: str, records: Iterable[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """The (record, where) pairs a follower configuration reads: those of its kinds (FOLLOW_POOLS)."""
    kinds = FOLLOW_POOLS[config.removesuffix(TRUE)]
    return [(r, at) for r, at in records if r.kind in kinds]


def probe_adapter(task: Task, pools: Any, client: Any, cfg: PlannerConfig) -> Adapter:
    """The adapter of the paper planner's episode on the task (planner.search.assembly.make_adapter)."""
    return make_adapter(task, pools, client, cfg)


def state_trace(task: Task, state: ProbeState, cfg: PlannerConfig, seed: int) -> tuple[Any, list[tuple[str, str]]]:
    """The world after the state's steps and their trace: (sub-goal, the world's failure reason or '') pairs."""
    return replay_trace(task, state.steps, cfg, seed)


def follow_pick(follower: Follower, task: Task, state: ProbeState, cfg: PlannerConfig, seed: int,
                args: dict[str, Any] | None = None) -> tuple[str | None, str]:
    """The follower's pick at the state and how it was reached (exact, nearest, fallback). `args`: the arguments the
    live step would have (the adapter's prediction); None: the task's true ones (an upper bound). The legal set is
    the paper planner's for those arguments, as in an episode."""
    world, trace = state_trace(task, state, cfg, seed)
    args = task.args.as_dict() if args is None else args
    legal = paper_legal(world.observe(), args)
    got = follower.decide(live_situation(task.task_type, args, trace, cfg.retrieval.follow_window), legal)
    return (got.picks[0] if got.picks else None), got.how


def predicted_args(adapter: Adapter, task: Task, state: ProbeState, cfg: PlannerConfig, seed: int) -> dict[str, Any]:
    """The adapter's arguments at the state, as a live step asks for them (what it has seen there)."""
    world, _ = state_trace(task, state, cfg, seed)
    seen = tuple(classes_of(world.observe().objects))
    return adapter.predict(task.instruction(0), seen if cfg.adapter.adapter_observes else (), (), seen)
