"""What every stage flow shares: inputs read under their schema, the LLM client, pools written with manifests."""
from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from flows.env import project_dir
from pools.jsonl import ReadResult, read_jsonl, write_json, write_jsonl
from pools.manifest import build_manifest

if TYPE_CHECKING:
    from flows.items import StagePlan

TASKS = "data/tasks.jsonl"
GT_POOL = "data/pools/gt.jsonl"
HINDSIGHT_POOL = "data/pools/hindsight.jsonl"
ROLLOUTS = "data/relabel/rollouts.jsonl"
REFLECTIONS = "data/relabel/reflections.jsonl"
COMPLETIONS = "data/relabel/completions.jsonl"
CRITIC_SAMPLES = "data/relabel/critic_samples.jsonl"


def path(rel: str) -> Path:
    """Absolute path of a workspace-relative file."""
    return project_dir() / rel


def subset(params: dict[str, Any], *sections: str) -> dict[str, Any]:
    """Only the params sections a stage declares in dvc.yaml (so nothing undeclared can change its result)."""
    return {name: params[name] for name in sections if name in params}


def on_bad(params: dict[str, Any], flag: str | None) -> str:
    """The bad-record policy: the command-line flag, else params `pipeline.on_bad_record`, else fail."""
    return flag or (params.get("pipeline") or {}).get("on_bad_record", "fail")


def read_input(rel: str, schema: str, policy: str) -> ReadResult:
    """Read a stage input under its schema (bad rows fail the stage or go to quarantine)."""
    return read_jsonl(path(rel), schema, on_bad=policy)  # type: ignore[arg-type]


def file_digest(*rels: str) -> dict[str, str]:
    """SHA-256 of input files (part of a stage's resume key)."""
    return {rel: hashlib.sha256(path(rel).read_bytes()).hexdigest() for rel in rels}


def max_failure_share(params: dict[str, Any]) -> float:
    """Failed items a stage tolerates before exiting non-zero (params `pipeline.max_failure_share`)."""
    return float((params.get("pipeline") or {}).get("max_failure_share", 0.5))


def llm_client(params: dict[str, Any], cache_dir: Path | None = None):  # -> LLMClient (imported lazily: heavy)
    """The one way to build an LLM client: from params `llm:` (response cache in `cache_dir`, else the project's)."""
    from planner.llm.client import LLMClient
    from planner.llm.settings import LLMSettings

    return LLMClient(LLMSettings.from_params(params["llm"]), cache_dir=cache_dir)


def write_pool(name: str, records: Iterable[dict[str, Any]], used_params: dict[str, Any],
               models: dict[str, dict[str, str]] | None, quarantined: int = 0) -> dict[str, Any]:
    """Write data/pools/<name>.jsonl and its manifest (`models`: role -> model that contributed); returns it."""
    rows = sorted(records, key=lambda r: r["id"])
    write_jsonl(path(f"data/pools/{name}.jsonl"), rows, "sample")
    manifest = build_manifest(name, rows, "sample", used_params, models, quarantined)
    write_json(path(f"data/pools/{name}.manifest.json"), manifest, "manifest")
    return manifest


def llm_errors() -> tuple[type[BaseException], ...]:
    """Exceptions an item is retried on: the LLM client's transient-fault error."""
    from planner.llm.client import LLMError

    return (LLMError,)


def run_llm_stage(
    stage: str,
    params: dict[str, Any],
    sections: tuple[str, ...],
    items: list[tuple[str, Any]],
    work: Callable[[Any, Any], dict[str, Any]],
    out: str,
    schema: str,
    inputs: tuple[str, ...],
    quarantined: int = 0,
    plan: "StagePlan | None" = None,
) -> dict[str, Any]:
    """Run `work(client, payload)` per item with retries and resume, write `out`, and return the stage summary.

    Items run as params `pipeline:` says (flows.execution): one at a time, `workers` threads sharing this
    process's client (its per-endpoint semaphore holds `llm.max_concurrency` across them), or on Dask, where
    each worker process rebuilds the stage from `plan` (required there: `work` is a closure over this process).
    """
    from flows.execution import Execution
    from flows.items import ItemJob, item_client, run_item, warm_workers
    from flows.params import ParamsError
    from flows.stage import finish, run_items, stage_lock

    execution = Execution.from_params(params)
    digests = file_digest(*inputs)
    if execution.remote and plan is None:
        raise ParamsError(f"stage '{stage}' cannot run on Dask (its items are not described by a StagePlan); "
                          "use pipeline.task_runner: threads")
    import openai  # noqa: F401 - its first import takes seconds: here, not inside the first wave of items

    # One lock over items, outputs and summary: a second run of the stage refuses, never interleaves its writes.
    with stage_lock(stage), llm_client(params) as client:
        mark = client.usage.snapshot()
        if execution.remote:
            assert plan is not None
            job = ItemJob(stage, plan, dict(params["llm"]), digests, str(project_dir()))
            item_fn, bound = run_item, {"job": job}
            on_start = partial(warm_workers, job=job)
        else:
            def item_fn(payload: Any) -> dict[str, Any]:
                view = item_client(client)
                try:
                    return work(view, payload)
                finally:  # the stage's totals
                    for record in view.usage.records():
                        client.usage.add(record)

            bound, on_start = {}, None
        result = run_items(
            stage, items, item_fn, bound=bound, execution=execution, on_start=on_start,
            key=[subset(params, *sections), digests],
            retries=int(params["llm"].get("retries", 2)), retry_on=llm_errors(), schema=schema,
        )
        # On Dask the calls were made (and accounted) by the workers' clients: the summary counts what this
        # process saw; the workspace's call log (`hindsight llm stats`) has them all.
        return finish(result, max_failure_share(params), commit=lambda: write_jsonl(path(out), result.records, schema),
                      llm=client.usage.summary(since=mark), quarantined=quarantined, execution=execution.describe())
