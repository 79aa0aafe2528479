"""The probe: what a pool is worth where the paper says it acts, at decisions.

A probe state is a task and the sub-goals executed from its start; replaying them gives the world, the agent's
history and its observation. Two kinds:
- *recovery*: a prefix of the expert's plan, then one wrong step (d does not decrease): a walk elsewhere, a wrong
  pickup, a wrong put, or a step the world refuses (kept inline with its reason, as the actor sees failures);
- *on-policy*: a state a reference policy (the no_hindsight paper planner, which reads no pool under test) reached.
Each state keeps the paper planner's legal set there (true arguments; at least two options) and the expert's cost-to-go
d of the state and after each option (household/cost_to_go.py). A configuration answers once per state, constrained
to that set, with the very prompt `run_episode` builds there (`History.context`; tests/planner/test_probe.py checks
it against an episode's own prompts). A pick is optimal when its d is the least among the options; progress is
d(s) - d(s'), regret d(s') minus the least. An option whose d is undefined (Stop ends the episode; no plan within
the search's limit) counts as one more than the largest defined d.
"""
from __future__ import annotations

import random
from typing import Any, Iterable, Sequence

from household.cost_to_go import cost_to_go
from household.expert import solve
from household.tasks import Task
from household.world import World
from planner.actors import Actor, StepContext
from planner.beam import Node
from planner.config import PlannerConfig
from planner.generator import Belief
from planner.legal import named_classes
from planner.loop import History, paper_legal
from planner.replay import new_env
from pools.records import ProbeState

KINDS = ("recovery", "on_policy")
WRONG = ("walk", "pickup", "put", "refused")
VERB_KIND = {"Navigation": "walk", "PickupObject": "pickup", "PutObject": "put"}


def replay_state(task: Task, steps: Sequence[str], cfg: PlannerConfig, seed: int) -> tuple[World, History]:
    """The world and the agent's history after executing `steps` from the task's start (failed ones included)."""
    env = new_env(task, cfg, seed)
    history = History()
    for sg in steps:
        r = env.step(sg)
        history.record(sg, bool(r.ok), r.reason or "")
    return env, history


def context(task: Task, history: History, world: World) -> tuple[StepContext, list[str]]:
    """The actor's view of the state (true arguments shown, as an oracle adapter would) and its legal set."""
    args = task.args.as_dict()
    obs = world.observe()
    return history.context(task.instruction(0), obs, args), paper_legal(obs, args)


def _after(world: World, subgoal: str) -> tuple[World, str]:
    nxt = world.fork(bounded=False)
    return nxt, nxt.attempt(subgoal)


def option_costs(world: World, legal: Sequence[str], known: dict[tuple, int]) -> list[int | None]:
    """d after each option (a refused one leaves the state as it is)."""
    return [cost_to_go(_after(world, o)[0], known=known) for o in legal]


def make_state(task: Task, kind: str, wrong: str, steps: list[str], cfg: PlannerConfig, seed: int,
               known: dict[tuple, int]) -> ProbeState | None:
    """The probe state after `steps`, or None when fewer than two options are legal there or the episode ended."""
    world, history = replay_state(task, steps, cfg, seed)
    if world.done:
        return None
    _, legal = context(task, history, world)
    if len(legal) < 2:
        return None
    return ProbeState.new(task_id=task.id, task_type=task.task_type, split=task.split,
                          instruction=task.instruction(0), kind=kind, wrong=wrong, steps=steps, legal=legal,
                          d=cost_to_go(world, known=known), d_options=option_costs(world, legal, known))


def recovery_states(task: Task, n: int, cfg: PlannerConfig, seed: int, rng: random.Random,
                    known: dict[tuple, int]) -> list[ProbeState]:
    """Up to `n` states: an expert prefix, then one wrong step of the kinds in turn (d does not decrease)."""
    env = new_env(task, cfg, seed)
    plan = solve(task, seed, env.scene).plan
    out: list[ProbeState] = []
    kinds = list(WRONG)
    rng.shuffle(kinds)
    for k in sorted(rng.sample(range(len(plan)), min(len(plan), 2 * n))):
        if len(out) >= n:
            break
        world, history = replay_state(task, plan[:k], cfg, seed)
        _, legal = context(task, history, world)
        d0 = cost_to_go(world, known=known)
        by_kind: dict[str, list[str]] = {}
        for option in legal:
            if option == "Stop":
                continue
            nxt, reason = _after(world, option)
            kind = "refused" if reason else VERB_KIND.get(option.split()[0])
            d1 = cost_to_go(nxt, known=known)
            if kind and (reason or d0 is None or d1 is None or d1 >= d0):
                by_kind.setdefault(kind, []).append(option)
        kind = next((x for x in kinds if x in by_kind), None)
        if kind is None:
            continue
        kinds.remove(kind)
        kinds.append(kind)  # the kinds take turns
        state = make_state(task, "recovery", kind, [*plan[:k], rng.choice(by_kind[kind])], cfg, seed, known)
        if state is not None:
            out.append(state)
    return out


