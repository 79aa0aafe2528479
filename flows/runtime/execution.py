"""How a stage runs its items: one at a time, on threads, or on a Dask cluster (params `pipeline:`)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from prefect.task_runners import ThreadPoolTaskRunner

from flows.runtime.params import ParamsError

RUNNERS = ("threads", "dask")


@dataclass(frozen=True)
class Execution:
    """`pipeline.workers` items at once, on `pipeline.task_runner` (threads | dask at `pipeline.dask_address`)."""

    workers: int = 1
    task_runner: str = "threads"
    dask_address: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.workers, int) or isinstance(self.workers, bool) or self.workers < 1:
            raise ParamsError(f"params.yaml: pipeline.workers must be an integer >= 1, got {self.workers!r}")
        if self.task_runner not in RUNNERS:
            raise ParamsError(f"params.yaml: pipeline.task_runner must be one of {list(RUNNERS)}, "
                              f"got {self.task_runner!r}")
        if self.dask_address is not None and self.task_runner != "dask":
            raise ParamsError("params.yaml: pipeline.dask_address is set but pipeline.task_runner is "
                              f"{self.task_runner!r}; set pipeline.task_runner: dask to use the cluster")

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "Execution":
        """Read `pipeline.workers`, `pipeline.task_runner` and `pipeline.dask_address` (all optional)."""
        pipe = params.get("pipeline") or {}
        address = pipe.get("dask_address")
        return cls(workers=pipe.get("workers", 1), task_runner=str(pipe.get("task_runner") or "threads"),
                   dask_address=str(address) if address else None)

    @property
    def sequential(self) -> bool:
        """One item after another in this process (the default: no task runner, no pickling)."""
        return self.task_runner == "threads" and self.workers == 1

    @property
    def remote(self) -> bool:
        """Items run in other processes: everything they need must be picklable."""
        return self.task_runner == "dask"

    def describe(self) -> str:
        """One line for the log."""
        if self.task_runner == "threads":
            return f"{self.workers} worker thread(s)"
        where = self.dask_address or f"a local Dask cluster ({self.local_processes()} processes)"
        return f"Dask at {where}, {self.workers} item(s) in flight"

    def local_processes(self) -> int:
        """Processes of the LocalCluster started without an address: one per core, at most 4 (the items wait on
        the endpoint, so threads, not processes, carry the concurrency)."""
        return max(1, min(self.workers, os.cpu_count() or 1, 4))


def task_runner(execution: Execution) -> Any:
    """The Prefect task runner for `execution` (a context manager with `.submit(task, parameters)`)."""
    if execution.task_runner == "threads":
        return ThreadPoolTaskRunner(max_workers=execution.workers)
    try:  # only on Dask: prefect-dask and distributed add ~1 s to the import (python -X importtime, 2 cores)
        from prefect_dask import DaskTaskRunner
    except ImportError as exc:  # pragma: no cover - a dependency of the project; only a broken venv lacks it
        raise RuntimeError("pipeline.task_runner: dask needs prefect-dask and distributed "
                           "(pip install -e . installs them)") from exc
    if execution.dask_address:
        return DaskTaskRunner(address=execution.dask_address)
    procs = execution.local_processes()
    threads = max(1, -(-execution.workers // procs))  # ceil: procs x threads >= workers
    # processes=True: items really run in other processes, as on a cluster (no shared memory to lean on).
    return DaskTaskRunner(cluster_kwargs={"n_workers": procs, "threads_per_worker": threads, "processes": True,
                                          "dashboard_address": None})
