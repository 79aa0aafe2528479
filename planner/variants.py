"""Planner variants (the method, its ablations and baselines) as named settings of one planner."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """What a variant uses: which actor pools, which critic examples, the adapter, and how it decides."""

    name: str
    actors: tuple[str, ...]  # example pools of the actors, in order: 'gt' -> actor_gt, 'hind' -> actor_hind
    critic_pool: str  # 'critic' (gt + hindsight critic samples), 'critic_gt' (expert prefixes only), '' (none)
    adapter: bool
    search: str  # 'beam' (alg. 2), 'replan' (LLM-Planner: execute a written plan, replan after a failure), 'expert'


VARIANTS: dict[str, Variant] = {
    "hindsight": Variant("hindsight", ("gt", "hind"), "critic", True, "beam"),
    "no_hindsight": Variant("no_hindsight", ("gt",), "critic_gt", True, "beam"),
    "no_adapter": Variant("no_adapter", ("gt", "hind"), "critic", False, "beam"),
    "llm_planner": Variant("llm_planner", ("gt",), "", False, "replan"),
    "expert": Variant("expert", (), "", False, "expert"),
}


def get_variant(name: str) -> Variant:
    """Return a variant by name; unknown names are an error listing the known ones."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown planner variant {name!r}; expected one of {', '.join(VARIANTS)}") from None
