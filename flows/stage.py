"""The per-item engine every stage shares: Prefect task per item, retries, journal for resume, progress, summary."""
from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from flows.env import project_dir
from pools.ids import content_id
from pools.journal import Journal, StageLock
from pools.jsonl import record_problem, write_json


@dataclass
class StageResult:
    """What a stage's items produced: records in item order, failures with reasons, and timing."""

    stage: str
    records: list[dict[str, Any]]
    failures: list[dict[str, str]] = field(default_factory=list)
    reused: int = 0
    seconds: float = 0.0
    journal_path: Path | None = None

    @property
    def total(self) -> int:
        return len(self.records) + len(self.failures)

    def summary(self, **extra: Any) -> dict[str, Any]:
        """The stage's summary record (written to metrics/stages/<stage>.json)."""
        return {
            "stage": self.stage,
            "items": self.total,
            "ok": len(self.records),
            "failed": len(self.failures),
            "reused": self.reused,
            "seconds": round(self.seconds, 3),
            "failures": self.failures,
            **extra,
        }


class StageFailed(RuntimeError):
    """More items failed than the stage's configured share allows."""


_HELD: set[str] = set()  # stages whose lock this process holds (flock would refuse a second take from us too)


@contextmanager
def stage_lock(stage: str) -> Iterator[None]:
    """Hold the workspace lock of one stage (a second process refuses with StageBusy); nests within a process."""
    if stage in _HELD:
        yield
        return
    with StageLock(project_dir() / ".cache" / "locks" / f"{stage}.lock", f"stage '{stage}'"):
        _HELD.add(stage)
        try:
            yield
        finally:
            _HELD.discard(stage)


def _logger() -> logging.Logger | logging.LoggerAdapter:
    try:
        return get_run_logger()
    except Exception:  # called outside a flow run (unit tests)
        return logging.getLogger("flows.stage")


def run_items(
    stage: str,
    items: Sequence[tuple[str, Any]],
    work: Callable[[Any], dict[str, Any]],
    *,
    key: Any,
    retries: int = 2,
    retry_on: tuple[type[BaseException], ...] = (),
    retry_delay: float = 1.0,
    schema: str | None = None,
) -> StageResult:
    """Run `work` on each (item_id, payload), resuming from the journal of an interrupted run with the same key.

    `key` is what the results depend on (params, input hashes): a run with another key never reuses items.
    Exceptions in `retry_on` are retried by Prefect; any exception left after that marks the item failed.
    With `schema`, a record that breaks it (or is too big to be read back) fails its item instead of the stage.
    """
    log = _logger()
    ids = [item_id for item_id, _ in items]
    if len(set(ids)) != len(ids):
        # The journal is keyed by item id: duplicates would be reused or written twice.
        dups = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"stage '{stage}': duplicate item ids {dups[:5]}")
    root = project_dir() / ".cache"
    journal_id = content_id(stage, key)
    started = time.monotonic()
    with stage_lock(stage):
        journal = Journal(root / "journal" / f"{journal_id}.jsonl")
        done = journal.completed()
        if schema:
            done = {k: r for k, r in done.items() if record_problem(r, schema) is None}
        reused = sum(1 for item_id, _ in items if item_id in done)
        if reused:
            log.info("%s: resuming, %d of %d items already done", stage, reused, len(items))

        def _retry_condition(_task: Any, _run: Any, state: Any) -> bool:
            try:
                state.result()
            except retry_on:
                return True
            except BaseException:
                return False
            return False

        item_task = task(
            name=f"{stage}-item",
            retries=retries,
            retry_delay_seconds=retry_delay,
            retry_condition_fn=_retry_condition,
            cache_policy=NO_CACHE,
            persist_result=False,
        )(work)
        records: list[dict[str, Any]] = []
        failures: list[dict[str, str]] = []
        fresh = 0
        for n, (item_id, payload) in enumerate(items, start=1):
            if item_id in done:
                records.append(done[item_id])
                continue
            t0 = time.monotonic()
            try:
                record = item_task.with_options(task_run_name=f"{stage}-{item_id}")(payload)
            except Exception as exc:  # noqa: BLE001 - every failure is recorded with its reason, never dropped
                reason = f"{type(exc).__name__}: {exc}"[:500]
                journal.append(item_id, "failed", reason=reason)
                failures.append({"item": item_id, "reason": reason})
                log.warning("%s: item %s failed: %s", stage, item_id, reason)
            else:
                problem = record_problem(record, schema) if schema else None
                if problem:
                    # Checked per item so one bad answer cannot sink the stage at write time (or be reused).
                    reason = f"invalid {schema} record: {problem}"[:500]
                    journal.append(item_id, "failed", reason=reason)
                    failures.append({"item": item_id, "reason": reason})
                    log.warning("%s: item %s failed: %s", stage, item_id, reason)
                else:
                    journal.append(item_id, "ok", record=record)
                    records.append(record)
            fresh += 1
            elapsed = time.monotonic() - started
            left = len(items) - n
            eta = elapsed / fresh * left if fresh else 0.0
            log.info("%s: %d/%d done (%d reused, %d failed) item %.1fs, ETA %s",
                     stage, n, len(items), reused, len(failures), time.monotonic() - t0, _fmt(eta))
        journal.close()
    return StageResult(stage, records, failures, reused, time.monotonic() - started, journal.path)


def write_summary(result: StageResult, **extra: Any) -> dict[str, Any]:
    """Write metrics/stages/<stage>.json (schema-checked) and return it."""
    summary = result.summary(**extra)
    write_json(project_dir() / "metrics" / "stages" / f"{result.stage}.json", summary, "stage_summary")
    return summary


def finish(result: StageResult, max_failure_share: float, commit: Callable[[], Any] | None = None,
           **extra: Any) -> dict[str, Any]:
    """Write the stage summary, fail above the allowed failure share, else `commit` outputs and drop the journal."""
    summary = write_summary(result, **extra)
    share = len(result.failures) / result.total if result.total else 0.0
    _logger().info("%s: %d items, %d ok, %d failed, %d reused, %.1fs", result.stage, result.total,
                   len(result.records), len(result.failures), result.reused, result.seconds)
    if share > max_failure_share:
        # Keep the journal (a rerun retries only the failed items) and the previous outputs (no partial file).
        raise StageFailed(f"stage '{result.stage}': {len(result.failures)}/{result.total} items failed "
                          f"({share:.0%} > allowed {max_failure_share:.0%}); see metrics/stages/{result.stage}.json")
    if commit is not None:
        commit()  # before the journal goes: a kill in between resumes from the journal
    if result.journal_path:
        result.journal_path.unlink(missing_ok=True)
    return summary


def _fmt(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}m{s:02d}s"
