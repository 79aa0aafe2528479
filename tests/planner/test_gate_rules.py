"""The goal gate's named rules (planner/scaffold/gate.py): each one shown by a case, and each one needed by some
case."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import pytest

from planner.scaffold.gate import ALLOW_RULES, PHASES, PROGRESS_RULES, RULE_NAMES, gate_state, goal_gate


def _args(obj: str, parent: str, mrecep: str = "", state: str = "none", sliced: bool = False, two: bool = False,
          lamp: str = "") -> dict:
    """Predicted arguments in the adapter's shape."""
    return {"object_target": obj, "parent_target": parent, "mrecep_target": mrecep, "object_state": state,
            "object_sliced": sliced, "two_objects": two, **({"toggle_target": lamp} if lamp else {})}


HEAT_APPLE = _args("Apple", "GarbageCan", state="heat")
COOL_APPLE = _args("Apple", "GarbageCan", state="cool")
SLICE_BREAD = _args("Bread", "CounterTop", sliced=True)
KEYS_IN_BOX = _args("KeyChain", "ArmChair", mrecep="Box")
TWO_PILLOWS = _args("Pillow", "Sofa", two=True)
TWO_ROLLS = _args("ToiletPaper", "Cabinet", two=True)
LOOK_AT_KEYS = _args("KeyChain", "", lamp="FloorLamp")


class Case(NamedTuple):
    """A gate call, what it answers, and what it answers with `rule` switched off."""
    rule: str
    legal: list[str]
    args: dict
    location: str
    observed: list[str]
    expected: list[str]
    without: list[str]
    inside: Sequence[tuple[str, str]] = ()
    holding: str = ""
    here: Sequence[str] | None = None
    located: Sequence[tuple[str, str]] = ()


