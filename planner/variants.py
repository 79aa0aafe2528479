"""Planner variants (the method, its ablations, baselines, and either under the paper's planner or the scaffold) as
data: a variant is a definition in params.yaml's `evaluate.variants` (or `collect.variant`), read by `Variant.parse`.

    hindsight: {actors: [gt, hind], critic: critic, adapter: true, search: beam, pool: hindsight,
                planner: {scaffold: none}}

`actors`: the example pools of the actors, in order (`gt` -> Actor_gt, `hind` -> Actor_hind; `follow` -> the
follower over gt and the hindsight pool, `follow_gt` -> the follower over gt alone: planner/follow, no LLM, it needs
`adapter: true`; without a critic its own top pick is executed); `critic`: the critic's
examples (`critic` = gt + hindsight critic samples, `critic_gt` = expert prefixes only, `none`); `adapter`: whether
an adapter predicts the arguments; `search`: `beam` (alg. 2), `replan` (LLM-Planner: execute a written plan, replan
after a failure), `expert` (the upper bound: the expert's plan, no LLM) or `react` (the ReAct baseline on ALFWorld's
engine: its published prompts, no pool; planner.loop.react); `pool`: the pool files it reads, `gt`
(data/pools/gt.jsonl), `hindsight` (that and data/pools/hindsight.jsonl) or `hindsight_corrections` (gt and the
hindsight pool with the expert's corrections, stage pool_corrections): dvc.yaml's foreach declares that file,
so a variant reruns only when a pool it reads changes (DVC cannot derive a dependency list from the other keys; the
value is checked against them, and the expert and ReAct, which read none, name `gt`); `planner`: overrides of
params.yaml's `planner:` keys for this variant (e.g. `scaffold: full`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

POOLS = ("gt", "hind", "follow", "follow_gt")
FOLLOWERS = ("follow", "follow_gt")  # LLM-free actors: the follower over gt + hindsight, over gt alone
CRITIC_POOLS = ("critic", "critic_gt", "none")
SEARCHES = ("beam", "replan", "expert", "react")
NO_ACTORS = ("expert", "react")  # searches that read no example pool (they name `gt`)
POOL_FILES = ("gt", "hindsight", "hindsight_corrections")
HINDSIGHT_FILES = POOL_FILES[1:]  # the files a variant that reads hindsight examples may name
KEYS = ("actors", "critic", "adapter", "search", "pool", "planner")


@dataclass(frozen=True)
class Variant:
    """What a variant uses: which actor pools, which critic examples, the adapter, how it decides, and its planner."""

    name: str
    actors: tuple[str, ...]  # example pools of the actors, in order: 'gt' -> actor_gt, 'hind' -> actor_hind
    critic_pool: str  # 'critic' (gt + hindsight critic samples), 'critic_gt' (expert prefixes only), '' (none)
    adapter: bool
    search: str  # 'beam' (alg. 2), 'replan' (LLM-Planner), 'expert', 'react' (the ReAct baseline)
    planner: Mapping[str, Any] = field(default_factory=dict)  # overrides of params.yaml's planner keys
    hindsight_file: str = "hindsight"  # the hindsight pool it reads, among HINDSIGHT_FILES

    @classmethod
    def parse(cls, name: str, definition: Any, where: str = "evaluate.variants") -> "Variant":
        """A variant from its params definition; an unknown key or a bad value is an error naming it."""
        at = f"params.yaml: {where}.{name}"
        if not isinstance(definition, Mapping):
            raise ValueError(f"{at}: expected a mapping with keys {', '.join(KEYS)}, got {definition!r}")
        unknown = sorted(set(definition) - set(KEYS))
        if unknown:
            raise ValueError(f"{at}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
        search = definition.get("search", "beam")
        if search not in SEARCHES:
            raise ValueError(f"{at}.search: expected one of {SEARCHES}, got {search!r}")
        actors = tuple(definition.get("actors") or ())
        bad = [a for a in actors if a not in POOLS]
        if bad:
            raise ValueError(f"{at}.actors: expected pools among {POOLS}, got {bad[0]!r}")
        if search not in NO_ACTORS and not actors:
            raise ValueError(f"{at}.actors: a '{search}' variant needs at least one actor pool")
        if set(actors) & set(FOLLOWERS) and (search != "beam" or definition.get("adapter") is not True):
            raise ValueError(f"{at}: a follower actor ({', '.join(FOLLOWERS)}) reads the adapter's arguments at "
                             "every step of the beam search: set search: beam and adapter: true")
        critic = definition.get("critic", "none")
        if critic not in CRITIC_POOLS:
            raise ValueError(f"{at}.critic: expected one of {CRITIC_POOLS}, got {critic!r}")
        adapter = definition.get("adapter", False)
        if not isinstance(adapter, bool):
            raise ValueError(f"{at}.adapter: expected true or false, got {adapter!r}")
        planner = definition.get("planner") or {}
        if not isinstance(planner, Mapping):
            raise ValueError(f"{at}.planner: expected a mapping of planner keys, got {planner!r}")
        pool = definition.get("pool")
        if pool not in POOL_FILES:
            raise ValueError(f"{at}.pool: expected one of {POOL_FILES} (the pools it reads), got {pool!r}")
        out = cls(name, actors, "" if critic == "none" else critic, adapter, search, dict(planner),
                  pool if pool in HINDSIGHT_FILES else "hindsight")
        if pool != out.pool_file():
            wanted = " or ".join(HINDSIGHT_FILES) if out.reads_hindsight() else out.pool_file()
            raise ValueError(f"{at}.pool: {pool!r}, but its actors {list(actors)} and critic {critic!r} read "
                             f"{out.pool_file()!r}: set pool: {wanted}")
        return out

    def reads_hindsight(self) -> bool:
        """Whether the variant reads the hindsight pool (an actor over it, or the critic's hindsight samples)."""
        return "hind" in self.actors or "follow" in self.actors or self.critic_pool == "critic"

    def follows_only(self) -> bool:
        """Whether its only actors are followers (no LLM proposes)."""
        return bool(self.actors) and all(a in FOLLOWERS for a in self.actors)

    def pool_file(self) -> str:
        """The newest pool file it reads, as its definition's `pool` names it."""
        return self.hindsight_file if self.reads_hindsight() else "gt"

    def definition(self) -> dict[str, Any]:
        """The params form of the variant (what `parse` reads)."""
        return {"actors": list(self.actors), "critic": self.critic_pool or "none", "adapter": self.adapter,
                "search": self.search, "pool": self.pool_file(),
                **({"planner": dict(self.planner)} if self.planner else {})}


# The paper's variants (its ablations) under the planner that params.yaml's `planner:` section describes, for code
# that names a variant without a definition of its own (tests, `hindsight episode`, benchmarks' defaults).
PRESETS: dict[str, dict[str, Any]] = {
    "hindsight": {"actors": ["gt", "hind"], "critic": "critic", "adapter": True, "search": "beam", "pool": "hindsight"},
    "no_hindsight": {"actors": ["gt"], "critic": "critic_gt", "adapter": True, "search": "beam", "pool": "gt"},
    "no_adapter": {"actors": ["gt", "hind"], "critic": "critic", "adapter": False, "search": "beam",
                   "pool": "hindsight"},
    "llm_planner": {"actors": ["gt"], "critic": "none", "adapter": False, "search": "replan", "pool": "gt"},
    "expert": {"search": "expert", "pool": "gt"},
    "react": {"search": "react", "pool": "gt"},
    # The follower (planner/follow, no LLM) as the actor: its own pick executed, or the critic choosing; over gt and
    # the hindsight pool, or gt alone; beside both LLM actors (W = 3: one proposal each). profiles/follow.yaml.
    "follow": {"actors": ["follow"], "critic": "none", "adapter": True, "search": "beam", "pool": "hindsight"},
    "follow_critic": {"actors": ["follow"], "critic": "critic", "adapter": True, "search": "beam",
                      "pool": "hindsight"},
    "follow_gt": {"actors": ["follow_gt"], "critic": "none", "adapter": True, "search": "beam", "pool": "gt"},
    "follow_gt_critic": {"actors": ["follow_gt"], "critic": "critic_gt", "adapter": True, "search": "beam",
                         "pool": "gt"},
    "follow_llm": {"actors": ["gt", "hind", "follow"], "critic": "critic", "adapter": True, "search": "beam",
                   "pool": "hindsight", "planner": {"width": 3}},
}


def variant_definitions(params: Mapping[str, Any]) -> dict[str, Any]:
    """`evaluate.variants` as a name -> definition mapping (an error naming the key when it is not one)."""
    defs = (params.get("evaluate") or {}).get("variants") or {}
    if not isinstance(defs, Mapping):
        raise ValueError("params.yaml: evaluate.variants must map each variant's name to its definition "
                         f"(e.g. hindsight: {PRESETS['hindsight']}), not {defs!r}")
    return dict(defs)


def get_variant(name: str | Variant, params: Mapping[str, Any] | None = None) -> Variant:
    """A variant by name: its definition in `params`' evaluate.variants when there, else the paper's preset."""
    if isinstance(name, Variant):
        return name
    defs = variant_definitions(params) if params else {}
    if name in defs:
        return Variant.parse(name, defs[name])
    if name in PRESETS:
        return Variant.parse(name, PRESETS[name], where="presets")
    known = sorted(set(defs) | set(PRESETS))
    raise ValueError(f"unknown planner variant {name!r}; expected one of {', '.join(known)}")


PRACTICE = "practice"  # the name practice rollouts carry (params collect.variant defines their planner)


def practice_variant(params: Mapping[str, Any]) -> Variant:
    """The planner of the practice runs: params `collect.variant`, a definition as in evaluate.variants."""
    definition = (params.get("collect") or {}).get("variant")
    return Variant.parse(PRACTICE, definition if definition is not None else PRESETS["hindsight"], where="collect")


def scaffold_from(params: Mapping[str, Any]) -> int | None:
    """Params `collect.scaffold_from`: practice runs past this many per task type are made under the scaffold (a
    curve point the paper's planner cannot fit in time); None = every run by collect.variant (the paper)."""
    value = (params.get("collect") or {}).get("scaffold_from")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"params.yaml: collect.scaffold_from: expected null or a whole number >= 0 (practice runs "
                         f"per task type made by collect.variant before the scaffold takes over), got {value!r}")
    return value


def under_scaffold(variant: Variant) -> Variant:
    """The same variant with the scaffold's rules on (planner.scaffold: full)."""
    return replace(variant, planner={**variant.planner, "scaffold": "full"})
