"""`llm.max_concurrency` across a Dask cluster: one `distributed.Semaphore` per endpoint, held around each request.

On threads, every item shares the flow's LLM client and its per-endpoint semaphore caps the requests in flight.
On Dask, each worker process has its own client, so that semaphore alone caps each process, not the cluster.
A worker's client therefore also takes a lease of a cluster-wide semaphore on the scheduler around each request
(llm.client.LLMClient.limiter). Its name holds the endpoint, the model and the cap: every stage that
sends to the same endpoint with the same cap shares it (stages with different caps each get their own).

Soundness: a lease is the scheduler's, refreshed by the worker every lease-timeout / 5 (distributed's config
`distributed.scheduler.locks.lease-timeout`, 30 s). A worker that dies gives its leases back after that timeout,
so a crash never blocks the others for long; a worker whose event loop cannot refresh for 30 s (it never should:
items wait on HTTP in their own threads) would lose its lease and one more request could start.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, ContextManager, Iterator

_lock = threading.Lock()
_semaphores: dict[str, Any] = {}


def cluster_limiter() -> Callable[[str, str, int], ContextManager[None]] | None:
    """The limiter for LLMClient.limiter when this process is a Dask worker; None anywhere else."""
    try:  # distributed takes ~1 s to import (python -X importtime, 2 cores): only where Dask runs
        from distributed import get_worker
    except ImportError:  # pragma: no cover - distributed is a dependency; only a broken venv lacks it
        return None
    try:
        get_worker()
    except ValueError:  # not inside a Dask worker
        return None
    return lease


def semaphore_name(endpoint: str, model: str, max_concurrency: int) -> str:
    """The cluster-wide semaphore's name (no key: the endpoint URL is what params.yaml names, and it carries none)."""
    return f"hindsight-llm {endpoint} {model} x{max_concurrency}"


@contextmanager
def lease(endpoint: str, model: str, max_concurrency: int) -> Iterator[None]:
    """Hold one of the `max_concurrency` cluster-wide slots of (endpoint, model) while the body runs."""
    sem = _semaphore(semaphore_name(endpoint, model, max_concurrency), max_concurrency)
    sem.acquire()
    try:
        yield
    finally:
        sem.release()


def _semaphore(name: str, max_leases: int) -> Any:
    from distributed import Semaphore  # on Dask workers only (see cluster_limiter)

    with _lock:  # one per process and name: it registers with the scheduler once and refreshes its own leases
        sem = _semaphores.get(name)
        if sem is None:
            sem = _semaphores[name] = Semaphore(max_leases=max_leases, name=name)
        return sem
