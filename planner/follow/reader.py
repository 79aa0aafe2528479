"""The follower: an LLM-free reader of a pool. At a live situation it finds the pool situations nearest to it, votes on
their next steps (in roles), and instantiates the winners with the live classes, keeping those in the legal set.

- Neighbours (`retrieval.follow_similarity`): the pool situations with the same `Situation.key()` (an exact match)
  first; then those nearest by `suffix`: the most of, in order, the same task type, the same argument roles, the
  same held role and states, and the longest common suffix of recent steps. Every situation of a level votes once;
  a level none of whose steps is legal here gives way to the next.
- Ties among steps with as many votes (`retrieval.follow_tie`): `pool_order`, the step whose first vote comes first
  in the pool's order (gt, then hindsight and corrections, as the pool files hold them); `alphabetical`.
- No level's vote instantiates to a legal sub-goal (an empty pool, or nothing that applies): the fallback
  (`retrieval.follow_fallback`): `random`, a legal option other than Stop, seeded by the seed and the situation; the
  decision says so (`how: fallback`).
Deterministic, no LLM call; milliseconds a decision.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from planner.follow.situation import Advice, Live, Situation, SituationError, instantiate, pool_situations
from pools.records import Correction, Sample

SIMILARITIES = ("suffix",)
TIES = ("pool_order", "alphabetical")
FALLBACKS = ("random",)
HOW = ("exact", "nearest", "fallback")  # how a decision was reached (recorded with the pick)


def _suffix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def nearness(pool: Situation, live: Situation) -> tuple[int, ...]:
    """`suffix` similarity: same task type, same argument roles, same held role and states, common recent suffix."""
    return (int(pool.task_type == live.task_type), int(pool.shape() == live.shape()),
            int((pool.held, pool.held_state) == (live.held, live.held_state)), _suffix(pool.recent, live.recent))


@dataclass(frozen=True)
class Followed:
    """A decision: the legal sub-goals the vote ranks, best first (the fallback's one pick when `how` is fallback),
    how it was reached, and the abstract steps with their votes."""

    picks: tuple[str, ...]
    how: str  # one of HOW
    votes: tuple[tuple[str, int], ...] = ()
    neighbours: int = 0


@dataclass
class Follower:
    """A pool read by situations (`situation.pool_situations`); `decide(live, legal)` ranks the legal sub-goals."""

    advice: Sequence[Advice]
    tie: str = "pool_order"
    fallback: str = "random"
    similarity: str = "suffix"
    seed: int = 0
    _exact: dict[tuple[Any, ...], list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for name, allowed in (("tie", TIES), ("fallback", FALLBACKS), ("similarity", SIMILARITIES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"retrieval.follow_{name}: expected one of {allowed}, got {getattr(self, name)!r}")
        for i, a in enumerate(self.advice):
            self._exact.setdefault(a.situation.key(), []).append(i)

    @classmethod
    def from_records(cls, records: Iterable[tuple[Sample | Correction, str]], window: int, **settings: Any
                     ) -> "Follower":
        """A follower over pool records, each with where it was read ('file:line', for the error of a record that
        cannot be abstracted); critic samples are not advice and are skipped."""
        advice: list[Advice] = []
        for record, where in records:
            if getattr(record, "kind", "") == "critic":
                continue
            advice += pool_situations(record, window, where)
        return cls(advice, **settings)

    def neighbours(self, live: Situation) -> list[tuple[list[int], str]]:
        """The advice that votes, level by level, nearest first: the exact matches ('exact'), then each level of
        nearness in turn ('nearest')."""
        levels: list[tuple[list[int], str]] = []
        exact = self._exact.get(live.key())
        if exact:
            levels.append((exact, "exact"))
        by_score: dict[tuple[int, ...], list[int]] = {}
        for i, a in enumerate(self.advice):
            by_score.setdefault(nearness(a.situation, live), []).append(i)
        levels += [(by_score[s], "nearest") for s in sorted(by_score, reverse=True)]
        return levels

    def vote(self, positions: Sequence[int]) -> list[tuple[str, int]]:
        """The abstract next steps of the voters with their votes, best first (ties by `tie`)."""
        counts = Counter(self.advice[i].next_step for i in positions)
        first: dict[str, int] = {}
        for i in positions:
            first.setdefault(self.advice[i].next_step, i)
        if self.tie == "pool_order":
            return sorted(counts.items(), key=lambda kv: (-kv[1], first[kv[0]]))
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def decide(self, live: Live, legal: Sequence[str]) -> Followed:
        """The legal sub-goals the vote of the nearest level ranks, best first: a level none of whose steps
        instantiates to a legal one gives way to the next; the fallback's pick when no level does."""
        for positions, how in self.neighbours(live.situation):
            votes = self.vote(positions)
            picks: list[str] = []
            for step, _ in votes:
                sg = instantiate(step, live, legal)
                if sg is not None and sg not in picks:
                    picks.append(sg)
            if picks:
                return Followed(tuple(picks), how, tuple(votes), len(positions))
        return Followed(self.fall_back(live, legal), "fallback")

    def fall_back(self, live: Live, legal: Sequence[str]) -> tuple[str, ...]:
        """`random`: one legal option other than Stop (Stop when it is the only one), seeded by the situation."""
        options = [o for o in legal if o != "Stop"] or list(legal)
        if not options:
            return ()
        rng = random.Random(f"{self.seed}:{live.situation.key()}:{sorted(legal)}")
        return (rng.choice(options),)


def follower_from_config(records: Iterable[tuple[Sample | Correction, str]], retrieval: Any, seed: int) -> Follower:
    """A follower over records with the settings of params.yaml's `retrieval.follow_*` (a RetrievalConfig)."""
    return Follower.from_records(records, retrieval.follow_window, tie=retrieval.follow_tie,
                                 fallback=retrieval.follow_fallback, similarity=retrieval.follow_similarity, seed=seed)


__all__ = ["Follower", "Followed", "SituationError", "follower_from_config", "nearness", "HOW"]
