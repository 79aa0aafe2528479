"""Planner configuration, built by the flows from params.yaml's `world:`, `planner:`, `retrieval:`, `relabel:`."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from planner.scaffold.deviations import AUTO, SCAFFOLD_KEYS, check_scaffold, resolve
from planner.scaffold.legal import NAV_TARGET_MODES
from planner.variants import Variant

# Defaults for keys absent from the params given: params.yaml's values (tests/planner/test_config.py fails when the two
# differ; params.yaml carries each key's comment, the paper's value beside ours). They are constants, not read from
# params.yaml at run time, because a stage builds its config from the sections dvc.yaml declares for it: a default
# read from the workspace's params.yaml would be a dependency DVC does not see. The scaffold's keys
# (planner.deviations, kind 'scaffold') default to `auto` and follow `scaffold`.
PLANNER_DEFAULTS: dict[str, Any] = {
    "variant": "hindsight",      # the name of the variant being run (planner.variants)
    "scaffold": "none",          # none: the paper's planner (every scaffold key reads its paper value); full: our
                                 # rules on (planner.deviations: the keys of kind 'scaffold', `auto` follows this)
    "beam": 2,                   # B: rollouts kept per depth (paper: "depth and width of 2" -> B=2)
    "width": 2,                  # W: proposals per expansion, split evenly between the actors (1 each for 2 actors)
    "depth": 1,                  # U: extra look-ahead depths; U+1 expansions (paper's "depth 2" read as U+1=2)
    "generator": "belief",       # belief: known sub-goal effects, no LLM call | llm: RAFA-style LLM prediction
    "reuse_plans": True,         # an actor writes a short plan; deeper expansions on its own path reuse it (saves calls)
    "plan_steps": 3,             # steps an actor writes per call (>= depth+1 so its plan covers the look-ahead)
    "max_subgoals": 32,          # episode cap on planned sub-goals (ALFRED's own limits in world: still apply)
    "max_idle": 6,               # ours: stop after this many sub-goals in a row that lead only back to observed
                                 # states (wandering between known places, switching a lamp on and off); 0 = never
                                 # (paper: only ALFRED's limits and the sub-goal cap end an episode)
    "max_repeat_fails": 3,       # stop when the same sub-goal fails with the same reason this many times
    "retry_samples": 1,          # ...and when an actor proposes only those, sampled calls (each one call) for another
    "adapter_every_step": True,  # paper: the adapter predicts at every step (identical prompts hit the cache)
    "actor_tokens": 40,          # token cap per actor call (plan_steps sub-goals of ~8 tokens)
    "adapter_tokens": 40,        # token cap per adapter call (one 'object=.. two=..' line)
    "critic_tokens": 12,         # token cap per scored rollout in a critic call
    "legal_actions": True,       # ours: actors answer ONE sub-goal from those legal in the (imagined) state, by
                                 # constrained decoding where the endpoint supports it (llm.constrain); False = free
                                 # plan text mapped to the nearest legal sub-goal (paper: free text)
    "nav_targets": "any",        # legal walks: 'any' = to classes seen or named by the predicted arguments (the world
                                 # explores for an unseen one); 'seen' = only to classes already seen
    "deep_proposals": "one",     # ours: a deeper rollout is extended by one proposal of the actor that began it
                                 # (~2x fewer calls); 'all' = the paper: every actor proposes W/2 at every node
    "adapter_min_share": 0.1,    # with 'lexicon': a word points to a value when P(value | word) >= this in train
    "adapter_order": "mrecep_first",  # ours: the answer line names the movable receptacle before the object, so the
                                 # container is not named as the object; 'object_first' = the seven in ALFRED's order
                                 # (paper: silent)
    "adapter_observes": False,   # paper: the adapter reads the objects seen so far; ours on the 1.5B model: the
                                 # instruction only (it copied a seen receptacle into `parent`); same prompt each step
}
RETRIEVAL_DEFAULTS: dict[str, Any] = {
    "k": 3,                      # K examples per prompt (paper's setup, as LLM-Planner: 9 nearest of the pool;
                                 # prompt cost grows linearly with K: 3 keeps a 2-core CPU profile fast)
    "map_threshold": 0.6,        # min cosine similarity to map an unparsable proposal to a legal sub-goal; else reject
    "adapter_k": 7,              # ours: examples in the adapter prompt (0 = k, the paper's one K); its answer is
                                 # short and its prefix cached per episode, so more examples cost little
    "prompt_tokens": 3400,       # ours: an actor's or critic's examples are cut, farthest first, until the prompt
                                 # fits this many tokens (llm.n_ctx 4096 less the answer); 0 = no cut (paper: silent)
}
RELABEL_DEFAULTS: dict[str, Any] = {
    "think_tokens": 64,          # token cap of the reflection (think)
    "complete_steps": 16,        # most sub-goals one completion round may add
    "complete_tokens": 160,      # token cap of the completion call
    "keep_unverified": False,    # whether unverified completions still become hindsight samples
    "show_expert": True,         # paper (alg. 3 l.8-10): reflect, complete and critic-sample calls see the expert's
                                 # rollout of the task; False = the ablation that hides it
    "repair_rounds": 2,          # beyond the paper: a completion whose replay fails is repaired this many times, each
                                 # round fed the replay's first failed step and reason (0 = the paper: one call)
    "collapse_repeats": True,    # ours: an immediate repeat of a step (same outcome) is kept once in a hindsight trace
    "repair_temperature": 0.7,   # ours: a repair round after a round that ran clean but short of the goal samples
                                 # (seeded by the round) instead of repeating the greedy continuation
    "completion": "stepwise",    # 'line' = the paper (alg. 3 l.9): one call writes the rest of the plan; 'stepwise'
                                 # (ours) = the model picks each next sub-goal from those legal in the replayed
                                 # world state (constrained decoding), and the world runs it before the next pick
    "complete_classes": "task",  # stepwise picks: 'task' (ours) = only sub-goals over the classes the task and the
                                 # expert's plan name; 'all' = every legal sub-goal (the paper's call is free text)
    "complete_guide": "expert",  # stepwise picks (ours): 'expert' = no pick that undoes progress along the expert's
                                 # plan (the shortest tail of it that still reaches the goal must not grow; replayed;
                                 # only when show_expert); 'none' = no such check (the paper has no stepwise picks)
    "critic_outcome": True,      # ours: the critic-sample call is told whether the robot finished the task (known in
                                 # hindsight); False = the paper's inputs only (alg. 3 l.10)
    "critic_examples": 4,        # nearest gt critic examples shown when writing a critic sample
}
WORLD_DEFAULTS: dict[str, Any] = {"seed": 0, "max_fails": 10, "max_steps": 1000, "explore_budget": 400,
                                  "backend": "household", "alfworld_games": "household/data/alfworld_samples"}
SECTIONS = ("planner", "retrieval", "relabel")  # read whole; the world keys of WORLD_DEFAULTS besides
KNOWN: dict[str, set[str]] = {"planner": set(PLANNER_DEFAULTS) | set(SCAFFOLD_KEYS),
                              "retrieval": set(RETRIEVAL_DEFAULTS), "relabel": set(RELABEL_DEFAULTS)}


# The values a mode key may take (a typo would otherwise quietly behave as one of them).
CHOICES: dict[str, tuple[str, ...]] = {
    "legal_scope": ("task", "all"), "nav_scope": ("task", "all"), "nav_targets": NAV_TARGET_MODES,
    "deep_proposals": ("all", "one"), "generator": ("belief", "llm"), "completion": ("stepwise", "line"),
}


@dataclass(frozen=True)
class PlannerConfig:
    """Everything the planner reads: one flat, frozen view of the params it is given (params.yaml's `planner`,
    `retrieval` and `relabel` sections and some of `world`); a key absent there takes params.yaml's default."""

    variant: str = "hindsight"  # the name of the variant being run (planner.variants); set by from_params
    scaffold: str = PLANNER_DEFAULTS["scaffold"]
    beam: int = PLANNER_DEFAULTS["beam"]
    width: int = PLANNER_DEFAULTS["width"]
    depth: int = PLANNER_DEFAULTS["depth"]
    generator: str = PLANNER_DEFAULTS["generator"]
    reuse_plans: bool = PLANNER_DEFAULTS["reuse_plans"]
    plan_steps: int = PLANNER_DEFAULTS["plan_steps"]
    max_subgoals: int = PLANNER_DEFAULTS["max_subgoals"]
    max_repeat_fails: int = PLANNER_DEFAULTS["max_repeat_fails"]
    max_idle: int = PLANNER_DEFAULTS["max_idle"]
    avoid_repeats: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    avoid_tried: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    retry_samples: int = PLANNER_DEFAULTS["retry_samples"]
    adapter_every_step: bool = PLANNER_DEFAULTS["adapter_every_step"]
    actor_tokens: int = PLANNER_DEFAULTS["actor_tokens"]
    adapter_tokens: int = PLANNER_DEFAULTS["adapter_tokens"]
    critic_tokens: int = PLANNER_DEFAULTS["critic_tokens"]
    legal_actions: bool = PLANNER_DEFAULTS["legal_actions"]
    nav_targets: str = PLANNER_DEFAULTS["nav_targets"]
    deep_proposals: str = PLANNER_DEFAULTS["deep_proposals"]
    legal_scope: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    nav_scope: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    goal_gate: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    allow_stop: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    adapter_observes: bool = PLANNER_DEFAULTS["adapter_observes"]
    adapter_options: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    adapter_min_share: float = PLANNER_DEFAULTS["adapter_min_share"]
    adapter_order: str = PLANNER_DEFAULTS["adapter_order"]
    adapter_container_with: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    adapter_lamp_word: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    adapter_slice_word: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    adapter_drop_absent: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    adapter_drop_sibling: Any = AUTO  # planner.deviations: follows `scaffold` unless set
    k: int = RETRIEVAL_DEFAULTS["k"]
    map_threshold: float = RETRIEVAL_DEFAULTS["map_threshold"]
    adapter_k: int = RETRIEVAL_DEFAULTS["adapter_k"]
    prompt_tokens: int = RETRIEVAL_DEFAULTS["prompt_tokens"]
    think_tokens: int = RELABEL_DEFAULTS["think_tokens"]
    complete_steps: int = RELABEL_DEFAULTS["complete_steps"]
    complete_tokens: int = RELABEL_DEFAULTS["complete_tokens"]
    keep_unverified: bool = RELABEL_DEFAULTS["keep_unverified"]
    show_expert: bool = RELABEL_DEFAULTS["show_expert"]
    repair_rounds: int = RELABEL_DEFAULTS["repair_rounds"]
    collapse_repeats: bool = RELABEL_DEFAULTS["collapse_repeats"]
    repair_temperature: float = RELABEL_DEFAULTS["repair_temperature"]
    completion: str = RELABEL_DEFAULTS["completion"]
    complete_classes: str = RELABEL_DEFAULTS["complete_classes"]
    complete_guide: str = RELABEL_DEFAULTS["complete_guide"]
    critic_outcome: bool = RELABEL_DEFAULTS["critic_outcome"]
    critic_examples: int = RELABEL_DEFAULTS["critic_examples"]
    seed: int = WORLD_DEFAULTS["seed"]
    max_fails: int = WORLD_DEFAULTS["max_fails"]
    max_steps: int = WORLD_DEFAULTS["max_steps"]
    explore_budget: int = WORLD_DEFAULTS["explore_budget"]
    backend: str = WORLD_DEFAULTS["backend"]  # household | alfworld (household.backends.open_env)
    alfworld_games: str = WORLD_DEFAULTS["alfworld_games"]  # the ALFWorld games folder (alfworld backend)

    def __post_init__(self) -> None:
        check_scaffold(self.scaffold)
        resolved = resolve({k: getattr(self, k) for k in SCAFFOLD_KEYS}, self.scaffold)
        for key in SCAFFOLD_KEYS:  # frozen: the resolved values are set once, here
            object.__setattr__(self, key, resolved[key])
        for key, allowed in CHOICES.items():
            if getattr(self, key) not in allowed:
                raise ValueError(f"params.yaml: {key} must be one of {allowed}, not {getattr(self, key)!r}")

    @classmethod
    def from_params(cls, params: dict[str, Any], variant: Variant | str | None = None,
                    **overrides: Any) -> "PlannerConfig":
        """Build from a params dict (whole params.yaml or just some sections); a `Variant`'s planner overrides
        apply over the `planner:` section; keyword overrides win over both."""
        names = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        planner = dict(params.get("planner") or {})
        if isinstance(variant, Variant):
            unknown = sorted(set(variant.planner) - set(PLANNER_DEFAULTS) - set(SCAFFOLD_KEYS))
            if unknown:
                raise ValueError(f"params.yaml: variant {variant.name!r}: planner key {unknown[0]!r} is not a key of "
                                 "params.yaml's planner section")
            planner.update(variant.planner)
            values["variant"] = variant.name
        elif variant is not None:
            values["variant"] = variant
        for section, given in (("planner", planner), ("retrieval", params.get("retrieval")),
                               ("relabel", params.get("relabel"))):
            for key, value in (given or {}).items():
                if key not in names:  # a typo would otherwise quietly run the default
                    raise ValueError(f"params.yaml: {section}.{key} is not a setting of the planner (known: "
                                     f"{', '.join(sorted(KNOWN[section]))})")
                values[key] = value
        world = params.get("world") or {}
        for key in WORLD_DEFAULTS:
            if key in world:
                values[key] = world[key]
        values.update(overrides)
        return cls(**values)

    def capped(self, cap: int | None) -> PlannerConfig:
        """This configuration with episodes ending after `cap` sub-goals, when that comes before max_subgoals
        (None: unchanged); collect.max_subgoals and probe.reference_max_subgoals."""
        if cap is None or int(cap) >= self.max_subgoals:
            return self
        return dataclasses.replace(self, max_subgoals=int(cap))

    def as_dict(self) -> dict[str, Any]:
        """Return the configuration as plain JSON."""
        return dataclasses.asdict(self)
