"""Beam search over imagined rollouts (the paper's alg. 2), with actors, generator and critic injected as callables.

Interpretation of the paper's "depth and width of 2": U+1 expansion depths (U=1 -> rollouts of 2 sub-goals),
W proposals per expansion split between the actors, B rollouts kept per depth. Two cost rules that do not change
the returned action: the critic is called only when there is a choice to make (more than B rollouts to prune, or
more than one distinct first action at the last depth), and the search stops early once every rollout starts with
the same sub-goal (the answer is then forced).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Sequence

from planner.search.generator import Belief

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Node:
    """An imagined rollout: sub-goals from the real state, the believed state after them, and who proposed it."""

    actions: tuple[str, ...]
    state: Belief
    proposer: str = ""
    value: float | None = None


@dataclass(frozen=True)
class BeamResult:
    """The chosen sub-goal, the candidates' first actions with their best values, and the final rollouts."""

    action: str | None
    candidates: list[dict] = field(default_factory=list)
    rollouts: list[Node] = field(default_factory=list)
    forced: bool = False  # the decision needed no critic call
    critic_calls: int = 0


# proposer(node, n) -> up to n sub-goals for the node's state; its name is used in records
Proposer = Callable[[Node, int], list[str]]
Scorer = Callable[[list[Node]], list[float | None]]
NextState = Callable[[Belief, str], Belief]


def split_width(width: int, n_actors: int) -> list[int]:
    """Split W proposals between the actors as evenly as possible (earlier actors get the remainder)."""
    base, extra = divmod(max(width, 0), max(n_actors, 1))
    return [base + (1 if i < extra else 0) for i in range(n_actors)]


def _rank(nodes: list[Node]) -> list[Node]:
    # Stable sort: ties keep proposal order (actor_gt before actor_hind), unscored last.
    return sorted(nodes, key=lambda n: -(n.value if n.value is not None else float("-inf")))


def _candidates(nodes: list[Node]) -> list[dict]:
    best: dict[str, float | None] = {}
    by: dict[str, str] = {}  # who proposed the first action (the first rollout that starts with it)
    for n in nodes:
        first = n.actions[0]
        by.setdefault(first, n.proposer)
        if first not in best or (n.value is not None and (best[first] is None or n.value > best[first])):
            best[first] = n.value
    return [{"subgoal": a, "value": v, "proposer": by[a]} for a, v in best.items()]


def beam_search(root: Belief, proposers: Sequence[tuple[str, Proposer]], next_state: NextState, score: Scorer,
                *, beam: int = 2, width: int = 2, depth: int = 1) -> BeamResult:
    """Return the first action of the best-valued rollout after depth+1 expansions (B kept per depth)."""
    counts = split_width(width, len(proposers))
    frontier = [Node((), root)]
    seen_all: list[Node] = []
    critic_calls = 0
    for d in range(depth + 1):
        children: list[Node] = []
        keys: set[tuple[str, ...]] = set()
        for node in frontier:
            if node.state.stopped and node.actions not in keys:  # a rollout that ended with Stop is carried
                keys.add(node.actions)
                children.append(Node(node.actions, node.state, node.proposer))
        # Actor-major order: one actor's calls run back to back, so the server's prefix cache (examples) is reused.
        for (name, propose), n in zip(proposers, counts):
            if n <= 0:
                continue
            for node in frontier:
                if node.state.stopped:
                    continue
                for action in propose(node, n)[:n]:
                    key = node.actions + (action,)
                    if key in keys:
                        continue
                    keys.add(key)
                    children.append(Node(key, next_state(node.state, action), node.proposer or name))
        if not children:
            break
        seen_all = children
        firsts = {c.actions[0] for c in children}
        if len(firsts) == 1:  # every rollout starts the same way: the answer is forced
            return BeamResult(children[0].actions[0], _candidates(children), children, True, critic_calls)
        if len(children) > beam or d == depth:
            values = score(children)
            critic_calls += 1
            children = _rank([Node(c.actions, c.state, c.proposer, v) for c, v in zip(children, values)])
        seen_all = children
        frontier = children[:beam]
    if not frontier or not frontier[0].actions:
        return BeamResult(None, [], [], False, critic_calls)
    best = _rank(frontier)[0]
    return BeamResult(best.actions[0], _candidates(seen_all), seen_all, False, critic_calls)
