"""Hindsight relabeling (the paper's alg. 3), one function per stage, each over records.

gt samples (expert plans) -> collect_rollout (leave-one-out agent run) -> reflect (phi + think) -> complete
(actor sample) and critic_sample (critic sample). Beyond the paper: every completion is replayed in the world
from the task's initial state and marked `verified` when it reaches the goal; critic values are checked against
the goal conditions the replay reaches.
"""
from __future__ import annotations

import logging
from typing import Any, Iterable, Sequence

from household.env import Env
from household.expert import expert_plan
from household.tasks import Task
from planner.config import PlannerConfig
from planner.examples import ExamplePools
from planner.grounding import Grounder, classes_of
from planner.loop import run_episode
from planner.parsing import format_plan, parse_values, split_plan
from planner.phi import phi
from planner.prompting import actor_example, critic_examples, done_prefix, join_examples, render
from pools.records import Completion, CriticSample, Reflection, Rollout, Sample

log = logging.getLogger(__name__)


def replay(task: Task, steps: Sequence[str], cfg: PlannerConfig | None = None, seed: int | None = None
           ) -> dict[str, Any]:
    """Execute sub-goals in a fresh world from the task's initial state; report success, goal conditions, failures."""
    cfg = cfg or PlannerConfig()
    env = Env(task, seed=cfg.seed if seed is None else seed, max_fails=cfg.max_fails, max_steps=cfg.max_steps,
              explore_budget=cfg.explore_budget)
    failed_step, reason, fails = -1, "", 0
    for i, sg in enumerate(steps):
        if env.done:
            break
        res = env.step(sg)
        if not res.ok:
            fails += 1
            if failed_step < 0:
                failed_step, reason = i, res.reason or ""
    met, total = env.goal_conditions()
    return {"success": bool(env.success), "gc": (met / total) if total else 0.0, "met": int(met),
            "total": int(total), "failed_step": failed_step, "fails": fails, "reason": reason}


def build_gt_samples(tasks: Iterable[Task], seed: int = 0, cfg: PlannerConfig | None = None) -> list[Sample]:
    """One ground-truth actor sample per task: the expert's plan, replayed to set `verified`."""
    out = []
    for task in tasks:
        steps = list(expert_plan(task, seed=seed))
        rep = replay(task, steps, cfg, seed)
        out.append(Sample.new(kind="gt", task_id=task.id, task_type=task.task_type, instruction=task.instruction(0),
                              args=task.args.as_dict(), steps=steps, verified=rep["success"] and rep["fails"] == 0,
                              source="expert"))
    return out


