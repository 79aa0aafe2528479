"""Hindsight relabeling (the paper's alg. 3), one function per stage, each over records.

gt samples (expert plans) -> collect_rollout (leave-one-out agent run) -> reflect (phi + think) -> complete
(actor sample) and critic_sample (critic sample). Beyond the paper: every completion is replayed in the world
from the task's initial state and marked `verified` when it reaches the goal; critic values are checked against
the goal conditions the replay reaches.
"""
from __future__ import annotations

import logging
from typing import Any, Sequence

from household.expert.cost_to_go import shortest_plan
from household.expert.env import Env
from household.expert.scene import Scene, build_scene
from household.world.tasks import Task
from planner.config import PlannerConfig
from llm.constrain import Constraint
from planner.prompts.parsing import format_plan, parse_values, split_plan
from planner.prompts.prompting import (actor_example, critic_examples, done_prefix, inline_step, join_examples, render,
                                   trace_text)
from planner.loop.episode import NO_PROPOSAL, NO_SUBGOAL, run_episode
from planner.loop.replay import new_env, replay
from planner.probe.quality import step_labels
from planner.relabel.phi import phi
from planner.retrieval.examples import ExamplePools
from planner.retrieval.grounding import Grounder, classes_of
from planner.scaffold.legal import legal_now, task_scope
from planner.variants import Variant
from pools.records import Completion, CriticSample, Reflection, Rollout, Sample

log = logging.getLogger(__name__)


def collect_rollout(task: Task, variant: Variant | str, pools: ExamplePools, client: Any, cfg: PlannerConfig,
                    leave_out: str = ""
                    ) -> Rollout:
    """Run the agent (`variant`, the practice planner) on a training task with the pools minus `leave_out`."""
    return run_episode(task, variant, pools, client, cfg, leave_out=leave_out)


def robot_trace(rollout: Rollout, collapse_repeats: bool = True) -> list[tuple[str, str]]:
    """What the robot did, in order: (sub-goal, the world's failure reason or '').

    Steps where nothing legal was proposed never reached the world and `Stop` would end a replay: both are left
    out. With `collapse_repeats`, an immediate repeat of a step with the same outcome is kept once: ten
    "Navigation ToiletPaperHanger" in a row teach nothing the first one does not, and a small model continuing
    such a trace copies the loop. (The sample is verified by replaying what it keeps, so it stays true.)
    """
    out: list[tuple[str, str]] = []
    for s in rollout.steps:
        if s.subgoal in (NO_SUBGOAL, "Stop") or s.reason == NO_PROPOSAL:
            continue
        item = (s.subgoal, "" if s.ok else (s.reason or "failed"))
        if collapse_repeats and out and out[-1] == item:
            continue
        out.append(item)
    return out


def trim_loops(task: Task, scene: Scene, seed: int, cfg: PlannerConfig, trace: Sequence[tuple[str, str]]
               ) -> list[tuple[str, str]]:
    """The trace without its no-progress loops: a stretch of steps after which the world is back in a state it was
    in before (walk away and back, open and close a drawer) is cut, and so is a step that ran but changed nothing.
    Failed steps that are not inside such a stretch stay, with the world's reason: they are the recovery material.
    The state is the world's own (where every object is, what is open or on, where the agent stands, its hands);
    the trimmed trace reaches the same state as the whole one, and the completion is verified by replay anyway."""
    env = new_env(task, cfg, seed, scene)
    states = [env.world_state()]  # states[i]: the world after kept[:i]
    kept: list[tuple[str, str]] = []
    for sg, _ in trace:
        res = env.step(sg)
        now = env.world_state()
        if res.ok and now in states:  # back where the trace already was: the loop since its last time there goes
            cut = len(states) - 1 - states[::-1].index(now)
            del kept[cut:], states[cut + 1:]
            continue
        kept.append((sg, "" if res.ok else res.reason or "failed"))
        states.append(now)
    return kept


def robot_text(rollout: Rollout, collapse_repeats: bool = True) -> str:
    """The rollout as the relabeling prompts show it: executed sub-goals, failures with the world's reason."""
    return trace_text(robot_trace(rollout, collapse_repeats)) or "(nothing)"


def _expert_line(expert: Sample | None, cfg: PlannerConfig) -> str:
    # Alg. 3 l.8-10: the ground-truth rollout is in view of reflect, complete and critic-sample calls.
    return f"Expert: {format_plan(expert.steps)}\n" if expert is not None and cfg.relabel.show_expert else ""


