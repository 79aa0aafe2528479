"""The example pools the planner retrieves from, with leave-one-out exclusion: samples by kNN over their task texts
(`retrieve`), or windows of their plans by kNN over the situation before each window's last step
(`retrieve_windows`, retrieval.unit step: planner/retrieval/situations.py)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar

from planner.retrieval.situations import Window, record_windows
from pools.ids import content_id
from pools.records import Correction, CriticSample, PoolItem, Sample

T = TypeVar("T", Sample, CriticSample)

# index_factory(texts, cache_key) -> object with .query(text, k, exclude=set()) -> list[int] (nearest first)
IndexFactory = Callable[[list[str], str], Any]


def _default_index(texts: list[str], cache_key: str) -> Any:
    from planner.retrieval.knn import KNNIndex  # heavy (torch); built once per pool
    return KNNIndex.build(texts, cache_key)


@dataclass
class ExamplePools:
    """Ground-truth and hindsight actor samples and critic samples, each with a lazily built kNN index (and one per
    window size over the actor samples' windows). Actor_hind's pool holds the hindsight samples and, where a pool has
    them (relabel.corrections), the expert's corrections: an example either way (its `trace()`: a correction's is the
    prefix, then the corrected step)."""

    gt: Sequence[Sample] = ()
    hind: Sequence[Sample | Correction] = ()
    critic: Sequence[CriticSample] = ()
    index_factory: IndexFactory = _default_index
    _indexes: dict[str, Any] = field(default_factory=dict, repr=False)
    _windows: dict[tuple[str, int], list[Window]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_records(cls, *record_lists: Sequence[PoolItem]) -> "ExamplePools":
        """Pools from pool records (any mix of gt, hindsight, correction and critic records), each routed by its
        kind."""
        rows = [r for records in record_lists for r in records]
        return cls(gt=[r for r in rows if r.kind == "gt"],
                   hind=[r for r in rows if r.kind in ("hindsight", "correction")],
                   critic=[r for r in rows if r.kind == "critic"])

    def items(self, kind: str) -> Sequence[Any]:
        """The samples of one kind: 'gt', 'hind', 'critic' or 'critic_gt' (critic samples from expert plans)."""
        if kind == "critic_gt":
            return [c for c in self.critic if c.source == "expert"]
        return {"gt": self.gt, "hind": self.hind, "critic": self.critic}[kind]

    def windows(self, kind: str, size: int) -> list[Window]:
        """The windows of up to `size` steps of the kind's actor samples ('gt' or 'hind'), sample by sample; a
        correction gives one, ending at its corrected step."""
        if (kind, size) not in self._windows:
            # A correction's one window ends at its corrected step (its prefix's own steps are the robot's).
            self._windows[(kind, size)] = [
                w for s in self.items(kind)
                for w in record_windows(s, size, ends=[len(s.steps)] if isinstance(s, Correction) else None)]
        return self._windows[(kind, size)]

    def _index(self, name: str, items: Sequence[Any], text: Callable[[Any], str], key: Callable[[Any], str]) -> Any:
        # Each pool's texts are embedded once (and cached on disk under a name of the pool's content).
        if name not in self._indexes:
            self._indexes[name] = self.index_factory([text(x) for x in items],
                                                     content_id("knn", [name, [key(x) for x in items]]))
        return self._indexes[name]

    def retrieve(self, kind: str, text: str, k: int, *, exclude_task: str = "", exclude_ids: Sequence[str] = ()
                 ) -> list[Any]:
        """The k samples whose task text is nearest to `text`, nearest LAST (closest to the query in the prompt).

        Samples of `exclude_task` (the task being solved: a task never sees its own solution) and samples whose id
        is in `exclude_ids` (leave-one-out) are never returned.
        """
        items = self.items(kind)
        banned = _banned(items, exclude_task, exclude_ids, lambda s: s.id)
        return _nearest_last(items, banned, k, text,
                             lambda: self._index(kind, items, lambda s: s.instruction, lambda s: s.id))

    def retrieve_windows(self, kind: str, situation: str, k: int, size: int, *, with_args: bool = True,
                         exclude_task: str = "", exclude_ids: Sequence[str] = ()) -> list[Window]:
        """The k windows of up to `size` steps of the kind's samples whose situation (`Window.key(with_args)`) is
        nearest to `situation`, nearest LAST; windows of `exclude_task` and of samples in `exclude_ids` never."""
        items = self.windows(kind, size)
        banned = _banned(items, exclude_task, exclude_ids, lambda w: w.sample)
        name = f"{kind}/window{size}{'' if with_args else '/no-args'}"
        return _nearest_last(items, banned, k, situation, lambda: self._index(
            name, items, lambda w: w.key(with_args), lambda w: f"{w.sample}@{w.end}"))

    def window_source(self, kind: str, k: int, size: int, *, with_args: bool = True, exclude_task: str = "",
                      exclude_ids: Sequence[str] = ()) -> Callable[[str], list[Window]] | None:
        """`retrieve_windows` with these settings as a function of the situation; None when no window is left."""
        items = self.windows(kind, size)
        if len(_banned(items, exclude_task, exclude_ids, lambda w: w.sample)) >= len(items):
            return None
        return functools.partial(self.retrieve_windows, kind, k=k, size=size, with_args=with_args,
                                 exclude_task=exclude_task, exclude_ids=tuple(exclude_ids))


def _banned(items: Sequence[Any], exclude_task: str, exclude_ids: Sequence[str], owner: Callable[[Any], str]
            ) -> set[int]:
    """Positions of the items of `exclude_task` (a task never sees its own solution) or of a sample in `exclude_ids`
    (leave-one-out); `owner`: an item's sample id."""
    ids = set(exclude_ids)
    return {i for i, x in enumerate(items) if x.task_id == exclude_task or owner(x) in ids}


def _nearest_last(items: Sequence[Any], banned: set[int], k: int, text: str, index: Callable[[], Any]) -> list[Any]:
    """The k items nearest to `text` by `index()` (built only when asked), none of `banned`, nearest last (closest
    to the query in the prompt)."""
    if not items or k <= 0 or len(banned) >= len(items):
        return []
    idx = index().query(text, k, exclude=banned)
    return [items[i] for i in reversed(list(idx)) if i not in banned]
