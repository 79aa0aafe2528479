"""Corrections from the expert: at every state a practice run reached right after a step that did not lower the
expert's cost-to-go d (a refused step, a walk elsewhere, a wrong pickup or put: the labels of quality.py), the legal
options with the least d there. No LLM; the probe's legal set (states.context) and d (states.option_costs).

Of several optimal options the record keeps all and shows one as the next step (`shown_by`, SHOWN_BY in order): the
first in legal order that names a class of the task's arguments ('task': walk to the side table, not to the alarm
clock on it, though both lead there), else the first step of the expert's shortest plan from the state ('plan'),
else the first in legal order ('first').
"""
from __future__ import annotations

from typing import Sequence

from household.expert.cost_to_go import cost_to_go, shortest_plan
from household.world.tasks import Task
from household.world.world import World
from planner.config import PlannerConfig
from planner.loop.episode import History
from planner.loop.replay import new_env
from planner.probe.quality import step_labels
from planner.probe.states import context, executed_subgoals, option_costs
from pools.records import Correction, Rollout

SHOWN_BY = ("task", "plan", "first")  # the rules that pick the shown step among the optimal options, in order


def corrections(rollout: Rollout, task: Task, cfg: PlannerConfig) -> list[Correction]:
    """The corrections of one practice run, in the order of its steps."""
    executed = executed_subgoals(rollout)
    labels = step_labels(task, executed, cfg, rollout.seed)
    env = new_env(task, cfg, rollout.seed)
    history = History()
    reasons: list[str] = []
    known: dict[tuple, int] = {}  # d of states already solved on this task (exact; shared by the states)
    out: list[Correction] = []
    for i, (sg, lab) in enumerate(zip(executed, labels)):  # labels stop where the episode ended
        res = env.step(sg)
        reasons.append("" if res.ok else res.reason or "failed")
        history.record(sg, bool(res.ok), res.reason or "")
        if lab == "progress" or env.done:
            continue
        _, legal = context(task, history, env)
        d_options = option_costs(env, legal, known)
        least = min((d for d in d_options if d is not None), default=None)
        if least is None:  # no option reaches the goal within the search's limit: nothing to correct to
            continue
        optimal = [o for o, d in zip(legal, d_options) if d == least]
        shown, shown_by = shown_step(task, env, optimal)
        out.append(Correction.new(
            task_id=task.id, task_type=task.task_type, instruction=rollout.instruction,
            args=task.args.as_dict(), source=rollout.id, steps=list(executed[:i + 1]), reasons=list(reasons),
            label=lab, d=cost_to_go(env, known=known), optimal=optimal, shown=shown, shown_by=shown_by,
            robot_next=executed[i + 1] if i + 1 < len(executed) else ""))
    return out


def shown_step(task: Task, world: World, optimal: Sequence[str]) -> tuple[str, str]:
    """The optimal option an example shows, and by which rule (SHOWN_BY; the module's docstring)."""
    named = {v for v in task.args.as_dict().values() if isinstance(v, str) and v}
    by_task = [o for o in optimal if named & set(o.split()[1:])]
    if by_task:
        return by_task[0], "task"
    plan = shortest_plan(world) or []
    return (plan[0], "plan") if plan and plan[0] in optimal else (optimal[0], "first")