def reflect(rollout: Rollout, gt_sample: Sample, client: Any, cfg: PlannerConfig) -> Reflection:
    """Rewrite the task from its arguments (phi) and let the LLM reflect on the rollout (next to the expert's)."""
    text = phi(gt_sample.task_type, gt_sample.args)
    shown = cfg.relabel.show_expert
    prompt = render("reflect", phi=text, expert=_expert_line(gt_sample, cfg),
                    compare="Compare its steps with the expert's. " if shown else "",
                    robot=robot_text(rollout, cfg.relabel.collapse_repeats))
    resp = client.complete("reflect", prompt, max_tokens=cfg.relabel.think_tokens, stop=["\n\n", "\nTask:"])
    think = " ".join(resp.text.split())  # one line: it is spliced into the completion prompt
    return Reflection.new(rollout_id=rollout.id, task_id=rollout.task_id, phi=text, think=think)


def complete(reflection: Reflection, rollout: Rollout, task: Task, client: Any, cfg: PlannerConfig,
             examples: Sequence[Sample] = (), grounder: Grounder | None = None,
             expert: Sample | None = None) -> Completion:
    """Continue the robot's trace under the reflection until the world says it reaches the goal (alg. 3 l.9).

    Round 0 continues what the robot did (failed steps included, with the world's reasons). Beyond the paper, each
    round is replayed from the task's initial state; while the replay fails and `repair_rounds` allow, the next
    round continues from the replay's first failed step, marked with the world's reason, so the model repairs the
    plan from the state the failure left (and the sample keeps that failure: one more recovery to learn from).
    `completion: line` is the paper's one call writing the rest; `stepwise` picks one legal sub-goal per call in the
    replayed world (`_pick_steps`), where a round ends at its first failure. `completer: expert` (ours) makes no
    LLM call: the expert's shortest plan continues the trace from its first step that did not lower the cost-to-go
    (`expert_rest`), one round.
    """
    if cfg.relabel.completer == "expert" and cfg.world.backend != "household":
        raise ValueError(f"relabel.completer: expert plans with the expert's cost-to-go search and needs "
                         f"world.backend: household (not {cfg.world.backend!r}); use relabel.completer: llm there")
    if cfg.relabel.completion == "stepwise" and cfg.world.backend != "household":
        # Each pick replays every option from the task's start: milliseconds in ours, minutes in ALFWorld's engine.
        raise ValueError(f"relabel.completion: stepwise replays every option in the world and needs "
                         f"world.backend: household (not {cfg.world.backend!r}); use relabel.completion: line there")
    if cfg.relabel.trim_loops and cfg.world.backend != "household":
        raise ValueError(f"relabel.trim_loops: true compares the world's full state after each step and needs "
                         f"world.backend: household (not {cfg.world.backend!r}); set it false there")
    grounder = grounder or Grounder(cfg.retrieval.map_threshold)
    scene = build_scene(task, rollout.seed)  # every round's replay starts from this one scene
    trace = robot_trace(rollout, cfg.relabel.collapse_repeats)
    if cfg.relabel.trim_loops:
        trace = trim_loops(task, scene, rollout.seed, cfg, trace)
    if cfg.relabel.completer == "expert":  # no LLM: the expert writes the rest from where the run went wrong
        kept, added = expert_rest(task, scene, rollout.seed, cfg, [sg for sg, _ in trace])
        if not kept and not added:
            raise ValueError("no usable sub-goal in the rollout, and the expert has no plan from its start")
        rep = replay(task, kept + added, cfg, rollout.seed, scene)
        return verify_completion(reflection, rollout, task, kept + added, cfg,
                                 [_round(0, "", added, kept + added, len(kept), rep)], scene)
    base = render("complete", examples=join_examples(actor_example(s, show_args=False) for s in examples),
                  phi=reflection.phi, expert=_expert_line(expert, cfg), think=reflection.think or "none", done="")
    # The classes the task and (when shown) the expert's plan name: a stepwise pick is one of the legal sub-goals
    # over these alone (with `complete_classes: task`); line completions are grounded over these and the trace's.
    named = classes_of([v for v in task.args.as_dict().values() if isinstance(v, str) and v])
    if expert is not None and cfg.relabel.show_expert:
        named += classes_of(w for sg in expert.steps for w in sg.split()[1:])
    classes = named + classes_of(w for sg, _ in trace for w in sg.split()[1:])
    rounds: list[dict[str, Any]] = []
    kept = list(trace)  # what the next round continues: the robot's trace, then each round's replayed part
    best: tuple[list[str], dict[str, Any]] | None = None
    resample = False
    guide = list(expert.steps) if expert is not None and cfg.relabel.show_expert \
        and cfg.relabel.complete_guide == "expert" else []
    for rnd in range(cfg.relabel.repair_rounds + 1):
        if cfg.relabel.completion == "stepwise":
            added = _pick_steps(task, scene, rollout.seed, kept, base, client, cfg, named, grounder, guide)
            answer = format_plan(added)
        elif cfg.relabel.completion == "line":
            # A round after one that ran without failing but fell short of the goal has nothing new to be told:
            # it samples another continuation (seeded by the round, so reruns are exact and cached).
            resp = client.complete("complete", base + done_prefix([inline_step(sg, r) for sg, r in kept]),
                                   max_tokens=cfg.relabel.complete_tokens, stop=["\n"],
                                   temperature=cfg.relabel.repair_temperature if resample else None,
                                   seed=rnd if resample else None)
            added = _ground_steps(resp.text, classes, grounder, cfg.relabel.complete_steps)
            answer = resp.text
        else:
            raise ValueError(f"relabel.completion must be 'line' or 'stepwise', not {cfg.relabel.completion!r}")
        steps = [sg for sg, _ in kept] + added
        rep = replay(task, steps, cfg, rollout.seed, scene) if steps else _empty_replay()
        rounds.append(_round(rnd, answer, added, steps, len(kept), rep))
        failure = rounds[-1]["failure"]
        first_new = None if failure is None else failure["step"]
        if best is None or _progress(rep) > _progress(best[1]):
            best = (steps, rep)
        if rep["success"] or not added or rep["end"] in ("max_fails", "max_steps"):
            break
        # Keep what replayed up to that failure, with the world's reasons (the replay is the truth for the robot's
        # part too), and continue from there.
        resample = first_new is None
        if resample:  # the new steps ran without failing but did not reach the goal
            if cfg.relabel.completion == "stepwise":  # go on from where they left the world
                kept = [(steps[i], rep["reasons"][i]) for i in range(rep["ran"])]
            continue  # (line: try again from the same point, sampled)
        kept = [(steps[i], rep["reasons"][i]) for i in range(first_new + 1)]
    assert best is not None
    steps, rep = best
    if not steps:
        # Nothing to replay or learn from: the item fails with this reason (recorded by the stage, never dropped).
        raise ValueError(f"no usable sub-goal in the rollout or the completion "
                         f"(LLM answer: {rounds[-1]['answer'][:120]!r})")
    steps = steps[: rep["ran"]] if rep["success"] else steps  # nothing after the goal is part of the plan
    return verify_completion(reflection, rollout, task, steps, cfg, rounds, scene)


