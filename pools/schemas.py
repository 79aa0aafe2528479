"""JSON Schema contracts of every artifact (files under schemas/), loaded once and checked record by record."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

# schemas/ sits at the project root (the contract is part of the repo, not of the package).
SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"


@dataclass(frozen=True)
class Violation:
    """One way a record breaks its schema: where in the record, where in the schema, what was expected."""

    field: str
    schema_path: str
    message: str

    def __str__(self) -> str:
        return f"field '{self.field or '<record>'}': {self.message} (schema path {self.schema_path})"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """Load schemas/<name>.schema.json."""
    path = SCHEMA_DIR / f"{name}.schema.json"
    if not path.exists():
        raise FileNotFoundError(f"no schema '{name}' at {path}")
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _registry() -> Registry:
    # Schemas refer to each other (common.schema.json) by their $id.
    resources = [Resource.from_contents(load_schema(p.name.removesuffix(".schema.json")))
                 for p in sorted(SCHEMA_DIR.glob("*.schema.json"))]
    return Registry().with_resources((r.contents["$id"], r) for r in resources)


@lru_cache(maxsize=None)
def _validator(name: str) -> Draft202012Validator:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=_registry())


def schema_version(name: str) -> str:
    """The version a schema file declares (its top-level `version`)."""
    return str(load_schema(name).get("version", "0"))


def violations(record: Any, name: str) -> list[Violation]:
    """Every way `record` breaks schema `name` (empty when valid), most specific first."""
    errors = sorted(_validator(name).iter_errors(record), key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    return [
        Violation(
            field="/".join(str(p) for p in e.absolute_path),
            schema_path=f"{name}.schema.json#/" + "/".join(str(p) for p in e.absolute_schema_path),
            message=_short(e.message),
        )
        for e in errors
    ]


def _short(message: str, limit: int = 200) -> str:
    # A 10 MB field would otherwise be echoed in full inside the error message.
    return message if len(message) <= limit else message[:limit] + f"... ({len(message)} chars)"
