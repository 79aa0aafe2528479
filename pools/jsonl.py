"""Schema-checked JSONL and JSON files: validated on write and on read, written atomically.

A record (pools/records.py RECORDS) is checked by its model; any other artifact by its schema file (pools/schemas.py),
after its model where that is the file's whole contract (MODEL_CHECKED).
A record that breaks its model is named by the first violation of its schema file, which the model generates (the
same rules, with the field's path and what was expected), else by the model's own error.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from pools.artifacts import Task
from pools.records import RECORDS
from pools.schemas import violations

OnBad = Literal["fail", "quarantine"]
# Artifacts whose model is their schema file's whole contract (strict and closed; the file is generated from it):
# what the model accepts, the file does, in microseconds where the file takes a millisecond (every stage reads the
# 2,000 tasks). What the model rejects goes to the file, which decides and words the error.
MODEL_CHECKED: dict[str, type[BaseModel]] = {"task": Task}
MAX_LINE_BYTES = 1_000_000  # a line past this is rejected before parsing (a runaway 10 MB instruction)


class RecordError(ValueError):
    """A record that breaks its contract; the message names file, line, field and what was expected."""

    def __init__(self, path: Path | str, line: int | None, problem: str):
        self.path, self.line, self.problem = str(path), line, problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


@dataclass
class ReadResult:
    """Valid records of a file (typed records from `read_records`, JSON objects from `read_jsonl`) and the rows it
    rejected (quarantine mode)."""

    records: list[Any]
    rejected: list[dict[str, Any]] = field(default_factory=list)


def quarantine_path(path: Path) -> Path:
    """Side file holding the rows rejected from `path` with their reasons."""
    return path.with_name(path.name + ".rejected.jsonl")


@lru_cache(maxsize=None)
def _record_type(schema: str) -> TypeAdapter | None:
    kind = RECORDS.get(schema)
    return None if kind is None else TypeAdapter(kind)


def _checked(obj: Any, schema: str) -> tuple[str | None, Any]:
    """(why `obj`, a JSON value, breaks `schema`, or None; the record it is: a typed record where `schema` is a
    record's, else `obj`)."""
    kind = _record_type(schema)
    if kind is None:
        if schema in MODEL_CHECKED:
            try:
                MODEL_CHECKED[schema].model_validate(obj)
                return None, obj
            except ValidationError:
                pass
        found = violations(obj, schema)
        return (str(found[0]) if found else None), obj
    try:
        return None, kind.validate_python(obj)
    except ValidationError as exc:
        found = violations(obj, schema)
        return (str(found[0]) if found else _model_problem(exc)), None


def _model_problem(exc: ValidationError) -> str:
    # A rule of the model its schema file does not state (strict types: 2.0 is no integer here): its own words.
    error = exc.errors(include_url=False)[0]
    where = "/".join(str(p) for p in error["loc"])
    return f"field '{where or '<record>'}': {error['msg']}"


def _problem(obj: Any, schema: str) -> str | None:
    return _checked(obj, schema)[0]


def as_record(obj: Any, schema: str) -> Any:
    """A record's JSON value, already checked (a journal's, a pool's at a revision), as its typed record."""
    return _record_type(schema).validate_python(obj)  # type: ignore[union-attr]


def plain(record: Any) -> Any:
    """A typed record as its JSON value (anything else as it is)."""
    # No serializer warnings: a record built with a wrong type is checked right after, and named by its field.
    return record.model_dump(warnings=False) if isinstance(record, BaseModel) else record


def record_problem(record: Any, schema: str) -> str | None:
    """Why `record` (typed, or its JSON value) could not be written as one JSONL row of `schema` (it breaks the
    schema, or is oversize), else None."""
    record = plain(record)
    problem = _problem(record, schema)
    if problem:
        return problem
    size = len(_dumps(record).encode("utf-8")) + 1
    if size > MAX_LINE_BYTES:
        # Readers reject such lines, so a writer must not produce them.
        return f"record is {size:,} bytes as one line, over the {MAX_LINE_BYTES:,}-byte limit"
    return None


def _dumps(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True)


def read_records(path: Path | str, schema: str, on_bad: OnBad = "fail") -> ReadResult:
    """Read a JSONL file of records as typed records (pools/records.py RECORDS[schema]), each checked by its model;
    reject bad rows or raise RecordError."""
    if schema not in RECORDS:
        raise ValueError(f"'{schema}' is not a record schema (read it with read_jsonl)")
    return _read(Path(path), schema, on_bad, "id", typed=True)


def read_jsonl(path: Path | str, schema: str, on_bad: OnBad = "fail", id_field: str | None = "id") -> ReadResult:
    """Read a JSONL file as JSON objects, validating each line against `schema`; reject bad rows or raise
    RecordError."""
    return _read(Path(path), schema, on_bad, id_field, typed=False)


def _read(path: Path, schema: str, on_bad: OnBad, id_field: str | None, typed: bool) -> ReadResult:
    if not path.exists():
        raise RecordError(path, None, "file not found (run the stage that writes it: `dvc repro`)")
    good: list[dict[str, Any]] = []
    bad: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            problem, obj, record = _parse_line(raw, schema)
            if problem is None and id_field and isinstance(obj, dict):
                rid = obj.get(id_field)
                if rid in seen:
                    problem = f"field '{id_field}': duplicate id {rid!r} (first on line {seen[rid]})"
                else:
                    seen[rid] = lineno
            if problem is None:
                good.append(record if typed else obj)
                continue
            if on_bad == "fail":
                raise RecordError(path, lineno, problem)
            bad.append({"file": str(path), "line": lineno, "reason": problem, "raw": raw[:2000].decode("utf-8", "replace")})
    if bad:
        _write_lines(quarantine_path(path), (json.dumps(b, ensure_ascii=False) for b in bad))
    else:
        quarantine_path(path).unlink(missing_ok=True)  # a side file from an earlier, dirtier input is stale now
    return ReadResult(good, bad)


def _parse_line(raw: bytes, schema: str) -> tuple[str | None, Any, Any]:
    """(why the line is bad or None, its JSON value, its record)."""
    if len(raw) > MAX_LINE_BYTES:
        return f"line is {len(raw):,} bytes, over the {MAX_LINE_BYTES:,}-byte limit", None, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 ({exc.reason} at byte {exc.start})", None, None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno}); truncated line?", None, None
    problem, record = _checked(obj, schema)
    return problem, obj, record


def write_jsonl(path: Path | str, records: Iterable[Any], schema: str) -> int:
    """Validate every record (typed, or its JSON value), then write them all atomically (temp file + rename);
    returns the count."""
    path = Path(path)
    rows = [plain(r) for r in records]
    for i, record in enumerate(rows, start=1):
        problem = record_problem(record, schema)
        if problem:
            raise RecordError(path, i, f"refusing to write: {problem}")
    _write_lines(path, (_dumps(r) for r in rows))
    return len(rows)


def write_json(path: Path | str, obj: dict[str, Any], schema: str) -> None:
    """Validate one JSON document and write it atomically."""
    path = Path(path)
    problem = _problem(obj, schema)
    if problem:
        raise RecordError(path, None, f"refusing to write: {problem}")
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def read_json(path: Path | str, schema: str) -> dict[str, Any]:
    """Read one JSON document and validate it."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(path, None, "file not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(path, None, f"not valid JSON: {exc}") from None
    problem = _problem(obj, schema)
    if problem:
        raise RecordError(path, None, problem)
    return obj


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    atomic_write_text(path, "".join(line + "\n" for line in lines))


def atomic_write_text(path: Path, text: str) -> None:
    """Write text to a temp file beside `path`, fsync, then rename over it (readers never see half a file)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write bytes to a temp file beside `path`, fsync, then rename over it (readers never see half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
