"""The closed loop (the paper's alg. 1): observe, predict arguments, search, execute, record; until done.

Failure rule (explicit): a sub-goal failed when the world reports `ok=False`; the world's reason is recorded, and
identical (sub-goal, reason) failures are counted; the episode stops when one repeats `max_repeat_fails` times,
on `Stop`, on success, at the world's limits (ALFRED's failed-action and step budgets), or after `max_subgoals`.
A step where no actor gave a legal sub-goal counts as a failure of the planner (recorded with reason
'no legal proposal'); `max_repeat_fails` of them in a row end the episode. `max_idle` sub-goals in a row that only
lead back to states already observed (place, hands, objects seen and their states) end it too ('no_progress').
With `avoid_tried`, a sub-goal already executed from the same observed state is off the legal list there (the world
would answer the same), and so is a walk the world answered 'C not found' until a C is seen (opening a container
may show one), unless nothing else is legal. With `goal_gate`, steps that skip or undo what the predicted arguments
require are off it too (`planner.scaffold.gate.goal_gate: named rules`).
"""
from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from household.expert import expert_plan
from household.layout import Scene
from household.metrics import episode_metrics
from household.tasks import Task
from planner.config import PlannerConfig
from planner.llm.parsing import args_accuracy
from planner.llm.prompting import inline_step
from planner.loop.replay import new_env
from planner.retrieval.examples import ExamplePools
from planner.retrieval.grounding import classes_of
from planner.scaffold.gate import goal_gate
from planner.scaffold.legal import legal_now, named_classes, parse_seen, task_scope, where_text
from planner.search.actors import StepContext
from planner.search.assembly import build_planner
from planner.search.beam import BeamResult
from planner.search.generator import Belief, belief_step
from planner.variants import Variant, get_variant
from pools.records import ARG_KEYS, Rollout, StepRecord

log = logging.getLogger(__name__)

NO_PROPOSAL = "no legal proposal"
NO_SUBGOAL = "(none)"  # the sub-goal of a step where nothing legal was proposed (the world is not called)


@dataclass
class History:
    """What the agent did so far, in the forms its prompts show: every executed sub-goal (failed ones with the
    world's reason inline), the ones that succeeded, and the failures 'SubGoal (reason)'."""

    trace: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def record(self, action: str, ok: bool, reason: str) -> None:
        """Add one executed sub-goal and what the world answered."""
        self.trace.append(inline_step(action, "" if ok else reason or "failed"))
        if ok:
            self.done.append(action)
        else:
            self.failed.append(f"{action} ({reason})" if reason else action)

    def context(self, instruction: str, obs: Any, args: dict[str, Any] | None) -> StepContext:
        """The real state as the actors' prompts show it (`args`: the arguments shown, None for no adapter)."""
        seen = tuple(classes_of(obs.objects))
        held = classes_of([obs.holding]) if obs.holding else []
        return StepContext(instruction, seen, args, tuple(self.done), tuple(self.failed[-2:]),
                           held[0] if held else "", tuple(self.trace), where_text(seen, obs.located))


def paper_legal(obs: Any, args: dict[str, Any] | None, nav_targets: str = "any") -> list[str]:
    """The paper planner's legal set at a real state: walks to classes seen or named by `args`, interactions with
    what is here as observed, Stop; no scaffold rule."""
    seen = tuple(classes_of(obs.objects))
    held = classes_of([obs.holding]) if obs.holding else []
    return legal_now(seen, obs.here, held[0] if held else "", named_classes(args), nav_targets, None, True)


@dataclass
class StepView:
    """What one closed-loop step looked like, for a person watching (`on_step` callback)."""

    index: int
    observation: str
    pddl_pred: dict[str, Any]
    candidates: list[dict[str, Any]]
    rollouts: list[dict[str, Any]]
    record: StepRecord


def _llm_record(client: Any, mark: int | None) -> dict[str, Any]:
    if client is None or mark is None:
        return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "by_role": {}, "roles": {}}
    # Nothing measured in the record (same bytes on every run): the stage's timing file has seconds, cache hits, ...
    summ = client.usage.summary(since=mark, measured=False)
    roles = summ.pop("by_role", {})
    return {**summ, "by_role": {r: v["calls"] for r, v in roles.items()}, "roles": roles}