def expert_rest(task: Task, scene: Scene, seed: int, cfg: PlannerConfig, steps: Sequence[str]
                ) -> tuple[list[str], list[str]]:
    """`relabel.completer: expert`: the robot's steps up to and including the first that did not lower the expert's
    cost-to-go (planner/probe/quality.py's labels; all of them when every one did), and the expert's shortest plan
    from the state they leave ([] when none within its search's limit, or the episode ended there)."""
    labels = step_labels(task, steps, cfg, seed)
    cut = next((i + 1 for i, lab in enumerate(labels) if lab != "progress"), len(labels))
    kept = list(steps[:cut])
    return kept, shortest_plan(_replayed(task, scene, seed, cfg, kept)) or []


def _pick_steps(task: Task, scene: Scene, seed: int, kept: Sequence[tuple[str, str]], head: str, client: Any,
                cfg: PlannerConfig, classes: Sequence[str], grounder: Grounder, guide: Sequence[str] = ()
                ) -> list[str]:
    """One stepwise round: the model picks each next sub-goal from those legal in the world the trace left.

    The world runs each pick before the next is asked for, so the prompt always ends in what really happened. The
    round ends at the goal, at its first failure (the next round continues from it), at the world's limits or after
    `complete_steps` picks. The legal set is the planner's own (`legal_now`, over what the world has shown and the
    classes the task and the expert's plan name), so the sample stays one a planner could have written. With
    `complete_classes: task` only sub-goals over those classes are offered (a small model otherwise wanders); with
    a `guide` (the expert's plan, `complete_guide: expert`), no pick that undoes progress along it (putting the
    tomato in the bin before it is heated); the model still chooses the order and the detours.
    """
    env = new_env(task, cfg, seed, scene)
    visited = {env.world_state()}
    for sg, _ in kept:
        env.step(sg)
        visited.add(env.world_state())
    shown = [inline_step(sg, reason) for sg, reason in kept]
    scope = task_scope(task.args.as_dict())
    added: list[str] = []
    while len(added) < cfg.relabel.complete_steps and not env.done:
        obs = env.observe()
        held = classes_of([obs.holding]) if obs.holding else []
        legal = legal_now(classes_of(obs.objects), obs.here, held[0] if held else "", classes, "any", scope,
                          allow_stop=False)
        # A pick that leads back to a state the trace was already in makes no progress (the robot's loops would
        # be copied otherwise); in hindsight the world can tell, by a replay per option (~1 ms each). The state is
        # the world's own (where every object is), not the observation: a put changes what the agent sees little.
        path = [sg for sg, _ in kept] + added
        legal = [a for a in legal if _lands(task, scene, seed, cfg, path + [a]) not in visited]
        if guide:  # hindsight: drop the picks that undo progress along the expert's plan (see `_progress_along`)
            now = _progress_along(task, scene, seed, cfg, path, guide)
            legal = [a for a in legal if _progress_along(task, scene, seed, cfg, path + [a], guide) >= now] or legal
        if cfg.relabel.complete_classes == "task":  # the task's classes first; others only when those are spent
            legal = [a for a in legal if set(a.split()[1:]) <= set(classes)] or legal
        if not legal:  # every legal step leads back: nothing new can happen from here
            break
        resp = client.complete("complete", head + done_prefix(shown), max_tokens=16, stop=["\n", ";"],
                               constraint=Constraint.choice(legal))
        sg = resp.text.strip()
        if sg not in legal:  # the endpoint ignored the constraint: ground within the legal set
            sg = grounder.ground(sg.split("[")[0], classes, allowed=legal)
            if sg is None:
                break
        res = env.step(sg)
        added.append(sg)
        visited.add(env.world_state())
        shown.append(inline_step(sg, "" if res.ok else res.reason or "failed"))
        if not res.ok:
            break
    return added


