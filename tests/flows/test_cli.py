"""Small command-line pieces: profiles to `-S` arguments, stage errors, params errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.main import main
from flows.runtime.params import ParamsError, load_params, section
from tests.profiles import with_profile

ROOT = Path(__file__).resolve().parents[2]


def test_profile_prints_set_params(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", str(ROOT / "profiles" / "paper.yaml")]) == 0
    out = capsys.readouterr().out.split()
    assert "pools.gt_per_type=20" in out and "evaluate.per_type=1" in out and "'" not in " ".join(out)
    assert main(["profile", str(ROOT / "profiles" / "paper_endpoint.yaml")]) == 0  # the full splits, for an endpoint
    assert "evaluate.per_type=0" in capsys.readouterr().out.split()


def test_profile_overrides_parse_back_to_the_profiles_values(capsys: pytest.CaptureFixture[str]) -> None:
    # `dvc exp run -S` reads Hydra's override grammar: JSON's quoted mapping keys were a syntax error there
    # (evaluate.compare), so every profile's arguments are parsed here by the parser dvc uses.
    import yaml
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from flows.cli.cmd_profile import flatten

    parser = OverridesParser.create()
    for prof in sorted((ROOT / "profiles").glob("*.yaml")):
        assert main(["profile", str(prof)]) == 0
        args = capsys.readouterr().out.split()
        assert all(a == "-S" for a in args[::2])
        got = {o.key_or_group: o.value() for o in parser.parse_overrides(args[1::2])}
        assert got == dict(flatten(yaml.safe_load(prof.read_text(encoding="utf-8")))), prof.name
    values = ["a b", "true", "007", "x,y", "http://h:1/v1", None, [1, "two words"], {"k": ["gt", "hind"]}]
    from flows.cli.cmd_profile import override_value
    for value in values:
        assert parser.parse_override(f"k={override_value(value)}").value() == value, value


def test_every_profile_applies_through_dvcs_set_param(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    # `dvc exp run -S` refuses a plain override of a key params.yaml lacks (a profile's new variant): `++` adds it
    import yaml
    from dvc.utils.hydra import apply_overrides

    from flows.cli.cmd_profile import flatten

    for prof in sorted((ROOT / "profiles").glob("*.yaml")):
        assert main(["profile", str(prof)]) == 0
        args = capsys.readouterr().out.split()
        target = tmp_path / f"{prof.stem}.yaml"
        target.write_text((ROOT / "params.yaml").read_text())
        apply_overrides(target, args[1::2])
        applied = yaml.safe_load(target.read_text())
        for key, value in flatten(yaml.safe_load(prof.read_text())):
            node = applied
            for part in key.split("."):
                node = node[part]
            assert node == value, (prof.name, key)


def test_every_profile_key_exists_in_params() -> None:
    import yaml

    from flows.cli.cmd_profile import flatten
    from planner.variants import Variant

    params = load_params(ROOT / "params.yaml")
    profiles = sorted((ROOT / "profiles").glob("*.yaml"))
    assert profiles, "no profiles found"
    for prof in profiles:
        tree = yaml.safe_load(prof.read_text())
        # A profile may add variants (a whole definition) or set keys of one params.yaml has (applied key by key,
        # so it is checked merged with that definition).
        for name, definition in ((tree.get("evaluate") or {}).pop("variants", None) or {}).items():
            base = params["evaluate"]["variants"].get(name, {})
            Variant.parse(name, with_profile(base, definition), where=f"{prof.name}: evaluate.variants")
        # evaluate.world holds world keys for the evaluation alone
        for key in ((tree.get("evaluate") or {}).pop("world", None) or {}):
            assert key in params["world"], f"{prof.name}: evaluate.world.{key} is not a key of world"
        keys = [key for key, _ in flatten(tree)]
        assert keys, f"{prof.name}: no keys"
        for key in keys:
            *parents, leaf = key.split(".")
            node = params
            for part in parents:
                assert isinstance(node, dict) and part in node, f"{prof.name}: {key}: no section {part!r}"
                node = node[part]
            assert isinstance(node, dict), f"{prof.name}: {key}"
            # A role override may set any key of the llm section (llm.roles.reflect is {} until overridden).
            allowed = set(params["llm"]) if parents[:2] == ["llm", "roles"] and len(parents) == 3 else set(node)
            assert leaf in allowed, f"{prof.name}: {key}: {leaf!r} is not a key of params.yaml"


def test_params_errors_name_the_file_and_section(tmp_path: Path) -> None:
    bad = tmp_path / "params.yaml"
    bad.write_text("world: [1, 2\n")
    with pytest.raises(ParamsError, match="params.yaml: not valid YAML"):
        load_params(bad)
    with pytest.raises(ParamsError, match="section 'llm' is missing"):
        section({"world": {}}, "llm")


def test_endpoint_profile_moves_every_pinned_role(capsys: pytest.CaptureFixture[str]) -> None:
    params = load_params(ROOT / "params.yaml")
    pinned = [r for r, o in params["llm"]["roles"].items() if o]
    assert main(["profile", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]) == 0
    out = capsys.readouterr().out.split()
    for role in pinned:
        for key in params["llm"]["roles"][role]:
            assert f"llm.roles.{role}.{key}=" + ("m" if key == "model" else "http://127.0.0.1:9/v1") in out
    assert main(["profile"]) == 2
