"""PlannerConfig: params.yaml is the one source of its defaults, and an unknown key is an error that names it."""
from __future__ import annotations

import dataclasses

import pytest
import yaml

from planner.config import PARAMS_FILE, SECTIONS, WORLD_KEYS, PlannerConfig


def test_every_default_is_params_yaml_s_value() -> None:
    params = yaml.safe_load(PARAMS_FILE.read_text(encoding="utf-8"))
    built, bare = PlannerConfig.from_params(params), PlannerConfig()
    assert dataclasses.asdict(built) == dataclasses.asdict(bare)
    names = {f.name for f in dataclasses.fields(PlannerConfig)}
    for section in SECTIONS:  # every key of the three sections is a setting, and nothing else is
        assert set(params[section]) <= names, section
    assert set(names) - {k for s in SECTIONS for k in params[s]} - set(WORLD_KEYS) == {"variant"}


@pytest.mark.parametrize("section", SECTIONS)
def test_an_unknown_key_is_an_error_that_names_it(section: str) -> None:
    with pytest.raises(ValueError, match=rf"params.yaml: {section}\.beam_width is not a setting"):
        PlannerConfig.from_params({section: {"beam_width": 3}})
