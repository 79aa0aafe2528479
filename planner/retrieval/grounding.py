"""Grounding LLM text to legal sub-goals: strict parse, then nearest legal sub-goal by the encoder, then reject."""
from __future__ import annotations

import functools
import logging
from collections import Counter
from typing import Any, Iterable, Sequence

from household.world.ontology import canonical_class
from household.world.subgoals import legal_subgoals, parse_subgoal

log = logging.getLogger(__name__)


def classes_of(names: Iterable[str]) -> list[str]:
    """Canonical ALFRED classes of observation entries such as 'Apple', 'Fridge (open)' or 'apple 2'."""
    out: list[str] = []
    for name in names:
        head = str(name).split("(")[0].strip()
        cls = canonical_class(head) or canonical_class(head.split()[0] if head.split() else "")
        if cls and cls not in out:
            out.append(cls)
    return out


@functools.lru_cache(maxsize=4096)
def _legal_over(classes: tuple[str, ...]) -> frozenset[str]:
    return frozenset(legal_subgoals(classes))


class Grounder:
    """Turns raw proposal text into a canonical sub-goal string; counts how each was obtained."""

    def __init__(self, threshold: float = 0.5, mapper_factory: Any = None) -> None:
        self.threshold = threshold
        self._factory = mapper_factory
        self._mappers: dict[tuple[str, ...], Any] = {}
        self._memo: dict[tuple[str, tuple[str, ...]], tuple[str | None, float]] = {}
        self.stats: Counter[str] = Counter()

    def _mapper(self, legal: tuple[str, ...]) -> Any:
        if legal not in self._mappers:
            factory = self._factory
            if factory is None:
                from planner.retrieval.subgoal_mapper import SubgoalMapper  # heavy (torch); only when a proposal fails to parse
                factory = SubgoalMapper
            self._mappers[legal] = factory(list(legal), self.threshold)
        return self._mappers[legal]

    def candidates(self, raw: str, classes: Iterable[str]) -> tuple[str, ...]:
        """Legal sub-goals the text may be mapped to: over the known classes, and naming a class the text names.

        The restriction keeps the mapper's candidate set small (tens, not thousands of PutObject pairs), so
        encoding it costs milliseconds, and stops a mapping from switching to an object the text never mentioned.
        """
        named = classes_of(raw.replace(",", " ").replace("(", " ").replace(")", " ").split())
        known = set(classes_of(classes)) | set(named)
        legal = legal_subgoals(sorted(known)) if known else []
        if named:
            legal = [sg for sg in legal if any(c in sg.split()[1:] for c in named)] or legal
        return tuple(legal)

    def ground(self, raw: str, classes: Iterable[str], allowed: Sequence[str] | None = None) -> str | None:
        """Return the canonical sub-goal for raw text, or None (rejected); within `allowed` when given."""
        sg = parse_subgoal(raw)
        # Strict = well-formed AND allowed by the classes' affordances (no 'ToggleObjectOn CoffeeTable'); a
        # well-formed but impossible sub-goal goes on to the mapper like any other unparsable text.
        if sg is not None and (sg.action == "Stop" or str(sg) in _legal_over(sg.args)) \
                and (allowed is None or str(sg) in allowed):
            self.stats["parsed"] += 1
            return str(sg)
        legal = self.candidates(raw, classes)
        if allowed is not None:
            legal = tuple(a for a in legal if a in set(allowed)) or tuple(allowed)
        if not legal:
            self.stats["rejected"] += 1
            return None
        key = (raw, legal)
        if key in self._memo:  # the same text over the same candidates: same answer, no encoder call
            mapped, score = self._memo[key]
        else:
            try:
                mapped, score = self._mapper(legal).map(raw)
            except Exception as exc:  # the encoder must never crash planning
                log.warning("sub-goal mapping failed for %r: %s", raw, exc)
                mapped, score = None, 0.0
            self._memo[key] = (mapped, score)
        if mapped is None:
            self.stats["rejected"] += 1
            log.debug("rejected proposal %r", raw)
            return None
        self.stats["mapped"] += 1
        log.debug("mapped %r -> %r (%.2f)", raw, mapped, score)
        return str(mapped)
