"""The follower as an actor: it proposes the follower's top legal sub-goals (planner/follow) at a node, real or
imagined, so that a variant can use it beside or instead of the LLM actors; the beam search and the critic are
unchanged. No LLM call. Its situation is the real trace (failed steps with the world's reason) then the node's
imagined steps, read with the arguments the adapter predicted; it needs the legal set (planner.legal_actions) and an
adapter (the variant's `adapter: true`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from planner.follow.reader import Follower
from planner.follow.situation import live_situation
from planner.search.actors import StepContext
from planner.search.beam import Node

_FAILED = re.compile(r"^(.*?) \[failed: (.*)\]$")


def trace_pairs(trace: Sequence[str]) -> list[tuple[str, str]]:
    """The prompts' inline trace ('PickupObject Knife [failed: Knife not found]') as (sub-goal, reason) pairs."""
    out = []
    for step in trace:
        m = _FAILED.match(step)
        out.append((m.group(1), m.group(2)) if m else (step, ""))
    return out


@dataclass
class FollowActor:
    """An actor whose proposals are the follower's ranked legal sub-goals; role 'follow' or 'follow_gt'."""

    role: str
    follower: Follower
    window: int
    task_type: str
    calls: int = 0  # the counters an LLM actor keeps (the record's internals): a follower makes no call
    reused: int = 0
    illegal: int = 0

    def new_step(self) -> None:
        """Nothing is remembered across real states."""

    def propose(self, ctx: StepContext, node: Node, n: int, classes: Sequence[str] = (),
                legal: Sequence[str] | None = None) -> list[str]:
        """The follower's top `n` legal sub-goals at the node's state."""
        if legal is None or ctx.args is None:
            raise ValueError(f"{self.role}: the follower reads the legal set and the adapter's arguments: use "
                             "planner.legal_actions: true and a variant with adapter: true")
        trace = trace_pairs(ctx.trace) + [(a, "") for a in node.actions]
        got = self.follower.decide(live_situation(self.task_type, ctx.args, trace, self.window), legal)
        return list(got.picks[:n])

    def propose_other(self, ctx: StepContext, node: Node, avoid: set[str], tries: int, classes: Sequence[str] = (),
                      legal: Sequence[str] | None = None) -> list[str]:
        """Its best proposal not in `avoid` (from the legal set less `avoid`)."""
        rest = [a for a in (legal or ()) if a not in avoid]
        return self.propose(ctx, node, 1, classes, rest) if rest else []
