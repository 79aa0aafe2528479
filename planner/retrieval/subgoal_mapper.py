"""Free text -> the nearest legal sub-goal ("pick up the apple" -> "PickupObject Apple"), by cosine similarity."""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from household.world.ontology import class_words
from planner.retrieval.encoder import Encoder, get_encoder


# Sub-goal verbs in words, so that "pick up the apple" lands on "PickupObject Apple".
_VERB_WORDS = {
    "navigation": "go to", "gotolocation": "go to", "pickupobject": "pick up", "putobject": "put",
    "openobject": "open", "closeobject": "close", "toggleobjecton": "turn on", "toggleobjectoff": "turn off",
    "sliceobject": "slice", "heatobject": "heat", "coolobject": "cool", "cleanobject": "clean", "stop": "stop",
}


def humanize(text: str) -> str:
    """'PutObject Apple CounterTop' -> 'put apple in counter top' (words MiniLM knows)."""
    tokens = text.strip().split()
    if not tokens:
        return ""
    verb = _VERB_WORDS.get(tokens[0].lower())
    args = [class_words(t) for t in (tokens[1:] if verb else tokens)]
    if verb == "put" and len(args) == 2:
        return f"put {args[0]} in {args[1]}"
    return " ".join(([verb] if verb else []) + args)


class SubgoalMapper:
    """Maps free text to the nearest legal sub-goal by cosine similarity; below `floor` it is rejected."""

    def __init__(self, legal: Sequence[str], floor: float = 0.8, encoder: Encoder | None = None) -> None:
        self.legal = list(legal)
        self.floor = floor
        self._encoder = encoder or get_encoder()
        self._exact = {" ".join(s.lower().split()): s for s in self.legal}
        self._vectors = _legal_vectors(self._encoder, tuple(self.legal))

    def map(self, text: str) -> tuple[str | None, float]:
        """Return (legal sub-goal, similarity) for `text`, or (None, best similarity) if below the floor."""
        norm = " ".join(text.lower().split())
        if norm in self._exact:
            return self._exact[norm], 1.0
        if not self.legal or not norm:
            return None, 0.0
        q = self._encoder.encode_one(humanize(text))
        sims = self._vectors @ q
        best = int(np.argmax(sims))  # first of equals: deterministic
        score = float(sims[best])
        return (self.legal[best], score) if score >= self.floor else (None, score)


@lru_cache(maxsize=64)
def _legal_vectors(encoder: Encoder, legal: tuple[str, ...]) -> np.ndarray:
    # The legal set changes per scene and step; memoise it since episodes revisit the same sets.
    return encoder.encode([humanize(s) for s in legal])