CASES: tuple[Case, ...] = (
    # --- allow rules (vetoes)
    Case("carried_only_where_next",  # the keys go into the box first: not onto the chair, not onto the sofa
         ["Navigation Box", "PutObject KeyChain ArmChair", "PutObject KeyChain Sofa"], KEYS_IN_BOX, "ArmChair", [],
         ["Navigation Box"], ["Navigation Box", "PutObject KeyChain ArmChair", "PutObject KeyChain Sofa"],
         holding="KeyChain"),
    Case("whole_not_delivered",  # the loaf may go down anywhere but where the slice goes
         ["PutObject Bread CounterTop", "PutObject Bread Fridge"], SLICE_BREAD, "Fridge", [],
         ["PutObject Bread Fridge"], ["PutObject Bread CounterTop", "PutObject Bread Fridge"], holding="Bread"),
    Case("empty_receptacle_not_delivered",  # the box without the keys stays off the chair
         ["Navigation KeyChain", "PutObject Box ArmChair", "PutObject Box Sofa"], KEYS_IN_BOX, "ArmChair", [],
         ["Navigation KeyChain", "PutObject Box Sofa"],
         ["Navigation KeyChain", "PutObject Box ArmChair", "PutObject Box Sofa"], holding="Box"),
    Case("keep_knife_until_sliced",  # no cut from here: the knife stays in hand, walk to the bread
         ["Navigation Bread", "PickupObject Bread", "PutObject Knife CounterTop"], SLICE_BREAD, "CounterTop",
         ["Bread"], ["Navigation Bread"], ["Navigation Bread", "PutObject Knife CounterTop"], holding="Knife"),
    Case("walk_only_to_targets",  # the held apple goes to the microwave: no other walk
         ["Navigation Cabinet", "Navigation GarbageCan", "Navigation Microwave", "OpenObject Fridge"], HEAT_APPLE,
         "Fridge", ["Apple"], ["Navigation Microwave", "OpenObject Fridge"],
         ["Navigation Cabinet", "Navigation GarbageCan", "Navigation Microwave", "OpenObject Fridge"],
         holding="Apple"),
    Case("slice_where_it_lies",  # no knife in reach: the loaf is still not picked up
         ["Navigation Fridge", "PickupObject Bread", "Stop"], SLICE_BREAD, "CounterTop", ["Bread"],
         ["Navigation Fridge", "Stop"], ["Navigation Fridge", "PickupObject Bread", "Stop"]),
    Case("placed_stays",  # one pillow is on the sofa: it is not taken off again
         ["Navigation ArmChair", "PickupObject Pillow"], TWO_PILLOWS, "Sofa", [], ["Navigation ArmChair"],
         ["PickupObject Pillow"], inside=[("Pillow", "Sofa")]),
    Case("no_switch_off_before_state",  # the apple is not hot yet: the microwave stays on
         ["CloseObject Microwave", "Navigation GarbageCan", "ToggleObjectOff Microwave"], HEAT_APPLE, "Microwave",
         ["Apple"], ["Navigation GarbageCan"], ["Navigation GarbageCan", "ToggleObjectOff Microwave"]),
    Case("switch_on_only_with_object_in",  # nothing in the microwave: switching it on makes nothing
         ["Navigation GarbageCan", "ToggleObjectOn Microwave"], HEAT_APPLE, "Microwave", ["Apple"],
         ["Navigation GarbageCan"], ["Navigation GarbageCan", "ToggleObjectOn Microwave"]),
    Case("close_only_cooling_fridge",  # no apple in the fridge: closing it cools nothing
         ["CloseObject Fridge", "Navigation GarbageCan"], COOL_APPLE, "Fridge", ["Apple"],
         ["Navigation GarbageCan"], ["CloseObject Fridge", "Navigation GarbageCan"]),
    # --- progress rules
    Case("take_out_made",  # hot: take it out (switching off may wait)
         ["Navigation GarbageCan", "PickupObject Apple", "ToggleObjectOff Microwave", "Stop"], HEAT_APPLE,
         "Microwave", ["Apple (hot)", "Microwave (open, on)"], ["PickupObject Apple"],
         ["PickupObject Apple", "ToggleObjectOff Microwave", "Stop"], inside=[("Apple", "Microwave")]),
    Case("pick_up_unplaced",  # free hands by the apple: take it
         ["Navigation GarbageCan", "OpenObject Microwave", "PickupObject Apple", "Stop"], HEAT_APPLE, "Microwave",
         ["Apple"], ["PickupObject Apple"], ["OpenObject Microwave", "PickupObject Apple", "Stop"]),
    Case("pick_up_second",  # one pillow is on the sofa: the other, here, is taken next
         ["Navigation ArmChair", "PickupObject Pillow", "Stop"], TWO_PILLOWS, "ArmChair", [],
         ["PickupObject Pillow"], ["PickupObject Pillow", "Stop"], inside=[("Pillow", "Sofa")]),
    Case("walk_on_to_parent",  # the first roll is in another cabinet: on to a cabinet, not in this one
         ["Navigation Cabinet", "Navigation Toilet", "PutObject ToiletPaper Cabinet"], TWO_ROLLS, "Cabinet",
         ["ToiletPaper"], ["Navigation Cabinet"], ["PutObject ToiletPaper Cabinet"], holding="ToiletPaper",
         here=["Cabinet (open)"], located=[("ToiletPaper", "Cabinet")]),
    Case("open_to_take_out",  # cold in the closed fridge: open it
         ["Navigation GarbageCan", "OpenObject Fridge", "Stop"], COOL_APPLE, "Fridge", ["Apple (cold)"],
         ["OpenObject Fridge"], ["OpenObject Fridge", "Stop"], inside=[("Apple", "Fridge")]),
    Case("open_to_search",  # the apple's walk found none: look inside what is closed here
         ["Navigation Cabinet", "Navigation Microwave", "OpenObject Drawer"], HEAT_APPLE, "Drawer",
         ["Cabinet (closed)", "Drawer (closed)", "Microwave (closed, off)"], ["OpenObject Drawer"],
         ["Navigation Cabinet", "Navigation Microwave", "OpenObject Drawer"]),
    Case("lamp_on",  # holding the keys by the lamp: switch it on
         ["Navigation Sofa", "ToggleObjectOn FloorLamp", "Stop"], LOOK_AT_KEYS, "FloorLamp", ["KeyChain"],
         ["ToggleObjectOn FloorLamp"], ["ToggleObjectOn FloorLamp", "Stop"], holding="KeyChain"),
    Case("pick_up_loaded_receptacle",  # the keys are in the box: take the box
         ["Navigation Box", "Navigation Sofa", "PickupObject Box", "PickupObject KeyChain"], KEYS_IN_BOX, "Sofa",
         ["Box", "KeyChain"], ["PickupObject Box"], ["Navigation Box", "PickupObject Box", "PickupObject KeyChain"],
         inside=[("KeyChain", "Box")]),
    Case("switch_on_maker",  # the apple is in: switch the microwave on (not take it out)
         ["Navigation GarbageCan", "PickupObject Apple", "ToggleObjectOn Microwave"], HEAT_APPLE, "Microwave",
         ["Apple"], ["ToggleObjectOn Microwave"], ["PickupObject Apple", "ToggleObjectOn Microwave"],
         inside=[("Apple", "Microwave")]),
    Case("close_fridge_to_cool",  # the apple is in: close the fridge
         ["CloseObject Fridge", "Navigation GarbageCan", "Stop"], COOL_APPLE, "Fridge", ["Apple"],
         ["CloseObject Fridge"], ["CloseObject Fridge", "Stop"], inside=[("Apple", "Fridge")]),
    Case("knife_then_cut",  # the knife in hand by the loaf: cut it
         ["Navigation Bread", "PickupObject Bread", "PutObject Knife CounterTop", "SliceObject Bread"], SLICE_BREAD,
         "CounterTop", ["Bread"], ["SliceObject Bread"], ["Navigation Bread", "SliceObject Bread"], holding="Knife"),
    Case("knife_down",  # sliced: the knife goes down, not on the table the slice goes to
         ["Navigation Fridge", "PickupObject Knife", "PutObject Knife CounterTop", "PutObject Knife DiningTable"],
         _args("Bread", "DiningTable", sliced=True), "CounterTop", ["BreadSliced"], ["PutObject Knife CounterTop"],
         ["Navigation Fridge", "PickupObject Knife", "PutObject Knife CounterTop", "PutObject Knife DiningTable"],
         holding="Knife"),
    Case("put_where_it_goes_next",  # the apple goes into the microwave first
         ["Navigation GarbageCan", "PutObject Apple Microwave", "ToggleObjectOn Microwave"], HEAT_APPLE, "Microwave",
         ["Apple"], ["PutObject Apple Microwave"],
         ["Navigation GarbageCan", "PutObject Apple Microwave", "ToggleObjectOn Microwave"], holding="Apple"),
)


