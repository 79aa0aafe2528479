"""On-disk response cache and call log: one SQLite file (WAL) shared safely by threads and processes."""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping

log = logging.getLogger(__name__)

DB_NAME = "llm.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    run TEXT NOT NULL,
    role TEXT NOT NULL,
    model_id TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    cached INTEGER NOT NULL,
    retries INTEGER NOT NULL,
    error TEXT
);
CREATE INDEX IF NOT EXISTS calls_ts ON calls(ts);
"""


BUSY_WAIT_S = 60.0


def _retry_busy(op: Callable[[], Any], wait_s: float = BUSY_WAIT_S) -> Any:
    """Run a SQLite operation, retrying while the database answers locked/busy, for up to `wait_s` seconds."""
    deadline = time.monotonic() + wait_s
    pause = 0.01
    while True:
        try:
            return op()
        except sqlite3.OperationalError as exc:
            msg = str(exc).lower()
            if ("locked" not in msg and "busy" not in msg) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)


def cache_key(model_id: str, kind: str, request: Mapping[str, Any]) -> str:
    """Hash what determines an answer: model, call kind, prompt/messages and sampling params (never the key)."""
    blob = json.dumps({"v": 1, "model": model_id, "kind": kind, "request": request},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Store:
    """Responses keyed by `cache_key`, plus one row per call made (table `calls`)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        # One connection guarded by a lock: calls are seconds long, the db work is microseconds.
        self._db = sqlite3.connect(str(path), timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout=60000")
        # Switching to WAL and creating the schema take locks for which SQLite may answer "busy" at once,
        # without waiting, when several processes open a fresh file together: retry those.
        _retry_busy(lambda: self._db.execute("PRAGMA journal_mode=WAL"))
        self._db.execute("PRAGMA synchronous=NORMAL")
        _retry_busy(lambda: self._db.executescript(_SCHEMA))

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the cached response for `key`, or None."""
        with self._lock:
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model_id: str, response: Mapping[str, Any]) -> None:
        """Store a response (last writer wins: identical keys give identical answers at temperature 0)."""
        blob = json.dumps(dict(response), ensure_ascii=False)
        with self._lock:
            _retry_busy(lambda: self._db.execute(
                "INSERT OR REPLACE INTO responses (key, model_id, response, created) VALUES (?,?,?,?)",
                (key, model_id, blob, time.time())))

    def record(self, run: str, role: str, model_id: str, prompt_tokens: int, completion_tokens: int,
               seconds: float, cached: bool, retries: int, error: str | None) -> None:
        """Append one call to the `calls` table (retried while busy); a failure here is logged, never raised."""
        row = (time.time(), run, role, model_id, prompt_tokens, completion_tokens, seconds, int(cached), retries,
               error)
        try:
            with self._lock:
                _retry_busy(lambda: self._db.execute(
                    "INSERT INTO calls (ts, run, role, model_id, prompt_tokens, completion_tokens, seconds, cached,"
                    " retries, error) VALUES (?,?,?,?,?,?,?,?,?,?)", row))
        except sqlite3.Error as exc:  # accounting must not break a run
            log.warning("could not record LLM call in %s: %s", self.path, exc)

    def totals(self, since: float | None = None) -> list[dict[str, Any]]:
        """Totals of recorded calls per (model, role), optionally since a UNIX time."""
        sql = ("SELECT model_id, role, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(seconds),"
               " SUM(cached), SUM(retries), SUM(error IS NOT NULL), COUNT(DISTINCT run) FROM calls"
               " WHERE ts >= ? GROUP BY model_id, role ORDER BY model_id, role")
        with self._lock:
            rows = self._db.execute(sql, (since or 0.0,)).fetchall()
        keys = ("model_id", "role", "calls", "prompt_tokens", "completion_tokens", "seconds", "cache_hits",
                "retries", "errors", "runs")
        return [dict(zip(keys, row)) for row in rows]

    def cached_responses(self) -> int:
        """Number of responses held in the cache."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()
