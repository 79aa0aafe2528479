"""Stages that call an LLM: how one is declared (LLMStage), the one client factory and the item engine they share
(retries, resume, lock, summary)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

from prefect import flow

from flows.runtime.execution import Execution
from flows.runtime.items import ItemJob, Planned, StagePlan, item_client, run_item, timed, warm_workers
from flows.runtime.params import StageParams, load_params, max_failure_share, on_bad, resume_key, stage_params
from flows.runtime.stage import finish, run_items, stage_lock
from flows.runtime.stage_io import file_digest
from flows.runtime.workspace import path, project_dir
from llm.client import LLMClient, LLMError
from llm.settings import LLMSettings
from pools.jsonl import write_jsonl
from pools.timing import Timed


def llm_client(params: dict[str, Any], cache_dir: Path | None = None) -> LLMClient:
    """The one way to build an LLM client: from params `llm:` (response cache in `cache_dir`, else the project's)."""
    return LLMClient(LLMSettings.from_params(params["llm"]), cache_dir=cache_dir)


def llm_errors() -> tuple[type[BaseException], ...]:
    """Exceptions an item is retried on: the LLM client's transient-fault error."""
    return (LLMError,)


@dataclass(frozen=True)
class LLMStage:
    """A dvc.yaml stage that writes one record per item made with an LLM, declared by what sets it apart: its
    `name`, `plan(params, policy)` (its items and the work on one; a module-level function, which a Dask worker
    rebuilds the plan from), the `inputs` the items read (their digests key the resume journal), the `out` file and
    the schema of its records (`record`). `then(params)`, if any, writes what the stage derives from its records
    once they are written (the probe's figures). The rest is the same for every such stage: `run`, `main`."""

    name: str
    plan: Callable[[StageParams, str], Planned]
    inputs: tuple[str, ...]
    out: str
    record: str
    then: Callable[[StageParams], None] | None = None

    def run(self, params: dict[str, Any], policy: str) -> dict[str, Any]:
        """The stage's flow: run the items, write `out` (and what `then` writes); return the stage summary."""
        params = stage_params(self.name, params)  # what dvc.yaml declares for the stage, and only that
        summary = run_llm_stage(self.name, params, StagePlan(self.plan, (params, policy)), self.out, self.record,
                                self.inputs)
        if self.then is not None:
            self.then(params)
        return summary

    def main(self, item: str | None = None, on_bad_record: str | None = None) -> None:
        """Entry point for `hindsight stage NAME`: `run` as a Prefect flow of the stage's name, on params.yaml."""
        def stage_flow(params: dict[str, Any], policy: str) -> dict[str, Any]:
            return self.run(params, policy)

        full = load_params()
        flow(name=self.name)(stage_flow)(full, on_bad(full, on_bad_record))


def run_llm_stage(
    stage: str,
    params: StageParams,
    plan: StagePlan,
    out: str,
    schema: str,
    inputs: tuple[str, ...],
) -> dict[str, Any]:
    """Run `work(client, payload)` on each item of `plan()` with retries and resume, write `out`, and return the
    stage summary.

    Items run as params `pipeline:` says (flows.runtime.execution): one at a time, `workers` threads sharing this
    process's client (its per-endpoint semaphore holds `llm.max_concurrency` across them), or on Dask, where
    each worker process rebuilds the stage from `plan`.
    `params`: the stage's StageParams (flows.runtime.params.stage_params); its declared values are the resume key.
    """
    planned = plan()
    execution = Execution.from_params(params)
    digests = file_digest(*inputs)
    import openai  # noqa: F401 - the SDK takes seconds to import: here, not inside the first wave of items

    # One lock over items, outputs and summary: a second run of the stage refuses, never interleaves its writes.
    with stage_lock(stage), llm_client(params) as client:
        mark = client.usage.snapshot()
        if execution.remote:
            job = ItemJob(stage, plan, dict(params["llm"]), digests, str(project_dir()))
            item_fn, bound = run_item, {"job": job}
            on_start = partial(warm_workers, job=job)
        else:
            def item_fn(payload: Any) -> Timed:
                view = item_client(client)
                try:
                    return timed(planned.work, view, payload)
                finally:  # the stage's totals
                    for record in view.usage.records():
                        client.usage.add(record)

            bound, on_start = {}, None
        result = run_items(
            stage, planned.items, item_fn, bound=bound, execution=execution, on_start=on_start,
            key=[resume_key(params), digests],
            retries=int(params["llm"].get("retries", 2)), retry_on=llm_errors(), schema=schema,
        )

        def commit() -> None:
            write_jsonl(path(out), result.records, schema)
            # What running the items measured, apart from the records (those are the same bytes on every run).
            write_jsonl(path(timing_file(stage)), result.timings, "timing")

        # On Dask the calls were made (and accounted) by the workers' clients: the summary counts what this
        # process saw; the workspace's call log (`hindsight llm stats`) has them all.
        return finish(result, max_failure_share(params), commit=commit, llm=client.usage.summary(since=mark),
                      quarantined=planned.quarantined, execution=execution.describe())


def timing_file(stage: str) -> str:
    """Workspace-relative path of a stage's timing lines (schema `timing`; pools/timing.py says why apart)."""
    return f"details/timing/{stage}.jsonl"
