"""The critic: one LLM call scores every candidate rollout ("i. the value is a/b"), value = a/b."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Sequence

from llm.constrain import Constraint
from planner.prompts.parsing import format_plan, parse_values
from planner.prompts.prompting import critic_examples, examples_room, render, state_block
from planner.search.actors import StepContext
from planner.search.beam import Node
from pools.records import CriticSample

log = logging.getLogger(__name__)

DIGITS = tuple(str(i) for i in range(10))


def values_constraint(n: int) -> Constraint:
    """The critic's answer for n rollouts, after the prompt's '1.': 'the value is a/b' lines numbered 1..n."""
    parts: list[Any] = []
    for i in range(1, n + 1):
        parts += [("" if i == 1 else f"\n{i}. ") + "the value is ", DIGITS, "/", DIGITS[1:]]
    return Constraint.template(parts)


def rollout_text(done: Sequence[str], node: Node) -> str:
    """The imagined rollout as the critic reads it: done steps, imagined steps, predicted failures marked."""
    text = format_plan(list(done) + list(node.actions)) or "(nothing)"
    if node.state.predicted_fail:
        text += " [fails: " + "; ".join(node.state.predicted_fail) + "]"
    return text


@dataclass
class Critic:
    """Scores rollouts against retrieved critic examples."""

    client: Any
    examples: Sequence[CriticSample]
    show_args: bool = True
    tokens_per_rollout: int = 12
    constrain: bool = True  # answer through values_constraint (constrained decoding where the endpoint supports it)
    role: str = "critic"
    prompt_tokens: int = 0  # retrieval.prompt_tokens: examples cut to fit, farthest first (0 = no cut)
    dropped: int = 0  # examples cut to fit the prompt budget
    calls: int = 0
    unparsed: int = 0
    _header: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        examples = list(self.examples)
        room = examples_room(self.prompt_tokens)
        while room is not None and len(examples) > 1 and len(critic_examples(examples)) > room:
            examples = examples[1:]  # the farthest first: critic_examples groups by task, so measure its text
        self.dropped = len(self.examples) - len(examples)
        if self.dropped:
            log.info("critic prompt: %d of %d examples cut to fit retrieval.prompt_tokens=%d", self.dropped,
                     len(self.examples), self.prompt_tokens)
        self._header = critic_examples(examples)

    def prompt(self, ctx: StepContext, nodes: Sequence[Node]) -> str:
        """The critic prompt: examples, state, numbered rollouts; the answer starts after '1.'."""
        state = state_block(ctx.instruction, (), ctx.args if self.show_args else None, ())
        plans = "\n".join(f"Plan {i}: {rollout_text(ctx.done, n)}" for i, n in enumerate(nodes, 1))
        return render("critic", examples=self._header, state=state, plans=plans)

    def score(self, ctx: StepContext, nodes: Sequence[Node]) -> list[float | None]:
        """Return a/b for each rollout, None where the answer had no valid value."""
        if not nodes:
            return []
        try:
            resp = self.client.complete(self.role, self.prompt(ctx, nodes),
                                        max_tokens=self.tokens_per_rollout * len(nodes) + 4,
                                        stop=["\n\n", "\nTask", "\nPlan"],
                                        constraint=values_constraint(len(nodes)) if self.constrain else None)
        except Exception as exc:
            log.warning("critic call failed: %s", exc)
            self.unparsed += len(nodes)
            return [None] * len(nodes)
        self.calls += 1
        values = parse_values("1." + resp.text, len(nodes))
        self.unparsed += sum(v is None for v in values)
        return [None if v is None else v[0] / v[1] for v in values]