def _progress_along(task: Task, scene: Scene, seed: int, cfg: PlannerConfig, path: Sequence[str],
                    guide: Sequence[str]) -> int:
    """How far along `guide` (the expert's plan) `path` has got: the largest j such that running guide[j:] after
    `path` reaches the goal, or after a walk back to where guide[j] happens (the plan's last walk before it):
    len(guide) = already there; -1 = no tail does. Replays, ~1 ms each."""
    def tails(j: int) -> list[list[str]]:
        walk = next((sg for sg in reversed(guide[:j]) if sg.startswith("Navigation ")), None)
        back = [[walk, *guide[j:]]] if walk and j < len(guide) and not guide[j].startswith("Navigation ") else []
        return [list(guide[j:])] + back
    return next((j for j in range(len(guide), -1, -1)
                 if any(replay(task, [*path, *t], cfg, seed, scene)["success"] for t in tails(j))), -1)


def _lands(task: Task, scene: Scene, seed: int, cfg: PlannerConfig, steps: Sequence[str]) -> tuple:
    """The world's state (objects, containers, switches, place, hands) after `steps` from the task's initial one."""
    return _replayed(task, scene, seed, cfg, steps).world_state()


def _replayed(task: Task, scene: Scene, seed: int, cfg: PlannerConfig, steps: Sequence[str]) -> Env:
    """The world after `steps` from the task's initial state."""
    env = new_env(task, cfg, seed, scene)
    for sg in steps:
        env.step(sg)
    return env


def _ground_steps(text: str, classes: Sequence[str], grounder: Grounder, limit: int) -> list[str]:
    out: list[str] = []
    for raw in split_plan(text)[:limit]:
        raw = raw.split("[")[0].strip()  # the model may copy the '[failed: ...]' form: the step is what counts
        sg = grounder.ground(raw, classes) if raw else None
        if sg is None or sg == "Stop" or (out and out[-1] == sg):
            continue  # an invented step ("Navigation LivingRoom") or a copied repeat is dropped; the rest count
        out.append(sg)
    return out


