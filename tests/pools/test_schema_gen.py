"""schemas/ is generated from the models of pools/records.py and pools/artifacts.py: a committed file that differs
from its model fails here."""
from __future__ import annotations

import dataclasses
import json
import shutil
import typing
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from household.world.ontology import OBJECTS, RECEPTACLES, TASK_TYPES
from household.world.tasks import SPLITS, TaskArgs
from pools import artifacts, schema_gen
from pools.schemas import SCHEMA_DIR


@pytest.mark.parametrize("name", schema_gen.names())
def test_committed_schema_is_its_generated_text(name: str) -> None:
    path = SCHEMA_DIR / f"{name}.schema.json"
    model = "artifacts.COMMON" if name == "common" else (
        f"{schema_gen.ARTIFACTS[name].__module__.removeprefix('pools.')}.{schema_gen.ARTIFACTS[name].__name__}")
    assert path.exists(), f"schemas/{path.name} is missing; generate it with: {schema_gen.REGENERATE}"
    assert path.read_text(encoding="utf-8") == schema_gen.render(name), (
        f"schemas/{path.name} differs from its model (pools/{model}): edit the model, not the file, then "
        f"regenerate with: {schema_gen.REGENERATE}")


def test_every_schema_file_is_generated() -> None:
    made = {f"{n}.schema.json" for n in schema_gen.names()}
    extra = sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json") if p.name not in made)
    assert not extra, f"schemas/ files no model generates: {extra} (add a model to pools/schema_gen.py ARTIFACTS)"


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_generated_schemas_are_valid_and_their_refs_resolve() -> None:
    schemas = {n: schema_gen.generate(n) for n in schema_gen.names()}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)
        resolver = registry.resolver(base_uri=schema["$id"])
        for ref in _refs(schema):
            resolver.lookup(ref)  # raises on a $ref to nothing
        assert schema["$id"].endswith(f"/{name}.schema.json") and (name == "common" or schema.get("title"))
        assert schema["version"], name


def _literal_values(tp: Any) -> tuple[Any, ...]:
    """The values of a Literal type, under any Annotated."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return typing.get_args(tp)


def test_common_definitions_match_the_household_package() -> None:
    defs = artifacts.common_defs()
    assert _literal_values(defs["task_type"]) == TASK_TYPES
    assert _literal_values(defs["class_name"]) == ("", *sorted(OBJECTS | RECEPTACLES))
    assert tuple(artifacts.TaskArgs.model_fields) == tuple(f.name for f in dataclasses.fields(TaskArgs))
    assert typing.get_args(artifacts.Split) == SPLITS


def test_check_names_the_stale_file_and_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(SCHEMA_DIR, tmp_path, dirs_exist_ok=True)
    schema = json.loads((tmp_path / "rollout.schema.json").read_text())
    schema["properties"]["seed"]["minimum"] = 0  # a hand edit
    (tmp_path / "rollout.schema.json").write_text(json.dumps(schema))
    (tmp_path / "orphan.schema.json").write_text("{}")
    assert schema_gen.main(["--check", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "rollout.schema.json: differs from its model" in err and "orphan.schema.json: no model" in err
    assert schema_gen.REGENERATE in err
    assert "minimum" in (tmp_path / "rollout.schema.json").read_text()  # --check writes nothing

    (tmp_path / "orphan.schema.json").unlink()
    assert schema_gen.main(["--dir", str(tmp_path)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert schema_gen.main(["--check", "--dir", str(tmp_path)]) == 0
