"""LLMSettings: params.yaml `llm:` section and per-role overrides."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from llm.settings import ROLES, LLMSettings

PARAMS = Path(__file__).resolve().parents[2] / "params.yaml"


def test_project_params_load() -> None:
    section = yaml.safe_load(PARAMS.read_text())["llm"]
    s = LLMSettings.from_params(section)
    assert s.endpoint == section["endpoint"] and s.temperature == 0.0 and isinstance(s.timeout, float)


def test_role_overrides_and_subroles() -> None:
    s = LLMSettings.from_params({"max_tokens": 96, "roles": {"critic": {"max_tokens": 24},
                                                             "actor": {"temperature": 0.5},
                                                             "actor_hind": {"max_tokens": 10}}})
    assert s.for_role("critic").max_tokens == 24
    assert s.for_role("adapter").max_tokens == 96
    assert s.for_role("actor_gt").temperature == 0.5 and s.for_role("actor_gt").max_tokens == 96
    assert s.for_role("actor_hind").max_tokens == 10 and s.for_role("actor_hind").temperature == 0.5
    assert s.for_role("critic_sample").max_tokens == 96
    assert set(ROLES) == {"adapter", "actor", "critic", "generator", "reflect", "complete", "critic_sample"}


@pytest.mark.parametrize("bad", [{"tempreature": 0}, {"roles": {"planner": {}}}, {"roles": {"critic": {"x": 1}}},
                                 {"max_concurrency": 0}, {"roles": {"critic": {"roles": {}}}}])
def test_bad_params_fail_loudly(bad: dict) -> None:
    with pytest.raises(ValueError):
        LLMSettings.from_params(bad)


def test_unknown_role_rejected() -> None:
    with pytest.raises(ValueError):
        LLMSettings().for_role("planner")