def _per_subgoal(llm: dict[str, Any], n: int) -> dict[str, float]:
    n = max(n, 1)
    return {"calls": round(llm["calls"] / n, 3),
            "tokens": round((llm["prompt_tokens"] + llm["completion_tokens"]) / n, 1),
            "prompt_tokens": round(llm["prompt_tokens"] / n, 1),
            "completion_tokens": round(llm["completion_tokens"] / n, 1)}


def run_episode(task: Task, variant: str | Variant, pools: ExamplePools, client: Any, cfg: PlannerConfig, *,
                seed: int | None = None, leave_out: str = "", on_step: Callable[[StepView], None] | None = None,
                prefix: Sequence[str] = (), scene: Scene | None = None) -> Rollout:
    """Run one closed-loop episode of `variant` on `task` and return its rollout record (no files written).

    `cfg` must be the variant's (`PlannerConfig.from_params(params, variant)`): its planner overrides included.
    `prefix`: sub-goals executed first, as if the agent had chosen them (the probe's full planner step starts from a
    probe state: a prefix and `max_subgoals` 1); they are in the history the prompts show, not in the record.
    `scene`: the scene to play on (our world on an ALFWorld game's scene); default: the task's seeded scene."""
    spec = get_variant(variant)
    _check_config(spec, cfg)
    seed = cfg.world.seed if seed is None else seed
    mark = client.usage.snapshot() if client is not None else None
    env = new_env(task, cfg, seed, scene)
    expert = expert_plan(task, seed=seed, scene=env.scene)  # the scene is built once per episode
    expert_len = len(expert)
    instruction = task.instruction(0)
    true_args = task.args.as_dict()
    steps: list[StepRecord] = []
    fail_counts: Counter[tuple[str, str]] = Counter()
    acc_sum: Counter[str] = Counter()
    n_pred = 0
    stop_reason = "max_subgoals"
    planner = None if spec.search == "expert" else build_planner(task, spec, pools, client, cfg, leave_out)
    expert_queue = list(expert) if spec.search == "expert" else []
    belief = Belief()
    history = History()
    visited: set[str] = {env.observe().text()}  # observed states so far (for the no-progress rule)
    tried: dict[str, set[str]] = {}  # observed state -> sub-goals already executed from it (planner.avoid_tried)
    lost: set[str] = set()  # classes a walk found none of (avoid_tried, adapter_drop_*): until one is seen
    idle = 0
    last_failed = False
    no_prop_streak = 0
    last_pred: dict[str, Any] = {}
    for action in prefix:  # as the loop below records an executed step (what the next decision reads)
        sr = env.step(action)
        history.record(action, bool(sr.ok), sr.reason or "")
        if sr.ok:
            belief = belief_step(belief, action)
        if planner is not None:
            planner.recent_failures[:] = [] if sr.ok else [*planner.recent_failures, action]
        last_failed = not sr.ok
    # The expert is the upper bound: its plan is never cut by the planner's sub-goal cap.
    limit = cfg.episode.max_subgoals if planner is not None else len(expert_queue) + 1
    for index in range(limit):
        if env.done:
            break
        obs = env.observe()
        obs_text = obs.text()
        seen = tuple(classes_of(obs.objects))
        # The real observation is authoritative for what is seen, where and held; the belief keeps what was done.
        held = classes_of([obs.holding]) if obs.holding else []
        belief = replace(belief, seen=seen, holding=held[0] if held else "", done=tuple(history.done),
                         predicted_fail=(), location=obs.location or "")
        absent = lost - set(seen)  # walked to, none found, none seen since
        pred: dict[str, Any] = {}
        if planner is not None and planner.adapter is not None:
            pred = planner.adapter.predict(instruction, seen if cfg.adapter.adapter_observes else (), absent, seen) \
                if (cfg.adapter.adapter_every_step or not last_pred) \
                else dict(last_pred)
            last_pred = pred
        if pred:
            n_pred += 1
            for key, ok in args_accuracy(pred, true_args).items():
                acc_sum[key] += ok
        ctx = history.context(instruction, obs, pred if spec.adapter else None)
        if planner is not None:
            named = named_classes(pred)

            scope = task_scope(pred, walk=cfg.legal.nav_scope == "task") if cfg.legal.legal_scope == "task" else None

            def legal_for(state: Belief) -> list[str]:
                legal = legal_now(seen, _here(obs, state, belief), state.holding, named, cfg.legal.nav_targets, scope,
                                  cfg.legal.allow_stop)
                real = cfg.episode.avoid_tried and state is belief  # the real state only: imagined ones never observed
                if real:  # before the gate, so that it does not send the agent on a walk known to find nothing
                    legal = [a for a in legal if a.removeprefix("Navigation ") not in absent
                             or not a.startswith("Navigation ")] or legal
                if cfg.legal.goal_gate:
                    legal = goal_gate(legal, pred, state.location, obs.objects, state.inside, state.holding,
                                      obs.here if state is belief else None, obs.located)
                if real:
                    legal = [a for a in legal if a not in tried.get(obs_text, ())] or legal
                return legal
            # What the LLM was left to decide at this real state: the paper planner's legal set (no scaffold rule)
            # against the set the actors answer from (after the scaffold's rules when they are on).
            options = paper_legal(obs, pred, cfg.legal.nav_targets)
            offered = legal_for(belief) if cfg.legal.legal_actions and spec.search == "beam" else options
            chooser = chosen_by(len(options), len(offered))
            result = planner.decide(ctx, belief, last_failed, legal_for)
        else:
            action = expert_queue.pop(0) if expert_queue else None
            result = BeamResult(action, [{"subgoal": action, "value": None}] if action else [], [], True)
            offered, chooser = [], "expert"
        if result.action is None:
            no_prop_streak += 1
            rec = StepRecord(subgoal=NO_SUBGOAL, ok=False, reason=NO_PROPOSAL, observation=obs_text, pddl_pred=pred,
                             candidates=[], repeat_fail=no_prop_streak - 1, legal=len(offered), chosen_by="none")
            steps.append(rec)
            _notify(on_step, index, obs, pred, result, rec)
            if no_prop_streak >= cfg.episode.max_repeat_fails or planner is None:
                stop_reason = "no_proposal"
                break
            last_failed = True
            continue
        no_prop_streak = 0
        action = result.action
        tried.setdefault(obs_text, set()).add(action)
        sr = env.step(action)
        history.record(action, bool(sr.ok), sr.reason or "")
        key = (action, sr.reason or "")
        repeat = fail_counts[key]
        if not sr.ok:
            fail_counts[key] += 1
            if action.startswith("Navigation ") and (sr.reason or "").endswith("not found"):
                lost.add(action.split(" ", 1)[1])  # the room was explored and none is in view
            if planner is not None:
                planner.recent_failures.append(action)
        else:
            belief = belief_step(belief, action)
            if planner is not None:
                planner.recent_failures.clear()
        last_failed = not sr.ok
        rec = StepRecord(subgoal=action, ok=bool(sr.ok), reason=sr.reason or "", observation=obs_text,
                         pddl_pred=pred, candidates=[dict(c) for c in result.candidates],
                         repeat_fail=repeat if not sr.ok else 0, legal=len(offered), chosen_by=chooser)
        steps.append(rec)
        _notify(on_step, index, obs, pred, result, rec)
        if not sr.ok and fail_counts[key] >= cfg.episode.max_repeat_fails:
            stop_reason = "repeat_fail"
            break
        # What the agent observes after the step (place, hands, every object seen with its state): a step that
        # leads back to a state it has already been in made no progress; too many in a row end the episode.
        state = env.observe().text()
        idle = idle + 1 if state in visited else 0
        visited.add(state)
        if planner is not None and cfg.episode.max_idle and idle >= cfg.episode.max_idle:
            stop_reason = "no_progress"
            break
    if env.done:  # 'success', 'stop', 'max_fails' or 'max_steps' (the world's own verdict wins)
        stop_reason = env.done_reason
    em = episode_metrics(env, expert_len)
    llm = _llm_record(client if planner is not None else None, mark)
    n_sub = len(steps)
    metrics: dict[str, Any] = {
        "success": bool(em["success"]), "gc": float(em["gc"]), "plw_sr": float(em["plw_sr"]),
        "plw_gc": float(em["plw_gc"]),
        "subgoals": n_sub, "subgoals_executed": int(env.subgoals_executed),
        "failed_subgoals": int(env.failed_subgoals), "low_steps": int(env.low_steps),
        "no_proposal": sum(1 for s in steps if s.reason == NO_PROPOSAL),
        "max_repeat_fail": max(fail_counts.values(), default=0), "stop_reason": stop_reason,
        "scaffold": cfg.scaffold if planner is not None else "none",
        "llm_decided": sum(1 for s in steps if s.chosen_by == "llm"),
        "expert_len": expert_len,
        "adapter_acc": {k: round(acc_sum[k] / n_pred, 4) for k in ARG_KEYS} if n_pred else {},
        "adapter_acc_mean": round(sum(acc_sum.values()) / (n_pred * len(ARG_KEYS)), 4) if n_pred else None,
        "per_subgoal": _per_subgoal(llm, n_sub),
        "grounding": dict(planner.grounder.stats) if planner else {},
        "critic_unparsed": planner.critic.unparsed if planner and planner.critic else 0,
        "actor_plan_reuse": sum(a.reused for a in planner.actors) if planner else 0,
        "actor_calls": sum(a.calls for a in planner.actors) if planner else 0,
        "actor_illegal": sum(a.illegal for a in planner.actors) if planner else 0,
        "adapter_unparsed": planner.adapter.unparsed if planner and planner.adapter else 0,
    }
    return Rollout.new(task_id=task.id, task_type=task.task_type, instruction=instruction, variant=spec.name,
                       seed=seed, leave_out=leave_out, success=bool(em["success"]), gc=float(em["gc"]),
                       split=task.split, gc_met=int(em["gc_met"]), gc_total=int(em["gc_total"]), expert_len=expert_len,
                       plw={"sr": float(em["plw_sr"]), "gc": float(em["plw_gc"])}, steps=steps, metrics=metrics,
                       llm=llm)