def executed_subgoals(rollout: dict[str, Any]) -> list[str]:
    """The sub-goals the world ran in a rollout record, in order (a step where nothing was proposed never reached it)."""
    return [s["subgoal"] for s in rollout["steps"] if s.get("chosen_by") != "none" and s["subgoal"] != "(none)"]


def on_policy_states(task: Task, executed: Sequence[str], n: int, cfg: PlannerConfig, seed: int,
                     rng: random.Random, known: dict[tuple, int]) -> list[ProbeState]:
    """Up to `n` states a reference policy reached (`executed`: its sub-goals in order, as the world ran them)."""
    out: list[ProbeState] = []
    for i in sorted(rng.sample(range(len(executed)), min(len(executed), n))):
        state = make_state(task, "on_policy", "", list(executed[:i]), cfg, seed, known)
        if state is not None:
            out.append(state)
    return out


def score(state: ProbeState, pick: str, d_pick: int | None = None) -> tuple[bool, int, int]:
    """(optimal, progress, regret) of a pick among the state's options (see the module docstring); a pick outside
    them (the full planner step's own legal set) is scored by `d_pick`, its cost-to-go."""
    defined = [d for d in state.d_options if d is not None]
    worst = max(defined, default=0) + 1
    costs = [worst if d is None else d for d in state.d_options]
    least = min(costs)
    if pick in state.legal:
        mine = costs[state.legal.index(pick)]
    else:
        mine = worst if d_pick is None else d_pick
    here = worst if state.d is None else state.d
    return mine <= least, here - mine, max(0, mine - least)


def cost_after(task: Task, state: ProbeState, pick: str, cfg: PlannerConfig, seed: int) -> int | None:
    """d after a pick made at the state (for a pick outside its stored options)."""
    world, _ = replay_state(task, state.steps, cfg, seed)
    return cost_to_go(_after(world, pick)[0])


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
    from planner.loop import NO_SUBGOAL, run_episode

    rollout = run_episode(task, variant, pools, client, params_cfg.replace(max_subgoals=1), prefix=state.steps)
    pick = rollout.steps[0].subgoal if rollout.steps else None
    return None if pick in (None, NO_SUBGOAL) else pick


def random_pick(state: ProbeState, seed: int) -> str:
    """The floor: a uniform pick among the options, seeded by the state."""
    return random.Random(f"{seed}:{state.id}").choice(state.legal)


def probe_tasks(task_rows: Iterable[dict[str, Any]], gt_rows: Iterable[dict[str, Any]], split: str, per_type: int,
                seed: int) -> list[Task]:
    """The probe's tasks: `per_type` of each type of `split` that the expert solves, outside the dev set and the
    pools (rows of data/tasks.jsonl and of the gt pool)."""
    from household.tasks import get_task, in_task_set

    pooled = {r["task_id"] for r in gt_rows}
    rows = [r for r in task_rows if r["split"] == split and r.get("expert_ok", True)
            and in_task_set(r["id"], "heldout") and r["id"] not in pooled]
    return task_sample([get_task(r["id"]) for r in rows], per_type, seed)


def reference_tasks(tasks: Sequence[Task], n: int, seed: int) -> list[Task]:
    """`n` of the probe's tasks (a seeded choice) for the reference policy's episodes."""
    return sorted(tasks, key=lambda t: random.Random(f"{seed}:ref:{t.id}").random())[:n]


def task_sample(tasks: Iterable[Any], per_type: int, seed: int) -> list[Any]:
    """`per_type` tasks of each type (seeded; stable under order)."""
    by_type: dict[str, list[Any]] = {}
    for t in tasks:
        by_type.setdefault(t.task_type, []).append(t)
    out = []
    for tt in sorted(by_type):
        group = sorted(by_type[tt], key=lambda t: t.id)
        out += random.Random(f"{seed}:probe:{tt}").sample(group, min(per_type, len(group)))
    return out
