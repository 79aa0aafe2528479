"""The registry of deviations (planner/scaffold/deviations.py) accounts for every key, and `planner.scaffold` decides
every rule that adds task knowledge: under `none` no such rule acts, under `full` all do, and a value a user sets
wins."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.config import PlannerConfig
from planner.scaffold.deviations import (AUTO, BY_KEY, DEVIATIONS, FAITHFUL, SCAFFOLD_KEYS, SECTIONS, STRUCTURED,
                                         markdown_table, paper_profile, rules_on)

ROOT = Path(__file__).resolve().parents[2]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
NOT_PARAMS = {"variant", "extra", "seed", "max_fails", "max_steps", "explore_budget", "backend", "alfworld_games",
              "alfworld_goal", "alfworld_view", "max_actions"}


def keys(params: dict[str, Any]) -> list[str]:
    """Every key of the registry's sections in a params dict, dotted."""
    return [f"{section}.{key}" for section in SECTIONS for key in params.get(section) or {}]


def test_every_key_is_a_deviation_or_follows_the_paper() -> None:
    missing = [k for k in keys(PARAMS) if k not in BY_KEY and k not in FAITHFUL]
    assert not missing, ("params.yaml keys neither in planner/scaffold/deviations.py's DEVIATIONS nor FAITHFUL: "
                         f"{missing}")
    # ... and every config field the planner reads (a key added in code only is a deviation too)
    sections = {"planner": "planner", "retrieval": "retrieval", "relabel": "relabel"}
    for name in PlannerConfig().as_dict():
        if name in NOT_PARAMS:
            continue
        where = [s for s in sections if f"{s}.{name}" in BY_KEY or f"{s}.{name}" in FAITHFUL]
        assert where, f"PlannerConfig's {name} is in no row of planner/scaffold/deviations.py"
    stale = [d.key for d in DEVIATIONS if d.key.split(".")[0] in SECTIONS and d.key not in keys(PARAMS)]
    assert not stale, f"rows for keys params.yaml no longer has: {stale}"


def test_faithful_keys_hold_the_papers_value_and_deviations_ours() -> None:
    for key, paper in FAITHFUL.items():
        if key in STRUCTURED:
            continue
        section, name = key.split(".", 1)
        assert PARAMS[section][name] == paper, f"{key} left the paper's value {paper!r}: add a row to DEVIATIONS"
    for d in DEVIATIONS:
        section, name = d.key.split(".", 1)
        want = AUTO if d.kind == "scaffold" else d.paper if d.opt_in else d.ours  # opt-in: the paper's by default
        assert PARAMS[section][name] == want, f"params.yaml {d.key}: {PARAMS[section][name]!r}, registry {want!r}"
        assert d.paper != d.ours, f"{d.key}: the paper's value and ours are the same: not a deviation"


def test_a_key_params_yaml_calls_ours_has_a_row() -> None:
    """A key whose comment says it is ours is a deviation: it needs a row."""
    section = None
    for line in (ROOT / "params.yaml").read_text(encoding="utf-8").splitlines():
        top = re.match(r"^(\w+):", line)
        if top:
            section = top.group(1)
        m = re.match(r"^  (\w+): [^#]*#\s*(.*)$", line)
        if section in SECTIONS and m and re.search(r"\bours\b", m.group(2)):
            key = f"{section}.{m.group(1)}"
            assert key in BY_KEY, f"params.yaml says {key} departs from the paper: add it to DEVIATIONS"


def test_the_switch_decides_every_scaffold_rule() -> None:
    paper = PlannerConfig.from_params({**PARAMS, "planner": {**PARAMS["planner"], "scaffold": "none"}})
    ours = PlannerConfig.from_params({**PARAMS, "planner": {**PARAMS["planner"], "scaffold": "full"}})
    for key in SCAFFOLD_KEYS:
        row = BY_KEY[f"planner.{key}"]
        assert paper.as_dict()[key] == row.paper and ours.as_dict()[key] == row.ours, key
    assert rules_on(paper.as_dict()) == []
    assert set(rules_on(ours.as_dict())) == set(SCAFFOLD_KEYS)
    # A value a user sets wins over the switch.
    mixed = PlannerConfig.from_params({**PARAMS, "planner": {**PARAMS["planner"], "scaffold": "none",
                                                             "goal_gate": True}})
    assert mixed.legal.goal_gate is True and rules_on(mixed.as_dict()) == ["goal_gate"]
    with pytest.raises(ValueError, match="planner.scaffold"):
        PlannerConfig.from_params(scaffold="some")


def test_deviations_table_is_the_registrys() -> None:
    text = (ROOT / "docs" / "deviations.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- deviations:begin -->\n(.*?)<!-- deviations:end -->", text, re.S)
    assert block, "docs/deviations.md has no <!-- deviations:begin --> ... <!-- deviations:end --> block"
    assert block.group(1) == markdown_table(), "docs/deviations.md is stale: `hindsight deviations --md`"


def _profile(name: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "profiles" / name).read_text(encoding="utf-8"))


def test_paper_profile_holds_the_papers_values() -> None:
    # paper.yaml is the paper's setup sized for a laptop; paper_endpoint.yaml, applied after it, restores the sizes
    # it cuts (and only those): together they hold every paper value of the registry.
    profile, endpoint = _profile("paper.yaml"), _profile("paper_endpoint.yaml")
    merged = {s: {**(profile.get(s) or {}), **(endpoint.get(s) or {})} for s in {*profile, *endpoint}}
    for section, values in paper_profile().items():
        for key, value in values.items():
            assert merged[section][key] == value, f"profiles/paper*.yaml {section}.{key}: want the paper's {value!r}"
    for section in SECTIONS:
        for key, value in (profile.get(section) or {}).items():
            row = BY_KEY.get(f"{section}.{key}")
            restored = key in (endpoint.get(section) or {})
            assert row is None or row.kind not in ("scaffold", "size") or value == row.paper or restored, \
                f"profiles/paper.yaml sets {section}.{key}={value!r}, not the paper's {row.paper!r}"
        for key in endpoint.get(section) or {}:
            row = BY_KEY.get(f"{section}.{key}")
            assert row is not None and row.kind == "size", \
                f"profiles/paper_endpoint.yaml may restore only the paper's sizes, not {section}.{key}"
    for name, definition in profile["evaluate"]["variants"].items():
        scaffold = (definition.get("planner") or {}).get("scaffold", "none")
        assert scaffold == "none", f"profiles/paper.yaml variant {name} runs the scaffold"