def chosen_by(options: int, offered: int) -> str:
    """Who chose a step: 'llm' among two or more offered sub-goals, 'rule' when the scaffold's rules left one of
    several, 'single' when only one was legal at all."""
    if offered >= 2:
        return "llm"
    return "rule" if options >= 2 else "single"


def _check_config(spec: Variant, cfg: PlannerConfig) -> None:
    """A config built without the variant's planner overrides would run another planner than the record names."""
    flat = cfg.as_dict()
    for key, value in spec.planner.items():
        if flat.get(key, value) != value and not (key != "scaffold" and value == "auto"):
            raise ValueError(f"variant {spec.name!r} sets planner.{key}={value!r} but the config has "
                             f"{flat[key]!r}: build it with PlannerConfig.from_params(params, variant)")


def _here(obs: Any, state: Belief, real: Belief) -> list[str]:
    """What is where the (possibly imagined) agent stands: the observation's when it is the real place (with the
    open/on words the imagined steps changed since `real` rewritten), else the place and the objects last seen there."""
    if state.location == (obs.location or ""):
        if state is real:  # the observation is authoritative: 'Drawer (open)' must not be offered OpenObject again
            return list(obs.here)
        return [_restate(t, state, real) for t in obs.here]
    if not state.location:
        return []
    return [state.location] + [o for o, place in obs.located if place == state.location]


def _restate(text: str, state: Belief, real: Belief) -> str:
    """'Microwave (closed, off)' as the imagined `state` has it, where it opened/closed or switched it since `real`."""
    cls, words = parse_seen(text)
    if cls is None:
        return text
    for now, was, yes, no in ((state.opened, real.opened, "open", "closed"), (state.on, real.on, "on", "off")):
        if (cls in now) != (cls in was):
            words = (words - {yes, no}) | {yes if cls in now else no}
    return f"{cls} ({', '.join(sorted(words))})" if words else cls


def _notify(on_step: Callable[[StepView], None] | None, index: int, obs: Any, pred: dict[str, Any],
            result: BeamResult, rec: StepRecord) -> None:
    if on_step is None:
        return
    rollouts = [{"actions": list(n.actions), "value": n.value, "proposer": n.proposer} for n in result.rollouts]
    on_step(StepView(index, obs.text(), pred, list(result.candidates), rollouts, rec))


