"""A variant's planning machinery for one episode: adapter, actors over their example pools, critic and generator,
and the decision at a real state (beam search over imagined rollouts, or LLM-Planner's whole plans)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from household.world.tasks import Task
from planner.adapter.predict import Adapter
from planner.config import PlannerConfig
from planner.prompts.prompting import render
from planner.retrieval.examples import ExamplePools
from planner.retrieval.grounding import Grounder
from planner.scaffold.legal import named_classes
from planner.search.actors import Actor, StepContext
from planner.search.beam import BeamResult, Node, beam_search
from planner.search.critic import Critic
from planner.search.follow_actor import FollowActor
from planner.search.generator import Belief, BeliefGenerator, LLMGenerator
from planner.follow.reader import follower_from_config
from planner.variants import FOLLOWERS, Variant

ROLE_OF_POOL = {"gt": "actor_gt", "hind": "actor_hind", "follow": "follow", "follow_gt": "follow_gt"}


@dataclass
class Planner:
    """One variant's planning machinery for one episode (examples retrieved once: the prompts' shared prefix)."""

    variant: Variant
    cfg: PlannerConfig
    adapter: Adapter | None
    actors: list[Actor | FollowActor]
    critic: Critic | None
    generator: Callable[[Belief, str], Belief]
    grounder: Grounder
    queue: list[str] = field(default_factory=list)  # llm_planner: the rest of its written plan
    recent_failures: list[str] = field(default_factory=list)  # sub-goals failed since the last success

    def decide(self, ctx: StepContext, belief: Belief, last_failed: bool,
               legal_for: Callable[[Belief], list[str]] | None = None) -> BeamResult:
        """Choose the next sub-goal for the real state (each proposal from `legal_for(state)` when given)."""
        classes = list(ctx.seen) + named_classes(ctx.args)
        legal_for = legal_for if self.cfg.legal.legal_actions else None
        if self.variant.search == "replan":
            return self._replan(ctx, belief, last_failed, classes)
        for actor in self.actors:
            actor.new_step()
        # A sub-goal that already failed in this unchanged state (no success since) is not proposed again at the
        # root unless nothing else is: a failed sub-goal changes nothing, so the retry would fail the same way.
        # When an actor proposes only such sub-goals, up to `retry_samples` sampled calls look for another.
        avoid = set(self.recent_failures) if self.cfg.episode.avoid_repeats else set()

        def guarded(actor: Actor) -> Callable[[Node, int], list[str]]:
            def propose(node: Node, n: int) -> list[str]:
                if node.actions and self.cfg.search.deep_proposals == "one":
                    if node.proposer != actor.role:
                        return []  # a deeper rollout is extended by the actor that began it, once
                    n = 1
                legal = legal_for(node.state) if legal_for is not None else None
                got = actor.propose(ctx, node, n, classes, legal=legal)
                if node.actions or not avoid:
                    return got
                fresh = [a for a in got if a not in avoid]
                if not fresh and self.cfg.episode.retry_samples > 0:  # everything proposed just failed: ask for others
                    fresh = actor.propose_other(ctx, node, avoid, self.cfg.episode.retry_samples, classes, legal=legal)
                return fresh or got
            return propose

        proposers = [(a.role, guarded(a)) for a in self.actors]
        score = (lambda nodes: self.critic.score(ctx, nodes)) if self.critic else (lambda nodes: [None] * len(nodes))
        return beam_search(belief, proposers, self.generator, score, beam=self.cfg.search.beam,
                           width=self.cfg.search.width, depth=self.cfg.search.depth)

    def _replan(self, ctx: StepContext, belief: Belief, last_failed: bool, classes: list[str]) -> BeamResult:
        # LLM-Planner: write a whole plan, execute it step by step, write a new one after a failure (or when spent).
        if last_failed or not self.queue:
            actor = self.actors[0]
            actor.new_step()
            plan = actor.write_plan(ctx, Node((), belief), classes)
            self.queue = list(plan)
        if not self.queue:
            return BeamResult(None)
        action = self.queue.pop(0)
        return BeamResult(action, [{"subgoal": action, "value": None}], [], True)


def make_actor(pool: str, task: Task, pools: ExamplePools, client: Any, cfg: PlannerConfig, grounder: Grounder,
               show_args: bool = True, whole_plans: bool = False, exclude: tuple[str, ...] = (),
               instruction: str | None = None) -> Actor:
    """The actor over one pool ('gt' or 'hind') for a task: its K nearest examples by the instruction the agent reads
    (default: the task's first annotation), or (retrieval.unit step) its K nearest windows by the situation at each
    prompt; the task's own never."""
    r = cfg.retrieval
    examples, situations = [], None
    if r.unit == "step":
        situations = pools.window_source(pool, r.k, r.window, with_args=show_args, exclude_task=task.id,
                                         exclude_ids=exclude)
    else:
        query = task.instruction(0) if instruction is None else instruction
        examples = pools.retrieve(pool, query, r.k, exclude_task=task.id, exclude_ids=exclude)
    # Actor plans cover the look-ahead; LLM-Planner writes whole plans.
    return Actor(ROLE_OF_POOL[pool], client, examples, grounder, show_args=show_args, situations=situations,
                 window=r.window,
                 plan_steps=cfg.episode.max_subgoals if whole_plans
                 else max(cfg.search.plan_steps, cfg.search.depth + 1),
                 max_tokens=cfg.search.actor_tokens * (3 if whole_plans else 1), reuse_plans=cfg.search.reuse_plans,
                 prompt_tokens=r.prompt_tokens, decide=cfg.search.decide,
                 score_norm=cfg.search.score_norm)


def make_adapter(task: Task, pools: ExamplePools, client: Any, cfg: PlannerConfig, exclude: tuple[str, ...] = (),
                 instruction: str | None = None) -> Adapter:
    """The adapter for a task: its examples the gt pool's nearest to the instruction the agent reads (default: the
    task's first annotation), the task's own and those in `exclude` never (its gt_lexicon counts leave them out too)."""
    text = task.instruction(0) if instruction is None else instruction
    examples = pools.retrieve("gt", text, cfg.retrieval.adapter_k or cfg.retrieval.k, exclude_task=task.id,
                              exclude_ids=exclude)
    rest = [s for s in pools.gt if s.task_id != task.id and s.id not in exclude]
    return Adapter.from_config(client, examples, cfg, pool=rest)


def make_follower(role: str, task: Task, pools: ExamplePools, cfg: PlannerConfig, exclude: tuple[str, ...] = ()
                  ) -> FollowActor:
    """The follower over gt ('follow_gt') or gt and the hindsight pool with its corrections ('follow'), the task's
    own records and those in `exclude` never (leave-one-out)."""
    records = [*pools.gt, *(pools.hind if role == "follow" else ())]
    kept = [(r, f"{r.kind} record {r.id}") for r in records if r.task_id != task.id and r.id not in exclude]
    return FollowActor(role, follower_from_config(kept, cfg.retrieval, cfg.world.seed), cfg.retrieval.follow_window,
                       task.task_type)


def build_planner(task: Task, variant: Variant, pools: ExamplePools, client: Any, cfg: PlannerConfig,
                  leave_out: str = "", grounder: Grounder | None = None, instruction: str | None = None) -> Planner:
    """Retrieve the episode's examples and assemble adapter, actors, critic and generator for a variant.

    `instruction`: the text the episode's prompts show (on an ALFWorld game, its templated goal); every role's
    examples are retrieved by it. Default: the task's first annotation."""
    text = task.instruction(0) if instruction is None else instruction
    exclude = (leave_out,) if leave_out else ()
    grounder = grounder or Grounder(cfg.retrieval.map_threshold)
    actors: list[Actor | FollowActor] = []
    for pool in variant.actors:
        if pool in FOLLOWERS:  # always there: with nothing to read, it falls back (and says so)
            actors.append(make_follower(pool, task, pools, cfg, exclude))
            continue
        actor = make_actor(pool, task, pools, client, cfg, grounder, show_args=variant.adapter,
                           whole_plans=variant.search == "replan", exclude=exclude, instruction=text)
        if actor.examples or actor.situations:  # e.g. no hindsight samples yet (collect): the others take the width
            actors.append(actor)
    adapter = make_adapter(task, pools, client, cfg, exclude, text) if variant.adapter else None
    critic = None
    if variant.critic_pool:
        cexamples = pools.retrieve(variant.critic_pool, text, cfg.retrieval.k, exclude_task=task.id,
                                   exclude_ids=exclude)
        critic = Critic(client, cexamples, show_args=variant.adapter, tokens_per_rollout=cfg.search.critic_tokens,
                        prompt_tokens=cfg.retrieval.prompt_tokens)
    if cfg.search.generator == "llm":
        from household.world.ontology import canonical_class

        def gen_prompt(state: Belief, subgoal: str) -> str:
            return render("generator", instruction=text, seen=", ".join(state.seen), belief=state.text(),
                          subgoal=subgoal)
        generator: Callable[[Belief, str], Belief] = LLMGenerator(client, gen_prompt, canonical_class)
    elif cfg.search.generator == "belief":
        generator = BeliefGenerator()
    else:
        raise ValueError(f"planner.generator must be 'belief' or 'llm', not {cfg.search.generator!r}")
    return Planner(variant, cfg, adapter, actors, critic, generator, grounder)