def _gate(c: Case, disabled: frozenset[str] = frozenset()) -> list[str]:
    return goal_gate(c.legal, c.args, c.location, c.observed, c.inside, c.holding, c.here, c.located,
                     disabled=disabled)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_each_case(case: Case):
    assert _gate(case) == case.expected


@pytest.mark.parametrize("rule", sorted(RULE_NAMES))
def test_each_rule_decides_its_case(rule: str):
    mine = [c for c in CASES if c.rule == rule]
    assert mine, f"no case shows {rule}"
    for c in mine:
        assert _gate(c, frozenset({rule})) == c.without != c.expected


def test_switching_off_any_one_rule_changes_some_case():
    # the meta-test: no rule is dead weight (one that changes nothing switched off would pass every test)
    idle = [rule for rule in sorted(RULE_NAMES)
            if all(_gate(c, frozenset({rule})) == c.expected for c in CASES)]
    assert idle == []


def test_rules_are_named_once_with_a_phase_and_a_reason():
    rules = ALLOW_RULES + PROGRESS_RULES
    assert len({r.name for r in rules}) == len(rules)
    assert all(r.phase in PHASES and r.why for r in rules)
    with pytest.raises(ValueError, match="no such gate rule"):
        goal_gate(["Stop"], HEAT_APPLE, "Fridge", [], disabled=frozenset({"no_such_rule"}))


def test_without_an_object_or_with_only_stop_left_the_gate_steps_aside():
    legal = ["Navigation Fridge", "PutObject Apple Fridge", "Stop"]
    assert goal_gate(legal, None, "Fridge", []) == legal
    assert goal_gate(legal, _args("", "Fridge"), "Fridge", []) == legal
    only = ["PutObject Apple CounterTop", "Stop"]  # the one put is forbidden: the gate steps aside
    assert goal_gate(only, HEAT_APPLE, "CounterTop", ["Apple"], holding="Apple") == only


def test_gate_state_derives_the_flags_once():
    g = gate_state(["Navigation GarbageCan", "ToggleObjectOn Microwave"], HEAT_APPLE, "Microwave", ["Apple"],
                   inside=[("Apple", "Microwave")])
    assert g is not None and g.making and not g.made and g.in_maker and not g.unplaced
    assert g.maker == "Microwave" and g.toggles == ("Microwave",) and g.targets == ("Microwave",)
    hot = gate_state([], HEAT_APPLE, "Microwave", ["Apple (hot)"], inside=[("Apple", "Microwave")])
    assert hot is not None and hot.made and hot.carried == {"Apple": "GarbageCan"}
    sliced = gate_state(["Navigation Knife"], SLICE_BREAD, "Fridge", ["Bread"])
    assert sliced is not None and sliced.slicing and sliced.final == "BreadSliced" and sliced.targets == ("Knife",)
    assert gate_state([], None, "Fridge", []) is None
