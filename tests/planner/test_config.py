"""PlannerConfig: its defaults are params.yaml's values, and an unknown key is an error that names it."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from planner.config import (PLANNER_DEFAULTS, RELABEL_DEFAULTS, RETRIEVAL_DEFAULTS, SECTIONS, WORLD_DEFAULTS,
                            PlannerConfig)
from planner.scaffold.deviations import SCAFFOLD_KEYS

PARAMS = yaml.safe_load((Path(__file__).resolve().parents[2] / "params.yaml").read_text(encoding="utf-8"))


def test_the_code_defaults_are_params_yaml_s_values() -> None:
    """One fact in two places (the code's copy keeps DVC's declared dependencies sound), kept equal here."""
    for section, defaults in (("planner", PLANNER_DEFAULTS), ("retrieval", RETRIEVAL_DEFAULTS),
                              ("relabel", RELABEL_DEFAULTS), ("world", WORLD_DEFAULTS)):
        for key, value in defaults.items():
            if section == "planner" and key == "variant":
                continue  # the variant's name is set by from_params, not a params key
            assert PARAMS[section][key] == value, f"{section}.{key}: code {value!r}, params.yaml {PARAMS[section][key]!r}"
    for section in SECTIONS:  # every key of the three sections is a setting with a default
        known = set({"planner": PLANNER_DEFAULTS, "retrieval": RETRIEVAL_DEFAULTS, "relabel": RELABEL_DEFAULTS}[section])
        assert set(PARAMS[section]) - known - set(SCAFFOLD_KEYS) == set(), section
    assert dataclasses.asdict(PlannerConfig.from_params(PARAMS)) == dataclasses.asdict(PlannerConfig())


@pytest.mark.parametrize("section", SECTIONS)
def test_an_unknown_key_is_an_error_that_names_it(section: str) -> None:
    with pytest.raises(ValueError, match=rf"params.yaml: {section}\.beam_width is not a setting"):
        PlannerConfig.from_params({section: {"beam_width": 3}})


def test_a_cap_ends_episodes_only_before_the_planner_s_own() -> None:
    """collect.max_subgoals and probe.reference_max_subgoals: the smaller of the two caps holds."""
    cfg = PlannerConfig.from_params(PARAMS)
    assert cfg.capped(PARAMS["collect"]["max_subgoals"]).max_subgoals == 16 < cfg.max_subgoals
    assert cfg.capped(PARAMS["probe"]["reference_max_subgoals"]).max_subgoals == 12
    assert cfg.capped(None) is cfg and cfg.capped(cfg.max_subgoals + 5) is cfg
    short = dataclasses.replace(cfg, max_subgoals=3)
    assert short.capped(16).max_subgoals == 3  # a test's short episodes stay short
