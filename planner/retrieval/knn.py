"""Exact kNN by Euclidean distance over embedded texts (the paper's choice), with an on-disk embedding cache.

A pool's embeddings are computed once and cached in `.cache/embeddings/` under a name derived from the encoder and
the exact texts (so a changed pool can never reuse stale vectors).
"""
from __future__ import annotations

import io
import logging
import re
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from llm.paths import embeddings_dir
from planner.retrieval.encoder import Encoder, get_encoder, texts_digest
from pools.jsonl import atomic_write_bytes

log = logging.getLogger(__name__)


class KNNIndex:
    """Exact kNN by Euclidean distance over a fixed set of embedded texts."""

    def __init__(self, embeddings: np.ndarray, encoder: Encoder | None = None) -> None:
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self._sq = np.einsum("ij,ij->i", self.embeddings, self.embeddings)
        self._encoder = encoder

    @classmethod
    def build(cls, texts: Sequence[str], cache_key: str | None = None, *, encoder: Encoder | None = None,
              cache_dir: Path | None = None) -> "KNNIndex":
        """Embed `texts` (or load them from the cache) and index them.

        `cache_key` (e.g. the pool's content hash) names the cache file; the texts' own digest is always part
        of the name too, so vectors are reused only for exactly these texts. `cache_key=""` disables caching.
        """
        encoder = encoder or get_encoder()
        digest = texts_digest(texts, encoder.id)
        path = None
        if cache_key != "":
            prefix = re.sub(r"[^A-Za-z0-9_.-]", "_", cache_key)[:64] + "-" if cache_key else ""
            path = (cache_dir or embeddings_dir()) / f"{prefix}{digest[:24]}.npy"
            if path.exists():
                try:
                    emb = np.load(path, allow_pickle=False)
                    if emb.shape == (len(texts), encoder.dim):
                        return cls(emb, encoder)
                except (OSError, ValueError):
                    log.warning("unreadable embedding cache %s; recomputing", path)
        emb = encoder.encode(texts)
        if path is not None:
            buf = io.BytesIO()
            np.save(buf, emb, allow_pickle=False)
            atomic_write_bytes(path, buf.getvalue())
        return cls(emb, encoder)

    def __len__(self) -> int:
        return len(self.embeddings)

    def query(self, text: str, k: int, exclude: Iterable[int] = ()) -> list[int]:
        """Indices of the k texts nearest to `text`, nearest first, skipping `exclude` (ties: lower index)."""
        encoder = self._encoder or get_encoder()
        return self.query_vector(encoder.encode_one(text), k, exclude)

    def query_vector(self, vec: np.ndarray, k: int, exclude: Iterable[int] = ()) -> list[int]:
        """Like `query` for an already embedded query."""
        return [i for i, _ in self.nearest(vec, k, exclude)]

    def nearest(self, vec: np.ndarray, k: int, exclude: Iterable[int] = ()) -> list[tuple[int, float]]:
        """(index, Euclidean distance) of the k nearest, nearest first."""
        n = len(self.embeddings)
        if n == 0 or k <= 0:
            return []
        q = np.asarray(vec, dtype=np.float32).reshape(-1)
        d2 = self._sq - 2.0 * (self.embeddings @ q) + float(q @ q)
        excluded = [i for i in set(exclude) if 0 <= i < n]
        if excluded:
            d2[excluded] = np.inf
        m = min(n, k + len(excluded))
        cand = np.argpartition(d2, m - 1)[:m] if m < n else np.arange(n)
        cand = cand[np.isfinite(d2[cand])]
        order = np.lexsort((cand, d2[cand]))  # by distance, then index: deterministic ties
        chosen = cand[order][:k]
        return [(int(i), float(np.sqrt(max(d2[i], 0.0)))) for i in chosen]