def build_gt_critic_samples(tasks: Iterable[Task], samples: Sequence[Sample], seed: int = 0,
                            cfg: PlannerConfig | None = None) -> list[CriticSample]:
    """Critic samples from expert plans: the first half of the plan and the whole plan, valued by replay."""
    by_id = {t.id: t for t in tasks}
    out = []
    for s in samples:
        task = by_id.get(s.task_id)
        if task is None:
            continue
        for steps in (s.steps[: len(s.steps) // 2], s.steps):
            rep = replay(task, steps, cfg, seed)
            out.append(CriticSample.new(task_id=s.task_id, task_type=s.task_type, instruction=s.instruction,
                                        steps=list(steps), value_num=rep["met"], value_den=rep["total"],
                                        verified=True, source="expert"))
    return out


def collect_rollout(task: Task, gt_pool: Sequence[Sample], hind_pool: Sequence[Sample], client: Any,
                    cfg: PlannerConfig, leave_out: str = "", critic_pool: Sequence[CriticSample] = (),
                    pools: ExamplePools | None = None) -> Rollout:
    """Run the agent (cfg.variant) on a training task with the gt pool minus `leave_out` (leave-one-out)."""
    pools = pools or ExamplePools(gt=list(gt_pool), hind=list(hind_pool), critic=list(critic_pool))
    return run_episode(task, cfg.variant, pools, client, cfg, leave_out=leave_out)


def robot_text(rollout: Rollout) -> str:
    """The rollout as the reflection prompt shows it: executed sub-goals, failures with the world's reason."""
    parts = [s.subgoal if s.ok else f"{s.subgoal} [failed: {s.reason}]" for s in rollout.steps]
    return format_plan(parts) or "(nothing)"


def reflect(rollout: Rollout, gt_sample: Sample, client: Any, cfg: PlannerConfig) -> Reflection:
    """Rewrite the task from its arguments (phi) and let the LLM reflect on the rollout next to the expert's."""
    text = phi(gt_sample.task_type, gt_sample.args)
    prompt = render("reflect", phi=text, expert=format_plan(gt_sample.steps), robot=robot_text(rollout))
    resp = client.complete("reflect", prompt, max_tokens=cfg.think_tokens, stop=["\n\n", "\nTask:"])
    think = " ".join(resp.text.split())  # one line: it is spliced into the completion prompt
    return Reflection.new(rollout_id=rollout.id, task_id=rollout.task_id, phi=text, think=think)


def complete(reflection: Reflection, rollout: Rollout, task: Task, client: Any, cfg: PlannerConfig,
             examples: Sequence[Sample] = (), grounder: Grounder | None = None) -> Completion:
    """Complete the rollout's successful prefix under the reflection; replay it; return the hindsight sample."""
    grounder = grounder or Grounder(cfg.map_threshold)
    prefix = useful_prefix(rollout.subgoals(ok_only=True))
    prompt = render("complete", examples=join_examples(actor_example(s, show_args=False) for s in examples),
                    phi=reflection.phi, think=reflection.think or "none", done=done_prefix(prefix))
    resp = client.complete("complete", prompt, max_tokens=cfg.complete_tokens, stop=["\n"])
    classes = classes_of([v for v in task.args.as_dict().values() if isinstance(v, str) and v])
    classes += classes_of(w for s in prefix for w in s.split()[1:])
    added: list[str] = []
    for raw in split_plan(resp.text)[: cfg.complete_steps]:
        sg = grounder.ground(raw, classes)
        if sg is None:
            continue  # an invented step ("Navigation LivingRoom") is dropped; the legal ones after it still count
        added.append(sg)
    # The model sometimes rewrites the plan from the start instead of continuing it: replay both readings
    # (replays are free) and keep the one that gets further, then the shorter (a cleaner example).
    options = [prefix + added] + ([added] if added and prefix else [])
    if not options[0]:
        # Nothing to replay or learn from: the item fails with this reason (recorded by the stage, never dropped).
        raise ValueError(f"no usable sub-goal in the rollout or the completion (LLM answer: {resp.text[:120]!r})")
    steps = max(options, key=lambda st: (*_progress(replay(task, st, cfg, rollout.seed)), -len(st)))
    return verify_completion(reflection, rollout, task, steps, cfg)


def useful_prefix(steps: Sequence[str]) -> list[str]:
    """A rollout's successful steps worth continuing: no Stop, no repeats, no walk superseded by the next walk."""
    out: list[str] = []
    for sg in steps:
        if sg == "Stop" or (out and sg == out[-1]):
            continue
        if out and sg.startswith("Navigation ") and out[-1].startswith("Navigation "):
            out[-1] = sg  # the earlier walk led to nothing the plan used
            continue
        out.append(sg)
    return out


def _progress(rep: dict[str, Any]) -> tuple[bool, float, int]:
    return bool(rep["success"]), float(rep["gc"]), -int(rep["fails"])


def verify_completion(reflection: Reflection, rollout: Rollout, task: Task, steps: Sequence[str],
                      cfg: PlannerConfig) -> Completion:
    """Replay a completed step sequence from the task's initial state and wrap it as a (verified?) completion."""
    rep = replay(task, steps, cfg, rollout.seed)
    verified = bool(rep["success"])
    sample = Sample.new(kind="hindsight", task_id=task.id, task_type=task.task_type, instruction=rollout.instruction,
                        args=task.args.as_dict(), steps=list(steps), verified=verified, source=rollout.id)
    return Completion.new(reflection_id=reflection.id, rollout_id=rollout.id, task_id=task.id, steps=list(steps),
                          verified=verified, replay=rep, sample=sample)


def critic_sample(rollout: Rollout, reflection: Reflection, task: Task, client: Any, cfg: PlannerConfig,
                  examples: Sequence[CriticSample] = ()) -> CriticSample:
    """The LLM values the rollout's executed steps ('the value is a/b'); `verified` iff the replay agrees."""
    steps = rollout.subgoals(ok_only=True)
    prompt = render("critic_sample", examples=critic_examples(list(examples)), phi=reflection.phi,
                    plan=format_plan(steps) or "(nothing)")
    resp = client.complete("critic_sample", prompt, max_tokens=cfg.critic_tokens + 4, stop=["\n"])
    value = parse_values("1." + resp.text, 1)[0]
    rep = replay(task, steps, cfg, rollout.seed)
    truth = (rep["met"], rep["total"])
    if value is None:  # unparsable: keep the replay's value, unverified (the LLM did not say it)
        num, den, verified = truth[0], truth[1], False
    else:
        num, den = value
        verified = truth[1] > 0 and num * truth[1] == truth[0] * den
    return CriticSample.new(task_id=task.id, task_type=task.task_type, instruction=rollout.instruction,
                            steps=steps, value_num=num, value_den=den, verified=verified, source=rollout.id)
