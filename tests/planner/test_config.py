"""PlannerConfig: its defaults are params.yaml's values, each key of params.yaml's planner sections is held by exactly
one part, and an unknown key is an error that names it."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from planner.config import (KNOWN, PARTS, ROUTE, SECTIONS, AdapterConfig, EpisodeConfig, LegalConfig,
                            PlannerConfig, RelabelConfig, RetrievalConfig, SearchConfig, WorldConfig)
from planner.scaffold.deviations import AUTO, SCAFFOLD_KEYS

PARAMS = yaml.safe_load((Path(__file__).resolve().parents[2] / "params.yaml").read_text(encoding="utf-8"))


def test_the_defaults_are_params_yaml_s_values() -> None:
    """One fact in one place: every part's defaults are its params.yaml section's values (the scaffold's keys read
    `auto` there, resolved by `scaffold`, which is params.yaml's too)."""
    cfg = PlannerConfig()
    assert cfg.scaffold == PARAMS["planner"]["scaffold"]
    for name, part in PARTS.items():
        for key in part.keys():
            want = PARAMS[part.SECTION][key]
            got = getattr(part(), key)
            assert got == want, f"{part.__name__}.{key}: {got!r}, params.yaml {part.SECTION}.{key}: {want!r}"
            if want != AUTO:
                assert getattr(getattr(cfg, name), key) == want, f"{part.SECTION}.{key}"
    assert PlannerConfig.from_params(PARAMS) == PlannerConfig() == PlannerConfig.from_params()
    assert PlannerConfig.from_params(PARAMS).as_dict() == PlannerConfig().as_dict()


def test_every_key_of_the_sections_is_in_exactly_one_part() -> None:
    for section in SECTIONS:
        for key in PARAMS[section]:
            holders = [part.__name__ for part in PARTS.values() if part.SECTION == section and key in part.keys()]
            if key == "scaffold":
                assert holders == [] and section == "planner", holders  # the switch is PlannerConfig's own
            else:
                assert len(holders) == 1, f"{section}.{key} is held by {holders or 'no part'}"
        assert KNOWN[section] == set(PARAMS[section]), section
    assert set(WorldConfig.keys()) <= set(PARAMS["world"])
    assert set(SCAFFOLD_KEYS) <= set(ROUTE)
    # as_dict is flat: variant, scaffold, then every key once
    flat = PlannerConfig().as_dict()
    assert list(flat)[:2] == ["variant", "scaffold"] and sorted(flat) == sorted(["variant", "scaffold", *ROUTE])


def test_the_parts_hold_their_concerns() -> None:
    cfg = PlannerConfig.from_params(PARAMS)
    planner, relabel = PARAMS["planner"], PARAMS["relabel"]
    assert cfg.search.beam == planner["beam"] and cfg.episode.max_subgoals == planner["max_subgoals"]
    assert cfg.retrieval.k == PARAMS["retrieval"]["k"] and cfg.relabel.repair_rounds == relabel["repair_rounds"]
    assert cfg.world.seed == PARAMS["world"]["seed"] and cfg.adapter.adapter_order == PARAMS["planner"]["adapter_order"]
    for part in (SearchConfig, EpisodeConfig, LegalConfig, AdapterConfig, RetrievalConfig, RelabelConfig, WorldConfig):
        assert part in PARTS.values()


@pytest.mark.parametrize("section", SECTIONS)
def test_an_unknown_key_is_an_error_that_names_it(section: str) -> None:
    with pytest.raises(ValueError, match=rf"params.yaml: {section}\.beam_width is not a setting .*known: .*\b"
                                         rf"{sorted(KNOWN[section])[0]}\b"):
        PlannerConfig.from_params({section: {"beam_width": 3}})


def test_a_key_of_another_section_is_unknown_there() -> None:
    with pytest.raises(ValueError, match=r"params.yaml: retrieval\.beam is not a setting"):
        PlannerConfig.from_params({"retrieval": {"beam": 3}})
    with pytest.raises(ValueError, match=r"params.yaml: relabel\.k is not a setting"):
        PlannerConfig.from_params({"relabel": {"k": 3}})


@pytest.mark.parametrize("part", list(PARTS.values()), ids=lambda p: p.__name__)
def test_a_part_built_with_an_unknown_key_names_it(part: type) -> None:
    with pytest.raises(ValueError, match=rf"{part.__name__}: 'beam_width' is not a key it holds .*{part.keys()[0]}"):
        part(beam_width=3)


def test_an_unknown_override_names_it() -> None:
    with pytest.raises(ValueError, match=r"'beam_width' is not a params key of the planner"):
        PlannerConfig.from_params(PARAMS, beam_width=3)
    with pytest.raises(ValueError, match=r"'beam_width' is not a params key of the planner"):
        PlannerConfig().replace(beam_width=3)


def test_overrides_are_routed_to_their_parts() -> None:
    cfg = PlannerConfig.from_params(PARAMS, k=1, width=4, max_subgoals=5, goal_gate=True, show_expert=False, seed=7)
    assert (cfg.retrieval.k, cfg.search.width, cfg.episode.max_subgoals) == (1, 4, 5)
    assert cfg.legal.goal_gate is True and cfg.relabel.show_expert is False and cfg.world.seed == 7
    assert PlannerConfig.from_params({"world": {"seed": 3}, "planner": {"beam": 1}}, variant="mine").world.seed == 3
    again = cfg.replace(depth=2, repair_rounds=0)
    assert (again.search.depth, again.relabel.repair_rounds, again.retrieval.k) == (2, 0, 1)
    with pytest.raises(ValueError, match=r"planner\.generator|generator must be one of"):
        PlannerConfig.from_params(generator="oracle")


def test_the_scaffold_resolves_auto_keys_in_their_parts() -> None:
    paper, ours = PlannerConfig.from_params(scaffold="none"), PlannerConfig.from_params(scaffold="full")
    assert (paper.legal.goal_gate, ours.legal.goal_gate) == (False, True)
    assert (paper.adapter.adapter_options, ours.adapter.adapter_options) == ("all", "lexicon")
    assert (paper.episode.avoid_tried, ours.episode.avoid_tried) == (False, True)
    assert AUTO not in PlannerConfig().as_dict().values()
    assert PlannerConfig.from_params(scaffold="full", nav_scope="all").legal.nav_scope == "all"  # a set value wins


def test_a_cap_ends_episodes_only_before_the_planner_s_own() -> None:
    """collect.max_subgoals and probe.reference_max_subgoals: the smaller of the two caps holds."""
    cfg = PlannerConfig.from_params(PARAMS)
    assert cfg.capped(PARAMS["collect"]["max_subgoals"]).episode.max_subgoals == 16 < cfg.episode.max_subgoals
    assert cfg.capped(PARAMS["probe"]["reference_max_subgoals"]).episode.max_subgoals == 12
    assert cfg.capped(None) is cfg and cfg.capped(cfg.episode.max_subgoals + 5) is cfg
    short = cfg.replace(max_subgoals=3)
    assert short.capped(16).episode.max_subgoals == 3  # a test's short episodes stay short
    assert cfg.capped(12).search == cfg.search and cfg.capped(12).relabel == cfg.relabel