def _empty_replay() -> dict[str, Any]:
    return {"success": False, "gc": 0.0, "met": 0, "total": 0, "failed_step": -1, "fails": 0, "reason": "",
            "ran": 0, "reasons": [], "end": ""}


def _round(rnd: int, answer: str, added: list[str], steps: Sequence[str], start: int, rep: dict[str, Any]
           ) -> dict[str, Any]:
    """A completion round's record; its `failure` is the world's first failure among the round's steps (from index
    `start` of `steps`): what the next round is told (step and reason)."""
    first = next((i for i in range(start, rep["ran"]) if rep["reasons"][i]), None)
    failure = None if first is None else {"step": first, "subgoal": steps[first], "reason": rep["reasons"][first]}
    return {"round": rnd, "answer": answer[:4000], "added": added, "replay": _brief(rep), "failure": failure}


def _brief(rep: dict[str, Any]) -> dict[str, Any]:
    return {k: rep[k] for k in ("success", "gc", "met", "total", "failed_step", "reason", "fails", "ran")}


def _progress(rep: dict[str, Any]) -> tuple[bool, float, int]:
    return bool(rep["success"]), float(rep["gc"]), -int(rep["fails"])


def verify_completion(reflection: Reflection, rollout: Rollout, task: Task, steps: Sequence[str],
                      cfg: PlannerConfig, rounds: Sequence[dict[str, Any]] = (), scene: Scene | None = None
                      ) -> Completion:
    """Replay a completed step sequence from the task's initial state and wrap it as a (verified?) completion."""
    rep = replay(task, steps, cfg, rollout.seed, scene)
    verified = bool(rep["success"])
    sample = Sample.new(kind="hindsight", task_id=task.id, task_type=task.task_type, instruction=rollout.instruction,
                        args=task.args.as_dict(), steps=list(steps), verified=verified, source=rollout.id,
                        reasons=rep["reasons"] + [""] * (len(steps) - len(rep["reasons"])))
    return Completion.new(reflection_id=reflection.id, rollout_id=rollout.id, task_id=task.id, steps=list(steps),
                          verified=verified, replay=_brief(rep), sample=sample, rounds=list(rounds))


def critic_sample(rollout: Rollout, reflection: Reflection, task: Task, client: Any, cfg: PlannerConfig,
                  examples: Sequence[CriticSample] = (), expert: Sample | None = None) -> CriticSample:
    """The LLM values the rollout's executed steps ('the value is a/b', alg. 3 l.10); `verified` iff the replay agrees."""
    steps = [sg for sg, reason in robot_trace(rollout, cfg.relabel.collapse_repeats) if not reason]
    rep = replay(task, steps, cfg, rollout.seed)
    # In hindsight whether the robot finished is known; without it the small model values every plan as complete.
    outcome = ("Outcome: the robot finished the task.\n" if rep["success"] else
               "Outcome: the robot did not finish the task.\n") if cfg.relabel.critic_outcome else ""
    prompt = render("critic_sample", examples=critic_examples(list(examples)), phi=reflection.phi,
                    expert=_expert_line(expert, cfg), plan=format_plan(steps) or "(nothing)", outcome=outcome)
    truth = (rep["met"], rep["total"])
    # In hindsight the task is known, so is b (its number of goal conditions): the model answers a, constrained.
    b = max(truth[1], 1)
    constraint = Constraint.template(["the value is ", tuple(str(i) for i in range(b + 1)), f"/{b}"])
    resp = client.complete("critic_sample", prompt, max_tokens=cfg.search.critic_tokens + 4, stop=["\n"],
                           constraint=constraint)
    value = parse_values("1." + resp.text, 1)[0]
    if value is None:  # unparsable: keep the replay's value, unverified (the LLM did not say it)
        num, den, verified = truth[0], truth[1], False
    else:
        num, den = value
        verified = truth[1] > 0 and num * truth[1] == truth[0] * den
    return CriticSample.new(task_id=task.id, task_type=task.task_type, instruction=rollout.instruction,
                            steps=steps, value_num=num, value_den=den, verified=verified, source=rollout.id)
