"""What each agent is, as README, docs/results.md and the report name its rows: ReAct in its published setting (the
ReAct row), ReAct with our constrained re-ask (a named variant), the paper's planner, the scaffold (a hand-written
procedure per task type around the 1.5B model's argument prediction), the follower, the expert.

May import: planner.variants.
"""
from __future__ import annotations

from typing import Any, Mapping

from planner.variants import FOLLOWERS, Variant

# kind -> the name its rows carry, in the order the rows are listed (ReAct as published first).
AGENTS: dict[str, str] = {
    "react_published": "ReAct (ReAct's setting)",  # planner.react_actions: free: a refused command gets 'Nothing
    # happens.', as ReAct's alfworld.ipynb plays
    "react_reask": "ReAct + constrained re-ask (ours)",  # planner.react_actions: admissible
    "paper": "the paper's planner",  # planner.scaffold: none: the LLM chooses every sub-goal among the legal ones
    "llm_planner": "LLM-Planner (re-planning, the paper's baseline)",  # search: replan
    "scaffold": "the scaffold: hand-written procedure + 1.5B argument predictor",  # planner.scaffold: full
    "follow": "the follower: an LLM-free reader of a pool",  # planner/follow as the only actor
    "paper_follow": "the paper's planner beside the follower",  # LLM actors and the follower proposing
    "scaffold_follow": "the scaffold beside the follower",
    "expert": "the expert",
}


def agent_kind(variant: Variant, planner: Mapping[str, Any] | None = None) -> str:
    """The kind of agent `variant` is (a key of AGENTS), under a params `planner:` section (`planner`) with the
    variant's own overrides. A key neither sets reads as params.yaml's default (scaffold: none, react_actions:
    admissible); the report stage imports this module alone, not the planner's config."""
    keys = {**(planner or {}), **variant.planner}
    if variant.search == "react":
        return "react_published" if keys.get("react_actions") == "free" else "react_reask"
    if variant.search == "expert":
        return "expert"
    if variant.search == "replan":
        return "llm_planner"
    if variant.follows_only():
        return "follow"
    base = "paper" if keys.get("scaffold", "none") == "none" else "scaffold"
    return f"{base}_follow" if set(variant.actors) & set(FOLLOWERS) else base


def agent_name(kind: str) -> str:
    """The name of an agent kind (the kind itself when it is none of AGENTS)."""
    return AGENTS.get(kind, kind)


def agent_order(kind: str) -> int:
    """Where rows of this kind are listed: AGENTS' order, unknown kinds last."""
    return list(AGENTS).index(kind) if kind in AGENTS else len(AGENTS)
