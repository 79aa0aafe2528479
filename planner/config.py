"""Planner configuration, built by the flows from params.yaml's `world:`, `planner:`, `retrieval:`, `relabel:`."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from planner.deviations import SCAFFOLD_KEYS, check_scaffold, resolve
from planner.legal import NAV_TARGET_MODES
from planner.variants import Variant

# params.yaml holds every default, with its comment (the paper's value beside ours): a key absent from the params
# given takes the committed params.yaml's value. The scaffold's keys (planner.deviations, kind 'scaffold') read
# `auto` there and follow `scaffold`.
PARAMS_FILE = Path(__file__).resolve().parents[1] / "params.yaml"
SECTIONS = ("planner", "retrieval", "relabel")  # read whole; world's keys below
WORLD_KEYS = ("seed", "max_fails", "max_steps", "explore_budget", "backend", "alfworld_games")


@lru_cache(maxsize=1)
def committed_params() -> dict[str, Any]:
    """The committed params.yaml (the defaults)."""
    return yaml.safe_load(PARAMS_FILE.read_text(encoding="utf-8"))


def _default(section: str, key: str) -> Any:
    try:
        return committed_params()[section][key]
    except KeyError:
        raise KeyError(f"{PARAMS_FILE}: no {section}.{key}: every planner setting has its default there") from None


def _d(section: str, key: str) -> Any:
    """A dataclass field whose default is params.yaml's `section.key`."""
    value = _default(section, key)
    return field(default_factory=lambda: list(value)) if isinstance(value, list) else field(default=value)


# The values a mode key may take (a typo would otherwise quietly behave as one of them).
CHOICES: dict[str, tuple[str, ...]] = {
    "legal_scope": ("task", "all"), "nav_scope": ("task", "all"), "nav_targets": NAV_TARGET_MODES,
    "deep_proposals": ("all", "one"), "generator": ("belief", "llm"), "completion": ("stepwise", "line"),
}


@dataclass(frozen=True)
class PlannerConfig:
    """Everything the planner reads: one flat, frozen view of the params it is given (params.yaml's `planner`,
    `retrieval` and `relabel` sections and some of `world`); a key absent there takes the committed default."""

    variant: str = "hindsight"  # the name of the variant being run (planner.variants); set by from_params
    scaffold: str = _d("planner", "scaffold")
    beam: int = _d("planner", "beam")
    width: int = _d("planner", "width")
    depth: int = _d("planner", "depth")
    generator: str = _d("planner", "generator")
    reuse_plans: bool = _d("planner", "reuse_plans")
    plan_steps: int = _d("planner", "plan_steps")
    max_subgoals: int = _d("planner", "max_subgoals")
    max_repeat_fails: int = _d("planner", "max_repeat_fails")
    max_idle: int = _d("planner", "max_idle")
    avoid_repeats: Any = _d("planner", "avoid_repeats")  # auto: follows scaffold
    avoid_tried: Any = _d("planner", "avoid_tried")  # auto: follows scaffold
    retry_samples: int = _d("planner", "retry_samples")
    adapter_every_step: bool = _d("planner", "adapter_every_step")
    actor_tokens: int = _d("planner", "actor_tokens")
    adapter_tokens: int = _d("planner", "adapter_tokens")
    critic_tokens: int = _d("planner", "critic_tokens")
    legal_actions: bool = _d("planner", "legal_actions")
    nav_targets: str = _d("planner", "nav_targets")
    deep_proposals: str = _d("planner", "deep_proposals")
    legal_scope: Any = _d("planner", "legal_scope")  # auto: follows scaffold
    nav_scope: Any = _d("planner", "nav_scope")  # auto: follows scaffold
    goal_gate: Any = _d("planner", "goal_gate")  # auto: follows scaffold
    allow_stop: Any = _d("planner", "allow_stop")  # auto: follows scaffold
    adapter_observes: bool = _d("planner", "adapter_observes")
    adapter_options: Any = _d("planner", "adapter_options")  # auto: follows scaffold
    adapter_min_share: float = _d("planner", "adapter_min_share")
    adapter_order: str = _d("planner", "adapter_order")
    adapter_container_with: Any = _d("planner", "adapter_container_with")  # auto: follows scaffold
    adapter_lamp_word: Any = _d("planner", "adapter_lamp_word")  # auto: follows scaffold
    adapter_slice_word: Any = _d("planner", "adapter_slice_word")  # auto: follows scaffold
    adapter_drop_absent: Any = _d("planner", "adapter_drop_absent")  # auto: follows scaffold
    adapter_drop_sibling: Any = _d("planner", "adapter_drop_sibling")  # auto: follows scaffold
    k: int = _d("retrieval", "k")
    map_threshold: float = _d("retrieval", "map_threshold")
    adapter_k: int = _d("retrieval", "adapter_k")
    prompt_tokens: int = _d("retrieval", "prompt_tokens")
    think_tokens: int = _d("relabel", "think_tokens")
    complete_steps: int = _d("relabel", "complete_steps")
    complete_tokens: int = _d("relabel", "complete_tokens")
    keep_unverified: bool = _d("relabel", "keep_unverified")
    show_expert: bool = _d("relabel", "show_expert")
    repair_rounds: int = _d("relabel", "repair_rounds")
    collapse_repeats: bool = _d("relabel", "collapse_repeats")
    repair_temperature: float = _d("relabel", "repair_temperature")
    completion: str = _d("relabel", "completion")
    complete_classes: str = _d("relabel", "complete_classes")
    complete_guide: str = _d("relabel", "complete_guide")
    critic_outcome: bool = _d("relabel", "critic_outcome")
    critic_examples: int = _d("relabel", "critic_examples")
    seed: int = _d("world", "seed")
    max_fails: int = _d("world", "max_fails")
    max_steps: int = _d("world", "max_steps")
    explore_budget: int = _d("world", "explore_budget")
    backend: str = _d("world", "backend")  # household | alfworld (household.backends.open_env)
    alfworld_games: str = _d("world", "alfworld_games")  # the ALFWorld games folder (alfworld backend)

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
            unknown = sorted(set(variant.planner) - set(committed_params()["planner"]))
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
                                     f"{', '.join(sorted(committed_params()[section]))})")
                values[key] = value
        world = params.get("world") or {}
        for key in WORLD_KEYS:
            if key in world:
                values[key] = world[key]
        values.update(overrides)
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """Return the configuration as plain JSON."""
        return dataclasses.asdict(self)
