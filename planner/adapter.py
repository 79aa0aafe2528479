"""The adapter: predicts the seven hidden task arguments from the instruction and the objects seen so far."""
from __future__ import annotations

import logging
from typing import Any, Iterable, Sequence

from household.ontology import LAMPS, MOVABLE_RECEPTACLES, PICKUPABLE, RECEPTACLES, canonical_class
from planner.llm.constrain import Constraint
from planner.parsing import ARG_SHORT, empty_args, parse_args
from planner.prompting import adapter_example, join_examples, render
from pools.records import Sample

log = logging.getLogger(__name__)


def _options(classes: Iterable[str], none: bool = True) -> tuple[str, ...]:
    return tuple(sorted(classes)) + (("none",) if none else ())


# The answer line, as ALFRED's arguments can be: classes of the ontology, the four states, yes/no. Constrained
# decoding keeps the small model from inventing classes ("goldbin") or keys; parsing still validates it.
ARGS_CONSTRAINT = Constraint.template([
    "object=", _options(PICKUPABLE, none=False), " parent=", _options(RECEPTACLES),
    " mrecep=", _options(MOVABLE_RECEPTACLES), " toggle=", _options(LAMPS),
    " state=", ("clean", "heat", "cool", "none"), " sliced=", ("yes", "no"), " two=", ("yes", "no"),
])


class Adapter:
    """One LLM call per distinct (instruction, seen objects); the answer is parsed strictly, bad keys default."""

    role = "adapter"

    def __init__(self, client: Any, examples: Sequence[Sample], max_tokens: int = 40, constrain: bool = True) -> None:
        self.client = client
        self.examples = join_examples(adapter_example(s) for s in examples)
        self.max_tokens = max_tokens
        self.constrain = constrain
        self._memo: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
        self.parsed_keys = 0
        self.calls = 0
        self.unparsed = 0  # answers missing at least one of the seven arguments

    def prompt(self, instruction: str, seen: Sequence[str]) -> str:
        """The adapter prompt for this instruction and observation."""
        return render("adapter", examples=self.examples, seen=", ".join(seen) or "nothing yet",
                      instruction=instruction.strip(), objects=", ".join(ARGS_CONSTRAINT.slots[0]),
                      receptacles=", ".join(o for o in ARGS_CONSTRAINT.slots[1] if o != "none"))

    def predict(self, instruction: str, seen: Sequence[str]) -> dict[str, Any]:
        """Return the predicted arguments (defaults where the LLM gave nothing usable)."""
        key = (instruction, tuple(seen))
        if key in self._memo:  # same observation as an earlier step: same prompt, same answer
            return dict(self._memo[key])
        try:
            resp = self.client.complete(self.role, self.prompt(instruction, seen), max_tokens=self.max_tokens,
                                        stop=["\n"], constraint=ARGS_CONSTRAINT if self.constrain else None)
            self.calls += 1
            args, n = parse_args(resp.text, canonical_class)
        except Exception as exc:  # LLMError or anything else: the step goes on without predictions
            log.warning("adapter call failed: %s", exc)
            args, n = empty_args(), 0
        if n < len(ARG_SHORT):
            self.unparsed += 1
        self.parsed_keys += n
        self._memo[key] = args
        return dict(args)
