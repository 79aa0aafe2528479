"""Planner configuration, built by the flows from params.yaml's `world:`, `planner:`, `retrieval:`, `relabel:`.

`PlannerConfig` holds `variant`, `scaffold` and one frozen part per concern: `search`, `episode`, `legal` and
`adapter` (params.yaml's flat `planner:` section, split by concern), `retrieval`, `relabel` and `world` (those
sections). A part's fields are params.yaml's key names (`cfg.search.beam` is `planner.beam`, `cfg.retrieval.k` is
`retrieval.k`, `cfg.world.seed` is `world.seed`); build one with `PlannerConfig.from_params(params, variant,
**overrides)`, where an override is a flat key name routed to its part.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, TypeVar

import yaml

from planner.scaffold.deviations import SCAFFOLD_KEYS, check_scaffold, resolve
from planner.scaffold.legal import NAV_TARGET_MODES
from planner.variants import Variant

# The defaults of keys absent from the params given are params.yaml's own values (it carries each key's comment, the
# paper's value beside ours), read once, here, from the params.yaml committed beside this code: one source per fact.
# That is safe for DVC: a stage passes from_params only the keys its dvc.yaml entry declares (flows.runtime.params.
# StageParams holds those, read from dvc.yaml by flows.runtime.declared, and raises on a read of any other), which
# DVC tracks; a default fills only a key the stage does not declare, which its code must not use, so a change to it
# cannot change the stage's output. StageParams cannot see a read through a default: a stage whose code comes to use
# a key must declare it (and pass it). The scaffold's keys (planner.scaffold.deviations, kind 'scaffold') read `auto`
# there and follow `scaffold`.
PARAMS_YAML = Path(__file__).resolve().parents[1] / "params.yaml"
DEFAULT_PARAMS: dict[str, Any] = yaml.safe_load(PARAMS_YAML.read_text(encoding="utf-8"))

# The values a mode key may take (a typo would otherwise quietly behave as one of them).
CHOICES: dict[str, tuple[str, ...]] = {
    "legal_scope": ("task", "all"), "nav_scope": ("task", "all"), "nav_targets": NAV_TARGET_MODES,
    "deep_proposals": ("all", "one"), "generator": ("belief", "llm"), "completion": ("stepwise", "line"),
    "unit": ("task", "step"),
    "completer": ("llm", "expert"),
    "alfworld_goal": ("annotation", "templated"), "alfworld_view": ("text", "scene"),
    "react_actions": ("admissible", "free"),
    "decide": ("generate", "score"), "score_norm": ("sum", "mean"),
    "follow_similarity": ("suffix",), "follow_tie": ("pool_order", "alphabetical"), "follow_fallback": ("random",),
}

P = TypeVar("P", bound="Part")


class Part:
    """A frozen part of the configuration: some keys of one params.yaml section (`SECTION`), each field named as its
    key and defaulting to params.yaml's value. Built with a key it does not hold, it raises a ValueError naming it."""

    SECTION: ClassVar[str]

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The params keys this part holds, in its order."""
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]


def _part(section: str) -> Callable[[type[P]], type[P]]:
    """Make `cls` a frozen dataclass over keys of params.yaml's `section`, with params.yaml's values as defaults."""
    def make(cls: type[P]) -> type[P]:
        given = DEFAULT_PARAMS.get(section) or {}
        for name in cls.__annotations__:
            if name not in given:
                raise ValueError(f"{PARAMS_YAML}: no key {section}.{name}, the default of {cls.__name__}.{name}")
            setattr(cls, name, given[name])
        cls.SECTION = section
        part = dataclass(frozen=True)(cls)
        init, known = part.__init__, part.keys()

        @functools.wraps(init)
        def checked(self: P, *args: Any, **values: Any) -> None:
            unknown = [key for key in values if key not in known]
            if unknown:  # a typo would otherwise be a TypeError without the keys it could have meant
                raise ValueError(f"{part.__name__}: {unknown[0]!r} is not a key it holds (params.yaml's {section} "
                                 f"section; its keys: {', '.join(known)})")
            init(self, *args, **values)

        part.__init__ = checked  # type: ignore[method-assign]
        return part
    return make


@_part("planner")
class SearchConfig(Part):
    """How a step is chosen: the beam search, its proposals and the calls' token caps."""

    beam: int
    width: int
    depth: int
    generator: str
    reuse_plans: bool
    plan_steps: int
    deep_proposals: str
    actor_tokens: int
    critic_tokens: int
    decide: str
    score_norm: str


