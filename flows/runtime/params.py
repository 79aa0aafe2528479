"""Reading params.yaml: the one place flows learn their settings."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from flows.runtime.declared import declaration
from flows.runtime.workspace import project_dir


class ParamsError(ValueError):
    """params.yaml is missing, unreadable, or lacks a key a stage needs."""


def load_params(path: Path | str | None = None) -> dict[str, Any]:
    """Load params.yaml (default: the workspace's)."""
    path = Path(path) if path else project_dir() / "params.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParamsError(f"{path}: not found (run from the project root)") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: expected a mapping of sections, got {type(data).__name__}")
    return data


def section(params: dict[str, Any], name: str) -> dict[str, Any]:
    """One section of params.yaml; a clear error naming it when absent."""
    value = params.get(name)
    if not isinstance(value, dict):
        raise ParamsError(f"params.yaml: section '{name}' is missing or not a mapping")
    return value


def subset(params: dict[str, Any], *sections: str) -> dict[str, Any]:
    """Only the params sections a stage declares in dvc.yaml (so nothing undeclared can change its result)."""
    return {name: params[name] for name in sections if name in params}


def on_bad(params: dict[str, Any], flag: str | None) -> str:
    """The bad-record policy: the command-line flag, else params `pipeline.on_bad_record`, else fail."""
    return flag or (params.get("pipeline") or {}).get("on_bad_record", "fail")


def max_failure_share(params: dict[str, Any]) -> float:
    """Failed items a stage tolerates before exiting non-zero (params `pipeline.max_failure_share`)."""
    return float((params.get("pipeline") or {}).get("max_failure_share", 0.5))


# How a stage's items run (one at a time, threads, Dask): every stage reads them, none declares them, because the
# outputs are the same whatever runs the items (tests/pipeline/test_dvc_pipeline.py's RERUNS checks that).
RUN_ONLY: frozenset[str] = frozenset({"pipeline.workers", "pipeline.task_runner", "pipeline.dask_address"})
_MISSING = object()


class StageParams(dict):
    """A stage's params: what its dvc.yaml `params:` declares, plus the RUN_ONLY keys. It holds the declared values
    (iterate it, or `declared()`, for the resume key); reading any other key of params.yaml raises ParamsError,
    so no stage can depend on a key whose change would not rerun it."""

    def __init__(self, full: dict[str, Any], stage: str, declared: tuple[str, ...] | frozenset[str], where: str = ""):
        self.full, self.stage, self.declared_keys, self.where = full, stage, frozenset(declared), where
        content: dict[str, Any] = {}
        for key, value in full.items():
            dotted = f"{where}{key}"
            if self._covered(dotted):
                content[key] = value
            elif isinstance(value, dict) and any(d.startswith(dotted + ".") for d in self.declared_keys):
                content[key] = StageParams(value, stage, self.declared_keys, dotted + ".")
        super().__init__(content)

    def _covered(self, dotted: str) -> bool:
        return any(dotted == d or dotted.startswith(d + ".") for d in self.declared_keys)

    def _reach(self, key: Any) -> Any:
        """A key not among the declared values: a RUN_ONLY key (or the section on the way to one), absent, or an
        undeclared read (an error)."""
        if not isinstance(key, str) or key not in self.full:
            return _MISSING
        dotted = f"{self.where}{key}"
        if any(dotted == r or dotted.startswith(r + ".") for r in RUN_ONLY):
            return self.full[key]
        if isinstance(self.full[key], dict) and any(r.startswith(dotted + ".") for r in RUN_ONLY):
            return StageParams(self.full[key], self.stage, self.declared_keys, dotted + ".")
        raise ParamsError(f"stage '{self.stage}' reads params key '{dotted}', which dvc.yaml does not declare in "
                          f"stages.{self.stage}.params: declare it there (then changing it reruns the stage) "
                          "or stop reading it")

    def __missing__(self, key: Any) -> Any:
        value = self._reach(key)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        value = self._reach(key)
        return default if value is _MISSING else value

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._reach(key) is not _MISSING

    def declared(self) -> dict[str, Any]:
        """The declared values as plain data (what DVC tracks for the stage: its resume key, its manifests)."""
        return {k: v.declared() if isinstance(v, StageParams) else v for k, v in self.items()}


# Keys that choose which items evaluate runs, never what an item computes (an item is a task or game with its own
# seed): a run over more items, such as the 134 games after the 48, reuses those it shares with an earlier one.
SELECTS_ITEMS = ("evaluate.task_set", "evaluate.per_type", "evaluate.max_tasks", "evaluate.alfworld_per_type")


def resume_key(params: StageParams) -> dict[str, Any]:
    """The declared values an item's record depends on (part of a stage's resume key): all but `pipeline:`, which
    says how bad rows and failed items are handled, not what an item computes (so a stage stopped by
    max_failure_share resumes after the share is raised), and the SELECTS_ITEMS keys."""
    if not isinstance(params, StageParams):
        raise TypeError("a stage's params must come from flows.runtime.params.stage_params (or StageParams)")
    key = {k: v for k, v in params.declared().items() if k != "pipeline"}
    for dotted in SELECTS_ITEMS:
        section_name, leaf = dotted.split(".")
        if isinstance(key.get(section_name), dict):
            key[section_name] = {k: v for k, v in key[section_name].items() if k != leaf}
    return key


def stage_params(stage: str, params: dict[str, Any] | None = None, item: str | None = None) -> StageParams:
    """params.yaml (or `params`: all of it) as stage `stage` may read it: the keys its dvc.yaml entry declares
    (`item`: a foreach stage's key, e.g. the variant of `evaluate@hindsight`). A flow calls it on what it was given:
    Prefect hands a flow a plain copy of its parameters."""
    if isinstance(params, StageParams):
        params = params.full
    return StageParams(params if params is not None else load_params(), stage, declaration(stage, item).params)
