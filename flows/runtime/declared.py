"""What dvc.yaml declares of each stage (deps, params, outs), read from dvc.yaml itself: the one source.

The stages take their input and output paths and the params keys they may read from here, so a declaration cannot
drift from the code: a path is written once (in dvc.yaml), and reading an undeclared params key fails the stage
(flows.runtime.params.StageParams).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from flows.runtime.workspace import PROJECT_ROOT, project_dir

_ITEM = re.compile(r"\$\{(item|key)(?:\.(\w+))?\}")


class DeclarationError(ValueError):
    """dvc.yaml lacks a stage, or declares it in a form this code does not read."""


@dataclass(frozen=True)
class Declaration:
    """One stage of dvc.yaml: its deps, its params keys (dotted, or whole sections) and its outs."""

    stage: str
    deps: tuple[str, ...]
    params: tuple[str, ...]
    outs: tuple[str, ...]


def dvc_yaml() -> Path:
    """The workspace's dvc.yaml (what `dvc repro` runs), else the one beside this code."""
    own = project_dir() / "dvc.yaml"
    return own if own.exists() else PROJECT_ROOT / "dvc.yaml"


@lru_cache(maxsize=4)
def _stages(file: str, mtime_ns: int) -> dict[str, Any]:
    stages = (yaml.safe_load(Path(file).read_text(encoding="utf-8")) or {}).get("stages")
    if not isinstance(stages, dict):
        raise DeclarationError(f"{file}: expected a mapping 'stages:'")
    return stages


def _paths(entries: list[Any] | None, where: str) -> tuple[str, ...]:
    out = []
    for entry in entries or []:
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict) and len(entry) == 1:  # `- path: {cache: false}`
            out.append(next(iter(entry)))
        else:
            raise DeclarationError(f"{where}: expected a path or {{path: options}}, got {entry!r}")
    return tuple(out)


def _params(entries: list[Any] | None, where: str) -> tuple[str, ...]:
    out: list[str] = []
    for entry in entries or []:
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict) and set(entry) == {"params.yaml"} and isinstance(entry["params.yaml"], list):
            out.extend(str(k) for k in entry["params.yaml"])
        else:
            raise DeclarationError(f"{where}: expected a params.yaml key, got {entry!r}")
    return tuple(out)


def _fill(text: str, item: str | dict[str, str] | None, where: str, key: str | None = None) -> str:
    """`${item}`, `${item.a}` (pass the item, or a dict) and `${key}` (a dict foreach's key)."""
    def sub(m: re.Match[str]) -> str:
        if m.group(1) == "key":
            value: Any = key if key is not None else item
        else:
            value = item.get(m.group(2)) if isinstance(item, dict) and m.group(2) else item
        if not isinstance(value, str):
            raise DeclarationError(f"{where}: {m.group(0)} needs the stage's foreach item, got {item!r}")
        return value
    return _ITEM.sub(sub, text)


def _foreach_entry(foreach: Any, key: str, where: str) -> Any:
    """The value of `key` in a dict foreach that reads params (`foreach: ${evaluate.variants}`), from params.yaml."""
    m = re.fullmatch(r"\$\{([\w.]+)\}", foreach) if isinstance(foreach, str) else None
    if not m:
        return None
    # Read as DVC resolves the interpolation, from params.yaml itself (flows.runtime.params reads this module).
    file = project_dir() / "params.yaml"
    try:
        node: Any = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DeclarationError(f"{where}: cannot read {file} for {foreach}: {exc}") from None
    for part in m.group(1).split("."):
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        return None  # a list foreach: the item is the value itself
    if key not in node:
        raise DeclarationError(f"{where}: no '{key}' in params {m.group(1)} (there: {', '.join(map(str, node))})")
    return node[key]


def declaration(stage: str, item: str | dict[str, str] | None = None) -> Declaration:
    """A stage's declaration; `item` fills a foreach stage's ${item} (or ${item.a}: pass a dict); for a foreach over
    a params dict (evaluate.variants), `item` is the key: ${key} is it and ${item.a} reads its value in params.yaml."""
    file = dvc_yaml()
    stages = _stages(str(file), file.stat().st_mtime_ns)
    if stage not in stages:
        raise DeclarationError(f"{file}: no stage '{stage}' (stages: {', '.join(stages)})")
    entry = stages[stage]
    body = entry.get("do", entry) if isinstance(entry, dict) else entry
    where = f"{file}: stages.{stage}"
    if not isinstance(body, dict):
        raise DeclarationError(f"{where}: expected a mapping")
    key = None
    if isinstance(item, str) and isinstance(entry, dict) and "foreach" in entry:
        value = _foreach_entry(entry["foreach"], item, where)
        if isinstance(value, dict):  # a dict foreach: ${key} is the name, ${item.x} its definition's keys
            key, item = item, {k: str(v) for k, v in value.items() if isinstance(v, (str, int, float, bool))}
    fill = (lambda paths: tuple(_fill(p, item, where, key) for p in paths)) if item is not None \
        else (lambda paths: paths)
    return Declaration(stage, fill(_paths(body.get("deps"), f"{where}.deps")),
                       fill(_params(body.get("params"), f"{where}.params")),
                       fill(_paths(body.get("outs"), f"{where}.outs")))


def output(stage: str, item: str | dict[str, str] | None = None) -> str:
    """A stage's first declared output (its data file), workspace-relative."""
    outs = declaration(stage, item).outs
    if not outs:
        raise DeclarationError(f"{dvc_yaml()}: stages.{stage} declares no outs")
    return outs[0]