@_part("planner")
class EpisodeConfig(Part):
    """When an episode ends, and which proposals it keeps from being repeated."""

    max_subgoals: int
    max_repeat_fails: int
    max_idle: int
    avoid_repeats: Any  # a scaffold key: `auto` follows `scaffold`
    avoid_tried: Any  # a scaffold key
    retry_samples: int


@_part("planner")
class LegalConfig(Part):
    """Which sub-goals are legal answers."""

    legal_actions: bool
    nav_targets: str
    legal_scope: Any  # a scaffold key
    nav_scope: Any  # a scaffold key
    goal_gate: Any  # a scaffold key
    allow_stop: Any  # a scaffold key


@_part("planner")
class AdapterConfig(Part):
    """The adapter that predicts the task's arguments."""

    adapter_every_step: bool
    adapter_tokens: int
    adapter_observes: bool
    adapter_options: Any  # a scaffold key
    adapter_min_share: float
    adapter_order: str
    adapter_container_with: Any  # a scaffold key
    adapter_lamp_word: Any  # a scaffold key
    adapter_slice_word: Any  # a scaffold key
    adapter_drop_absent: Any  # a scaffold key
    adapter_drop_sibling: Any  # a scaffold key


@_part("planner")
class ReactConfig(Part):
    """The ReAct baseline (a variant with `search: react`): its published prompts and how its actions are read."""

    react_prompts: str
    react_actions: str
    react_tokens: int


@_part("retrieval")
class RetrievalConfig(Part):
    """params.yaml's `retrieval:`: the examples a prompt shows."""

    k: int
    map_threshold: float
    adapter_k: int
    prompt_tokens: int
    unit: str  # task: kNN over the instruction, whole plans shown; step: windows by situation
    window: int
    follow_window: int  # the follower (planner/follow): recent steps a situation shows
    follow_similarity: str
    follow_tie: str
    follow_fallback: str


@_part("relabel")
class RelabelConfig(Part):
    """params.yaml's `relabel:`: reflect, complete and critic-sample calls."""

    think_tokens: int
    complete_steps: int
    complete_tokens: int
    keep_unverified: bool
    show_expert: bool
    repair_rounds: int
    collapse_repeats: bool
    trim_loops: bool
    pool_clean: bool
    repair_temperature: float
    completion: str
    complete_classes: str
    complete_guide: str
    completer: str
    corrections: bool
    critic_outcome: bool
    critic_examples: int


@_part("world")
class WorldConfig(Part):
    """The keys of params.yaml's `world:` an episode's world is opened with (household.backends.open_env)."""

    seed: int
    max_fails: int
    max_steps: int
    explore_budget: int
    backend: str
    alfworld_games: str
    alfworld_goal: str
    alfworld_view: str
    max_actions: int


def _check_flat(keys: Mapping[str, Any]) -> None:
    """Raise a ValueError naming the first key that is neither a part's params key nor `variant` / `scaffold`."""
    for key in keys:
        if key not in TOP and key not in ROUTE:
            raise ValueError(f"PlannerConfig: {key!r} is not a params key of the planner (known: "
                             f"{', '.join(sorted([*TOP, *ROUTE]))})")


