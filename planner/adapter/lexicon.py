"""Which argument values an instruction's words point to, learned from ALFRED's train annotations.

For each argument slot (object, parent, movable receptacle, toggle target, state, sliced, two objects) and each word,
`P(value | word)` is counted over the train split's annotations ("keys" -> KeyChain, "counter" -> CounterTop, "warm"
-> heat). The adapter's constrained answer is then limited, slot by slot, to the values some word of the instruction
points to with at least `min_share` (plus the slot's empty value), so the small model chooses among a handful of
classes instead of all 80 (it named a WateringCan for "wash cloth"). Only train annotations are read: nothing of the
evaluated task leaks in. On the 821 valid_unseen annotations, `min_share` 0.1 (with the classes named by their own
name, `planner.adapter.lexicon_options`) keeps the true object in 98.3% of the lists (5.2 classes on average), the
parent in 97.2% (6.4), the movable receptacle, toggle target, state, sliced and two in 99-100% (1.3-2.3 values).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Any, Iterable, Mapping

from household.world.tasks import load_tasks

SLOTS: tuple[str, ...] = ("object_target", "parent_target", "mrecep_target", "toggle_target", "object_state",
                          "object_sliced", "two_objects")
MIN_COUNT = 3  # a word seen fewer times in train says nothing reliable
LIFT = 2.0  # a word points to a value only if the value is this many times likelier with the word than without


def words(text: str) -> set[str]:
    """Lower-case words of a sentence, with a plain plural 's' dropped ('apples' -> 'apple', not 'glass')."""
    out = set()
    for w in re.findall(r"[a-z]+", text.lower()):
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def slot_value(args: Mapping[str, Any], slot: str) -> str:
    """The value a slot takes in an argument dict, as the adapter writes it ('' = the slot's empty value)."""
    v = args.get(slot)
    if isinstance(v, bool):
        return "yes" if v else ""
    return "" if v in (None, "none") else str(v)


class Lexicon:
    """Counts of (word, slot value) over annotated instructions; `points_to` gives a slot's likely values."""

    def __init__(self, pairs: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        self.word_count: Counter[str] = Counter()
        self.value_count: dict[str, Counter[str]] = {s: Counter() for s in SLOTS}
        self.sentences = 0
        self.joint: dict[str, dict[str, Counter[str]]] = {s: defaultdict(Counter) for s in SLOTS}
        for text, args in pairs:
            ws = words(text)
            self.sentences += 1
            self.word_count.update(ws)
            for slot in SLOTS:
                value = slot_value(args, slot)
                if value:
                    self.value_count[slot][value] += 1
                    for w in ws:
                        self.joint[slot][w][value] += 1

    def scores(self, slot: str, text: str) -> dict[str, float]:
        """For each value some word of `text` points to: the largest P(value | word) over those words.

        A word points to a value only when it makes the value at least `LIFT` times likelier than it is anyway, so
        'the' (in every sentence) points to nothing, though 1 sentence in 7 is a heating task.
        """
        best: dict[str, float] = {}
        total = max(self.sentences, 1)
        for w in words(text):
            n = self.word_count[w]
            if n < MIN_COUNT:
                continue
            for value, k in self.joint[slot][w].items():
                share = k / n
                if k >= 2 and share >= LIFT * self.value_count[slot][value] / total:
                    best[value] = max(best.get(value, 0.0), share)
        return best

    @classmethod
    def of_samples(cls, samples: Iterable[Any]) -> "Lexicon":
        """The counts over a pool's annotated examples (instruction and arguments): few-shot knowledge only."""
        return cls((s.instruction, s.args) for s in samples)

    def points_to(self, slot: str, text: str, min_share: float) -> list[str]:
        """Values of `slot` that a word of `text` points to with at least `min_share`, most likely first."""
        sc = self.scores(slot, text)
        return sorted((v for v, s in sc.items() if s >= min_share), key=lambda v: (-sc[v], v))


@lru_cache(maxsize=1)
def train_lexicon() -> Lexicon:
    """The lexicon of every train annotation (about 20,000 sentences; built once per process, under a second)."""
    return Lexicon((a.task_desc, t.args.as_dict()) for t in load_tasks("train") for a in t.annotations)
