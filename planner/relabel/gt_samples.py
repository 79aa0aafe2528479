"""Ground-truth examples: the expert's plans as actor samples (optionally rewritten for a partially observing
planner) and critic samples of their prefixes; the one builder every stage, command and benchmark uses.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from household.expert.env import Env
from household.expert.expert import expert_plan
from household.expert.scene import Scene, build_scene
from household.world.tasks import Task
from planner.config import PlannerConfig
from planner.loop.replay import replay
from planner.retrieval.grounding import classes_of
from pools.records import CriticSample, Sample

GT_NAVIGATION = ("object", "expert")


def object_navigation(task: Task, steps: Sequence[str], seed: int = 0, cfg: PlannerConfig | None = None,
                      scene: Scene | None = None) -> list[str]:
    """The expert's plan with walks a planner could not choose rewritten: `Navigation R; PickupObject O`, where O
    was not yet seen when the walk began, becomes `Navigation O; PickupObject O` (the world explores until O is
    seen). The expert knows where everything is; a partially observing planner copying "Navigation GarbageCan" to
    find a bat it has not seen cannot follow it. Kept only if the rewritten plan still reaches the goal.
    """
    cfg = cfg or PlannerConfig()
    scene = scene or build_scene(task, seed)
    env = Env(task, seed=seed, max_fails=cfg.world.max_fails, max_steps=cfg.world.max_steps,
              explore_budget=cfg.world.explore_budget, scene=scene)
    out = list(steps)
    for i, sg in enumerate(steps):
        nxt = steps[i + 1].split() if i + 1 < len(steps) else []
        if sg.startswith("Navigation ") and len(nxt) == 2 and nxt[0] == "PickupObject":
            if nxt[1] not in classes_of(env.observe().objects):
                out[i] = f"Navigation {nxt[1]}"
        env.step(sg)
    if out == list(steps):
        return out
    rep = replay(task, out, cfg, seed, scene)
    return out if rep["success"] and rep["fails"] == 0 else list(steps)


def build_gt_samples(tasks: Iterable[Task], seed: int = 0, cfg: PlannerConfig | None = None,
                     navigation: str = "object") -> list[Sample]:
    """One ground-truth actor sample per task: the expert's plan (walks rewritten per `navigation`), replayed."""
    if navigation not in GT_NAVIGATION:
        raise ValueError(f"pools.gt_navigation must be one of {GT_NAVIGATION}, not {navigation!r}")
    out = []
    for task in tasks:
        scene = build_scene(task, seed)  # once per task: the expert, the rewrite and the replay share it
        steps = list(expert_plan(task, seed=seed, scene=scene))
        if navigation == "object":
            steps = object_navigation(task, steps, seed, cfg, scene)
        rep = replay(task, steps, cfg, seed, scene)
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
        scene = build_scene(task, seed)
        for steps in (s.steps[: len(s.steps) // 2], s.steps):
            rep = replay(task, steps, cfg, seed, scene)
            out.append(CriticSample.new(task_id=s.task_id, task_type=s.task_type, instruction=s.instruction,
                                        steps=list(steps), value_num=rep["met"], value_den=rep["total"],
                                        verified=True, source="expert"))
    return out


def build_gt_pool(tasks: Sequence[Task], seed: int = 0, navigation: str = "object",
                  cfg: PlannerConfig | None = None) -> tuple[list[Sample], list[CriticSample]]:
    """The ground-truth pool of these tasks: verified actor samples and critic samples of their prefixes."""
    samples = [s for s in build_gt_samples(tasks, seed, cfg, navigation) if s.verified]
    return samples, build_gt_critic_samples(tasks, samples, seed, cfg)


def draw_gt_pool(rows: Sequence[dict], per_type: int, seed: int = 0, split: str = "train",
                 navigation: str = "object", cfg: PlannerConfig | None = None) -> tuple[list[Sample], list[CriticSample]]:
    """The gt pool the `gt_pool` stage draws: `per_type` tasks per type of `split` from task rows, stratified
    (`cfg`: the world's limits the expert's plans are replayed under)."""
    from household.world.tasks import get_task
    from pools.select import stratified

    chosen = [get_task(r["id"]) for r in stratified(list(rows), per_type, seed, split=split)]
    return build_gt_pool(chosen, seed=seed, navigation=navigation, cfg=cfg)