@dataclass(frozen=True)
class PlannerConfig:
    """Everything the planner reads: a frozen view of the params it is given (params.yaml's `planner`, `retrieval`
    and `relabel` sections and some of `world`), one part per concern; a key absent there takes params.yaml's value."""

    variant: str = "hindsight"  # the name of the variant being run (planner.variants); set by from_params
    scaffold: str = DEFAULT_PARAMS["planner"]["scaffold"]
    search: SearchConfig = field(default_factory=SearchConfig)
    episode: EpisodeConfig = field(default_factory=EpisodeConfig)
    legal: LegalConfig = field(default_factory=LegalConfig)
    adapter: AdapterConfig = field(default_factory=AdapterConfig)
    react: ReactConfig = field(default_factory=ReactConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    relabel: RelabelConfig = field(default_factory=RelabelConfig)
    world: WorldConfig = field(default_factory=WorldConfig)

    def __post_init__(self) -> None:
        check_scaffold(self.scaffold)
        for name, part in PARTS.items():
            if not isinstance(getattr(self, name), part):
                raise TypeError(f"PlannerConfig.{name} must be a {part.__name__}, not {getattr(self, name)!r}")
        flat = self.as_dict()
        resolved = resolve({k: flat[k] for k in SCAFFOLD_KEYS}, self.scaffold)
        for name in PARTS:  # frozen: the resolved values are set once, here
            mine = {k: resolved[k] for k in getattr(self, name).keys() if k in resolved}
            if mine:
                object.__setattr__(self, name, dataclasses.replace(getattr(self, name), **mine))
                flat.update(mine)
        for key, allowed in CHOICES.items():
            if flat[key] not in allowed:
                raise ValueError(f"params.yaml: {key} must be one of {allowed}, not {flat[key]!r}")
        if not isinstance(flat["window"], int) or flat["window"] < 1:
            raise ValueError(f"params.yaml: retrieval.window must be a whole number of steps >= 1, not "
                             f"{flat['window']!r}")
        if self.world.backend != "alfworld" and (self.world.alfworld_goal != "annotation" or self.world.max_actions):
            raise ValueError("params.yaml: world.alfworld_goal: templated and world.max_actions > 0 are ALFWorld's "
                             "protocol: they need world.backend: alfworld")
        if flat["decide"] == "score" and not flat["legal_actions"]:
            raise ValueError("params.yaml: planner.decide: score ranks the legal sub-goals; it needs "
                             "planner.legal_actions: true")

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None = None, variant: Variant | str | None = None,
                    **overrides: Any) -> "PlannerConfig":
        """Build from a params dict (whole params.yaml or just some sections; None: params.yaml's defaults); a
        `Variant`'s planner overrides apply over the `planner:` section; keyword overrides (flat params key names,
        `variant` and `scaffold`) win over both. An unknown key is a ValueError that names it."""
        params = params or {}
        values: dict[str, Any] = {}
        planner = dict(params.get("planner") or {})
        if isinstance(variant, Variant):
            unknown = sorted(set(variant.planner) - KNOWN["planner"])
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
                if key not in KNOWN[section]:  # a typo would otherwise quietly run the default
                    raise ValueError(f"params.yaml: {section}.{key} is not a setting of the planner (known: "
                                     f"{', '.join(sorted(KNOWN[section]))})")
                values[key] = value
        world = params.get("world") or {}  # read key by key: the section holds keys the planner does not read
        for key in WorldConfig.keys():
            if key in world:
                values[key] = world[key]
        _check_flat(overrides)
        values.update(overrides)
        return cls(**{k: v for k, v in values.items() if k in TOP},
                   **{name: part(**{k: v for k, v in values.items() if ROUTE.get(k) == name})
                      for name, part in PARTS.items()})

    def replace(self, **changes: Any) -> "PlannerConfig":
        """This configuration with some keys changed (flat params key names, routed to their parts; `variant`,
        `scaffold`); scaffold keys already resolved keep their values."""
        _check_flat(changes)
        parts = {name: dataclasses.replace(getattr(self, name), **{k: v for k, v in changes.items()
                                                                  if ROUTE.get(k) == name})
                 for name in {ROUTE[k] for k in changes if k in ROUTE}}
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if k in TOP}, **parts)

    def capped(self, cap: int | None) -> PlannerConfig:
        """This configuration with episodes ending after `cap` sub-goals, when that comes before max_subgoals
        (None: unchanged); collect.max_subgoals and probe.reference_max_subgoals."""
        if cap is None or int(cap) >= self.episode.max_subgoals:
            return self
        return self.replace(max_subgoals=int(cap))

    def as_dict(self) -> dict[str, Any]:
        """Return the configuration as plain JSON: one flat dict of params key names (`variant`, `scaffold`, then each
        part's keys in its order)."""
        flat: dict[str, Any] = {k: getattr(self, k) for k in TOP}
        for name in PARTS:
            flat.update(dataclasses.asdict(getattr(self, name)))
        return flat


# The parts, by field of PlannerConfig, and which part holds each params key (from the parts' own fields: each key is
# written once, in its part).
PARTS: dict[str, type[Part]] = {f.name: f.default_factory for f in dataclasses.fields(PlannerConfig)  # type: ignore
                                if f.default_factory is not dataclasses.MISSING}
TOP: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(PlannerConfig) if f.name not in PARTS)


def _routes() -> dict[str, str]:
    """params key -> the field of PlannerConfig whose part holds it; a key in two parts is an error."""
    route: dict[str, str] = {}
    for name, part in PARTS.items():
        for key in part.keys():
            if key in route or key in TOP:
                raise ValueError(f"planner.config: key {key!r} is in two parts ({route.get(key, 'PlannerConfig')}, "
                                 f"{name})")
            route[key] = name
    return route


ROUTE: dict[str, str] = _routes()
# The keys each read-whole section may hold (world's is read key by key: WorldConfig.keys()).
SECTIONS = ("planner", "retrieval", "relabel")
KNOWN: dict[str, set[str]] = {section: {k for k, name in ROUTE.items() if PARTS[name].SECTION == section}
                              for section in SECTIONS}
KNOWN["planner"].add("scaffold")
