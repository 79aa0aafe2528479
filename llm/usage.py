"""Accounting of LLM calls in this process: per-episode and per-stage summaries by role."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    """One call as the caller saw it (a cache hit costs no tokens but is still a call)."""

    role: str
    model_id: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool
    retries: int
    error: str | None = None
    legal: bool | None = None  # None: the call had no constraint; else whether its answer was legal


class Usage:
    """Thread-safe list of call records; `snapshot()` marks a point, `summary(since=mark)` totals after it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[CallRecord] = []

    def add(self, record: CallRecord) -> None:
        """Append one call record."""
        with self._lock:
            self._records.append(record)

    def snapshot(self) -> int:
        """Return a mark for `summary(since=...)` (the number of calls so far)."""
        with self._lock:
            return len(self._records)

    def records(self, since: int = 0) -> list[CallRecord]:
        """Return the records after a snapshot mark."""
        with self._lock:
            return list(self._records[since:])

    def summary(self, since: int = 0, measured: bool = True) -> dict[str, Any]:
        """Totals after `since`: calls, tokens, seconds, cache hits, retries, errors, and the same by role.

        Tokens count what the endpoint processed for these calls; a cache hit adds 0 tokens (it was free).
        `constrained` counts the calls that had a set of legal answers, `illegal` those answered outside it.
        `measured=False` keeps only what the same calls always give, for a pipeline record that must be the same
        bytes on every run, however many workers ran and whatever the response cache held: calls, the tokens they
        consumed (cache hits included), constrained and illegal. Seconds, cache hits, retries and errors depend on
        the run; they go to the stage's timing file (pools/timing.py).
        """
        recs = self.records(since)
        return {**_totals(recs, measured), "by_role": {role: _totals([r for r in recs if r.role == role], measured)
                                                       for role in sorted({r.role for r in recs})}}


def _totals(recs: list[CallRecord], measured: bool = True) -> dict[str, Any]:
    counted = [r for r in recs if not r.cached] if measured else recs
    out: dict[str, Any] = {
        "calls": len(recs),
        "prompt_tokens": sum(r.prompt_tokens for r in counted),
        "completion_tokens": sum(r.completion_tokens for r in counted),
        "seconds": round(sum(r.seconds for r in recs), 3),
        "cache_hits": sum(r.cached for r in recs),
        "retries": sum(r.retries for r in recs),
        "errors": sum(r.error is not None for r in recs),
        "constrained": sum(r.legal is not None for r in recs),
        "illegal": sum(r.legal is False for r in recs),
    }
    if not measured:
        for key in MEASURED:
            del out[key]
    return out


MEASURED = ("seconds", "cache_hits", "retries", "errors")  # what depends on the run, not on the calls
