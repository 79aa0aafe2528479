"""The probe (what a pool is worth where the paper says it acts, at decisions): its decision states.

A probe state is a task and the sub-goals executed from its start; replaying them gives the world, the agent's
history and its observation. Two kinds:
- *recovery*: a prefix of the expert's plan, then one wrong step (d does not decrease): a walk elsewhere, a wrong
  pickup, a wrong put, or a step the world refuses (kept inline with its reason, as the actor sees failures);
- *on-policy*: a state a reference policy (the no_hindsight paper planner, which reads no pool under test) reached.
Each state keeps the paper planner's legal set there (true arguments) and the expert's cost-to-go d of the state and
after each option (household/expert/cost_to_go.py); `cost_after` gives d after a pick outside them. A state is kept only
when it can tell a good pick from a bad one: two options other than Stop (which ends the episode, worse than any
step) differ in d. The others are dropped and counted by reason (DROPPED): the episode had ended, fewer than two
options were legal, or no option was better than another.
How a configuration answers at a state, and how its pick is scored: planner/probe/picks.py.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from household.expert.cost_to_go import cost_to_go
from household.expert.expert import solve
from household.world.tasks import Task
from household.world.world import World
from planner.config import PlannerConfig
from planner.loop.episode import History, paper_legal
from planner.loop.replay import new_env
from planner.search.actors import StepContext
from pools.records import PoolItem, ProbeState, Rollout

KINDS = ("recovery", "on_policy")
WRONG = ("walk", "pickup", "put", "refused")
VERB_KIND = {"Navigation": "walk", "PickupObject": "pickup", "PutObject": "put"}
DROPPED = ("ended", "one_option", "no_better")  # why a candidate state is not kept (ProbeDropped)


def replay_trace(task: Task, steps: Sequence[str], cfg: PlannerConfig, seed: int
                 ) -> tuple[World, list[tuple[str, str]]]:
    """The world after executing `steps` from the task's start (failed ones included), and their trace: (sub-goal,
    the world's failure reason or '') pairs."""
    env = new_env(task, cfg, seed)
    trace = []
    for sg in steps:
        r = env.step(sg)
        trace.append((sg, "" if r.ok else r.reason or "failed"))
    return env, trace


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


def dropped_by_kind(counts: Iterable[tuple[str, Mapping[str, int]]]) -> dict[str, dict[str, int]]:
    """The candidates dropped, summed by kind and reason (every kind and reason listed) from (kind, counts) pairs."""
    out = {k: dict.fromkeys(DROPPED, 0) for k in KINDS}
    for kind, dropped in counts:
        for why, n in dropped.items():
            out[kind][why] += n
    return out


def discriminates(legal: Sequence[str], d_options: Sequence[int | None]) -> bool:
    """Whether two options other than Stop differ in d (undefined: worse than any defined)."""
    return len({d for o, d in zip(legal, d_options) if o != "Stop"}) > 1


def make_state(task: Task, kind: str, wrong: str, steps: list[str], cfg: PlannerConfig, seed: int,
               known: dict[tuple, int]) -> tuple[ProbeState | None, str]:
    """The probe state after `steps`, or None and why it is dropped (one of DROPPED)."""
    world, history = replay_state(task, steps, cfg, seed)
    if world.done:
        return None, "ended"
    _, legal = context(task, history, world)
    if len(legal) < 2:
        return None, "one_option"
    d_options = option_costs(world, legal, known)
    if not discriminates(legal, d_options):
        return None, "no_better"
    return ProbeState.new(task_id=task.id, task_type=task.task_type, split=task.split,
                          instruction=task.instruction(0), kind=kind, wrong=wrong, steps=steps, legal=legal,
                          d=cost_to_go(world, known=known), d_options=d_options), ""


def recovery_states(task: Task, n: int, cfg: PlannerConfig, seed: int, rng: random.Random,
                    known: dict[tuple, int]) -> tuple[list[ProbeState], Counter[str]]:
    """Up to `n` states: an expert prefix, then one wrong step of the kinds in turn (d does not decrease); and the
    candidates dropped, by reason."""
    env = new_env(task, cfg, seed)
    plan = solve(task, seed, env.scene).plan
    out: list[ProbeState] = []
    dropped: Counter[str] = Counter()
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
        state, why = make_state(task, "recovery", kind, [*plan[:k], rng.choice(by_kind[kind])], cfg, seed, known)
        if state is None:
            dropped[why] += 1
        else:
            out.append(state)
    return out, dropped


def executed_subgoals(rollout: Rollout) -> list[str]:
    """The sub-goals the world ran in a rollout, in order (a step where nothing was proposed never reached it)."""
    return [s.subgoal for s in rollout.steps if s.chosen_by != "none" and s.subgoal != "(none)"]


def on_policy_states(task: Task, executed: Sequence[str], n: int, cfg: PlannerConfig, seed: int,
                     rng: random.Random, known: dict[tuple, int]) -> tuple[list[ProbeState], Counter[str]]:
    """Up to `n` states a reference policy reached (`executed`: its sub-goals in order, as the world ran them); and
    the candidates dropped, by reason."""
    out: list[ProbeState] = []
    dropped: Counter[str] = Counter()
    for i in sorted(rng.sample(range(len(executed)), min(len(executed), n))):
        state, why = make_state(task, "on_policy", "", list(executed[:i]), cfg, seed, known)
        if state is None:
            dropped[why] += 1
        else:
            out.append(state)
    return out, dropped


def cost_after(task: Task, state: ProbeState, pick: str, cfg: PlannerConfig, seed: int) -> int | None:
    """d after a pick made at the state (for a pick outside its stored options)."""
    world, _ = replay_state(task, state.steps, cfg, seed)
    return cost_to_go(_after(world, pick)[0])


def probe_tasks(task_rows: Iterable[dict[str, Any]], gt_rows: Iterable[PoolItem], split: str, per_type: int,
                seed: int, task_set: str = "heldout", one_per_spec: bool = False) -> list[Task]:
    """The probe's tasks: `per_type` of each type of `split` that the expert solves, in `task_set` (heldout: outside
    the dev set; dev: the dev set, where a pool's design may be tuned) and outside the pools (rows of
    data/tasks.jsonl and of the gt pool); `one_per_spec`: at most one trial of a spec (siblings share a scene and a
    goal, so they would add states without adding tasks)."""
    from household.world.tasks import get_task, in_task_set

    pooled = {r.task_id for r in gt_rows}
    rows = [r for r in task_rows if r["split"] == split and r.get("expert_ok", True)
            and in_task_set(r["id"], task_set) and r["id"] not in pooled]
    tasks = [get_task(r["id"]) for r in rows]
    return task_sample(one_trial_per_spec(tasks, seed) if one_per_spec else tasks, per_type, seed)


def one_trial_per_spec(tasks: Iterable[Task], seed: int) -> list[Task]:
    """One trial of each spec (a seeded choice; stable under order), in spec order."""
    from household.world.tasks import spec_of

    by_spec: dict[str, list[Task]] = {}
    for t in tasks:
        by_spec.setdefault(spec_of(t.id), []).append(t)
    return [random.Random(f"{seed}:spec:{s}").choice(sorted(g, key=lambda t: t.id)) for s, g in sorted(by_spec.items())]


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
