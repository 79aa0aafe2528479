"""The adapter: predicts the seven hidden task arguments from the instruction and the objects seen so far."""
from __future__ import annotations

import logging
from typing import Any, Sequence

from household.ontology import canonical_class
from planner.parsing import empty_args, parse_args
from planner.prompting import adapter_example, join_examples, render
from pools.records import Sample

log = logging.getLogger(__name__)


class Adapter:
    """One LLM call per distinct (instruction, seen objects); the answer is parsed strictly, bad keys default."""

    role = "adapter"

    def __init__(self, client: Any, examples: Sequence[Sample], max_tokens: int = 40) -> None:
        self.client = client
        self.examples = join_examples(adapter_example(s) for s in examples)
        self.max_tokens = max_tokens
        self._memo: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
        self.parsed_keys = 0
        self.calls = 0

    def prompt(self, instruction: str, seen: Sequence[str]) -> str:
        """The adapter prompt for this instruction and observation."""
        return render("adapter", examples=self.examples, seen=", ".join(seen) or "nothing yet",
                      instruction=instruction.strip())

    def predict(self, instruction: str, seen: Sequence[str]) -> dict[str, Any]:
        """Return the predicted arguments (defaults where the LLM gave nothing usable)."""
        key = (instruction, tuple(seen))
        if key in self._memo:  # same observation as an earlier step: same prompt, same answer
            return dict(self._memo[key])
        try:
            resp = self.client.complete(self.role, self.prompt(instruction, seen), max_tokens=self.max_tokens,
                                        stop=["\n"])
            self.calls += 1
            args, n = parse_args(resp.text, canonical_class)
        except Exception as exc:  # LLMError or anything else: the step goes on without predictions
            log.warning("adapter call failed: %s", exc)
            args, n = empty_args(), 0
        self.parsed_keys += n
        self._memo[key] = args
        return dict(args)
