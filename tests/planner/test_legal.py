"""The legal set an actor answers from: built from what was observed only, and honoured by the actors."""
from __future__ import annotations

import pytest

from planner.retrieval.grounding import Grounder
from planner.scaffold.gate import goal_gate
from planner.scaffold.legal import legal_now, task_scope, where_text
from planner.search.actors import Actor, StepContext
from planner.search.beam import Node
from planner.search.generator import Belief
from tests.planner.helpers import RejectingMapper


def test_interactions_only_with_what_is_here_walks_to_seen_or_named():
    legal = legal_now(seen=["CounterTop", "Apple", "Fridge", "Knife"], here=["CounterTop", "Knife"], holding="",
                      named=["Apple", "Microwave"])
    assert "PickupObject Knife" in legal and "PickupObject Apple" not in legal  # the apple is elsewhere
    assert {"Navigation Apple", "Navigation Fridge", "Navigation Microwave", "Navigation Knife"} <= set(legal)
    assert "OpenObject Fridge" not in legal and legal[-1] == "Stop"
    assert not any(a.startswith("PutObject") for a in legal)  # empty hands
    holding = legal_now(seen=["Fridge", "Apple"], here=["Fridge"], holding="Apple")
    assert "PutObject Apple Fridge" in holding and "OpenObject Fridge" in holding
    assert not any(a.startswith("PickupObject") for a in holding)  # hands full
    only_seen = legal_now(seen=["Fridge"], here=[], holding="", named=["Apple"], nav_targets="seen")
    assert "Navigation Apple" not in only_seen and "Navigation Fridge" in only_seen


def test_observed_states_decide_open_close_and_switches():
    legal = legal_now(seen=["Fridge", "Microwave", "Laptop"], here=["Fridge (open)", "Laptop (open)"], holding="",
                      named=["Apple"], scope=None)
    assert "CloseObject Fridge" in legal and "OpenObject Fridge" not in legal
    shut = legal_now(seen=["Fridge"], here=["Fridge (closed)"], holding="Apple")
    assert "PutObject Apple Fridge" not in shut and "OpenObject Fridge" in shut  # open it first
    assert "OpenObject Laptop" not in legal  # 'Laptop is already open' can no longer be chosen
    lamp = legal_now(seen=["DeskLamp"], here=["Desk", "DeskLamp (off)"], holding="", scope=None)
    assert "ToggleObjectOn DeskLamp" in lamp and "ToggleObjectOff DeskLamp" not in lamp
    unknown = legal_now(seen=["Fridge"], here=["Fridge"], holding="")
    assert {"OpenObject Fridge", "CloseObject Fridge"} <= set(unknown)


def test_where_text_names_the_place_of_each_seen_object():
    assert where_text(["CounterTop", "Apple", "Egg"], [("Apple (hot)", "CounterTop"), ("Egg", "Fridge")]) == \
        ("CounterTop", "Apple (CounterTop)", "Egg (Fridge)")


def test_task_scope_narrows_pickups_and_switches():
    scope = task_scope({"object_target": "Apple", "mrecep_target": "", "toggle_target": "", "object_state": "heat",
                        "object_sliced": True})
    legal = legal_now(seen=["CounterTop"], here=["CounterTop", "Apple", "Knife", "Mug", "Microwave (closed, off)",
                                                 "AppleSliced"], holding="", scope=scope, allow_stop=False)
    # A sliced task's goal is on the slice: it must be pickable, as the knife is.
    assert {"PickupObject Apple", "PickupObject Knife", "PickupObject AppleSliced", "ToggleObjectOn Microwave"} \
        <= set(legal)
    assert "PickupObject Mug" not in legal and "Stop" not in legal


def test_no_walk_to_what_is_in_hand():
    legal = legal_now(seen=["CounterTop", "Apple"], here=["CounterTop"], holding="Apple", allow_stop=False)
    assert "Navigation CounterTop" in legal and "Navigation Apple" not in legal


class _Client:
    """Answers a fixed text and records the constraint of each call."""

    def __init__(self, text: str) -> None:
        self.text, self.constraints = text, []

    def complete(self, role, prompt, **kw):
        self.constraints.append(kw.get("constraint"))
        return type("R", (), {"text": self.text, "legal": None})()


def _actor(client) -> Actor:
    return Actor("actor_gt", client, [], Grounder(0.5, RejectingMapper))


def test_actor_asks_for_one_legal_step_and_rejects_others():
    ctx = StepContext("Put an apple in the fridge.", ("Fridge",), None, ())
    legal = ["Navigation Fridge", "Navigation Apple", "Stop"]
    client = _Client(" Navigation Apple")
    actor = _actor(client)
    assert actor.propose(ctx, Node((), Belief()), 1, ["Fridge"], legal=legal) == ["Navigation Apple"]
    assert client.constraints[-1].choices == tuple(legal) and actor.illegal == 0
    # An endpoint that ignores the constraint and answers an illegal step: counted, never executed.
    bad = _Client(" PutObject Apple Fridge")
    actor = _actor(bad)
    assert actor.propose(ctx, Node((), Belief()), 1, ["Fridge"], legal=legal) == [] and actor.illegal == 1


def test_retry_after_a_failure_excludes_it_from_the_legal_set():
    ctx = StepContext("Put an apple in the fridge.", ("Fridge",), None, ())
    client = _Client(" Navigation Apple")
    got = _actor(client).propose_other(ctx, Node((), Belief()), {"Navigation Fridge"}, 1, ["Fridge"],
                                       legal=["Navigation Fridge", "Navigation Apple", "Stop"])
    assert got == ["Navigation Apple"] and client.constraints[-1].choices == ("Navigation Apple", "Stop")


def test_walk_scope_keeps_what_the_task_needs_and_containers_to_search():
    args = {"object_target": "Egg", "parent_target": "SinkBasin", "mrecep_target": "", "toggle_target": "",
            "object_state": "cool", "object_sliced": False}
    legal = legal_now(seen=["CounterTop", "Fork", "Cabinet", "Statue"], here=["CounterTop"], holding="",
                      named=["Egg", "SinkBasin"], scope=task_scope(args, walk=True), allow_stop=False)
    walks = {a.split()[1] for a in legal if a.startswith("Navigation")}
    assert walks == {"Egg", "SinkBasin", "Fridge", "Cabinet"}  # the fridge cools; a cabinet may hide the egg
    sliced = task_scope({**args, "object_target": "Apple", "object_sliced": True}, walk=True)
    assert {"Knife", "ButterKnife", "AppleSliced"} <= sliced["walk"]

    def walks_with(seen: list[str]) -> set[str]:
        return {a.split()[1] for a in legal_now(seen, ["CounterTop"], "", ["Apple"], scope=sliced, allow_stop=False)
                if a.startswith("Navigation")}
    assert "AppleSliced" not in walks_with(["CounterTop"])  # no slice exists before something is sliced
    assert {"Apple", "Knife", "AppleSliced"} <= walks_with(["CounterTop", "AppleSliced"])
    assert "walk" not in task_scope(args)  # relabeling's stepwise picks keep their own scope


HEAT_APPLE = {"object_target": "Apple", "parent_target": "GarbageCan", "mrecep_target": "", "object_state": "heat",
              "object_sliced": False, "two_objects": False}


def test_goal_gate_sends_the_object_where_the_state_is_made_before_the_parent():
    at_can = ["Navigation Microwave", "PutObject Apple CounterTop", "PutObject Apple GarbageCan"]
    assert goal_gate(at_can, HEAT_APPLE, "GarbageCan", ["Apple", "GarbageCan"]) == ["Navigation Microwave"]
    at_oven = ["Navigation GarbageCan", "PutObject Apple Microwave", "ToggleObjectOn Microwave"]
    assert goal_gate(at_oven, HEAT_APPLE, "Microwave", ["Apple"]) == ["PutObject Apple Microwave"]  # the step due
    hot = ["Apple (hot)", "GarbageCan"]
    assert goal_gate(at_can, HEAT_APPLE, "GarbageCan", hot) == ["PutObject Apple GarbageCan"]  # heated: now in
    only = ["PutObject Apple GarbageCan"]
    assert goal_gate(only, HEAT_APPLE, "GarbageCan", ["Apple"]) == only  # nothing else legal: the gate steps aside


def test_goal_gate_keeps_the_appliance_on_and_closes_only_the_fridge_that_cools():
    running = ["CloseObject Microwave", "Navigation GarbageCan", "ToggleObjectOff Microwave"]
    assert goal_gate(running, HEAT_APPLE, "Microwave", ["Apple"]) == ["Navigation GarbageCan"]
    assert goal_gate(running, HEAT_APPLE, "Microwave", ["Apple (hot)"]) == \
        ["Navigation GarbageCan", "ToggleObjectOff Microwave"]
    cool = dict(HEAT_APPLE, object_state="cool")
    fridge = ["CloseObject Fridge", "Navigation GarbageCan"]
    assert goal_gate(fridge, cool, "Fridge", ["Apple"]) == ["Navigation GarbageCan"]  # nothing in it to cool
    assert goal_gate(fridge, cool, "Fridge", ["Apple"], inside=[("Apple", "Fridge")]) == ["CloseObject Fridge"]


def test_goal_gate_switches_the_oven_on_only_with_the_object_in_and_then_takes_it_out():
    here = ["Navigation GarbageCan", "PickupObject Apple", "ToggleObjectOn Microwave"]
    assert goal_gate(here, HEAT_APPLE, "Microwave", ["Apple"]) == ["PickupObject Apple"]  # free hands: take it
    put_in = [("Apple", "Microwave")]
    assert goal_gate(here, HEAT_APPLE, "Microwave", ["Apple"], inside=put_in) == \
        ["ToggleObjectOn Microwave"]  # in the oven, not hot yet: switch it on
    hot = ["Apple (hot)", "Microwave (open, on)"]
    assert goal_gate(here, HEAT_APPLE, "Microwave", hot, inside=put_in) == ["PickupObject Apple"]  # done: out
    assert goal_gate(here, HEAT_APPLE, "Microwave", hot) == ["PickupObject Apple"]
    cool = dict(HEAT_APPLE, object_state="cool")
    away = ["Navigation Fridge", "Navigation GarbageCan", "OpenObject Cabinet"]
    cooled = [("Apple", "Fridge")]
    assert goal_gate(away, cool, "Cabinet", ["Apple (cold)"], inside=cooled) == ["Navigation Fridge", "OpenObject Cabinet"]
    shut = ["Navigation GarbageCan", "OpenObject Fridge"]
    assert goal_gate(shut, cool, "Fridge", ["Apple (cold)"], inside=cooled) == ["OpenObject Fridge"]  # then take it
    wash = dict(HEAT_APPLE, object_state="clean")
    sink = ["Navigation GarbageCan", "ToggleObjectOn Faucet"]
    assert goal_gate(sink, wash, "SinkBasin", ["Apple"]) == ["Navigation GarbageCan"]
    assert goal_gate(sink, wash, "SinkBasin", ["Apple"], inside=[("Apple", "SinkBasin")]) == ["ToggleObjectOn Faucet"]


def test_goal_gate_puts_the_object_in_the_movable_receptacle_first():
    args = {"object_target": "KeyChain", "parent_target": "ArmChair", "mrecep_target": "Box", "object_state": "none",
            "object_sliced": False, "two_objects": False}
    holding_keys = ["Navigation Box", "PutObject KeyChain ArmChair", "PutObject KeyChain Sofa"]
    assert goal_gate(holding_keys, args, "ArmChair", []) == ["Navigation Box"]
    assert goal_gate(holding_keys + ["PutObject KeyChain Box"], args, "ArmChair", []) == ["PutObject KeyChain Box"]
    holding_box = ["Navigation KeyChain", "PutObject Box ArmChair", "PutObject Box Sofa"]
    assert goal_gate(holding_box, args, "ArmChair", []) == ["Navigation KeyChain", "PutObject Box Sofa"]
    with_keys = goal_gate(holding_box, args, "ArmChair", [], inside=[("KeyChain", "Box")])
    assert with_keys == ["PutObject Box ArmChair"]  # the receptacle with the object goes to the parent, only there


def test_goal_gate_walks_the_held_object_only_where_it_goes_next():
    walks = ["Navigation Cabinet", "Navigation GarbageCan", "Navigation Microwave", "OpenObject Fridge"]
    assert goal_gate(walks, HEAT_APPLE, "Fridge", ["Apple"], holding="Apple") == \
        ["Navigation Microwave", "OpenObject Fridge"]
    assert goal_gate(walks, HEAT_APPLE, "Fridge", ["Apple (hot)"], holding="Apple") == \
        ["Navigation GarbageCan", "OpenObject Fridge"]
    assert goal_gate(walks, HEAT_APPLE, "Fridge", ["Apple"], holding="") == walks  # empty hands: free to search
    no_way = ["Navigation Cabinet", "Navigation GarbageCan"]  # the microwave is not reachable: walks stay free
    assert goal_gate(no_way, HEAT_APPLE, "Fridge", ["Apple"], holding="Apple") == no_way


def test_goal_gate_fetches_the_goal_object_and_searches_closed_containers_for_it():
    walks = ["Navigation Apple", "Navigation Cabinet", "Navigation Microwave", "OpenObject Drawer"]
    assert goal_gate(walks, HEAT_APPLE, "Drawer", []) == ["Navigation Apple", "OpenObject Drawer"]  # walks: to it
    assert goal_gate(walks, HEAT_APPLE, "Drawer", [], inside=[("Apple", "Cabinet")]) == walks  # placed: not fetched
    lost = walks[1:]  # the walk to the apple found none (the loop took it off the list)
    seen = ["Cabinet (closed)", "Drawer (closed)", "Microwave (closed, off)"]
    assert goal_gate(lost, HEAT_APPLE, "Drawer", seen) == ["OpenObject Drawer"]  # search: open what is here
    assert goal_gate(lost[:2], HEAT_APPLE, "Drawer", seen) == ["Navigation Cabinet", "Navigation Microwave"]
    assert goal_gate(lost[:2], HEAT_APPLE, "Drawer", seen + ["Apple"]) == lost[:2]  # seen: no search


def test_goal_gate_slice_and_second_object():
    sliced = {"object_target": "Bread", "parent_target": "CounterTop", "mrecep_target": "", "object_state": "none",
              "object_sliced": True, "two_objects": False}
    assert goal_gate(["PutObject Bread CounterTop", "PutObject Bread Fridge"], sliced, "Fridge", []) == \
        ["PutObject Bread Fridge"]
    with_knife = ["Navigation Bread", "PickupObject Bread", "PutObject Knife CounterTop", "SliceObject Bread"]
    assert goal_gate(with_knife, sliced, "CounterTop", ["Bread"], holding="Knife") == \
        ["SliceObject Bread"]  # neither the knife down nor the whole loaf up before a slice: the cut is the step
    assert goal_gate(with_knife[:2] + ["PutObject Knife CounterTop"], sliced, "CounterTop", ["Bread"],
                     holding="Knife") == ["Navigation Bread"]  # no cut here: walks only to the bread
    assert "PutObject Knife CounterTop" in goal_gate(with_knife, sliced, "CounterTop", ["BreadSliced"])
    sliced_there = dict(sliced, parent_target="DiningTable")
    down = ["PutObject Knife CounterTop", "PutObject Knife DiningTable", "Navigation Fridge", "PickupObject Knife"]
    assert goal_gate(down, sliced_there, "CounterTop", ["BreadSliced"], holding="Knife") == \
        ["PutObject Knife CounterTop"]  # sliced: the knife goes down, not where the slice goes
    empty = ["Navigation Bread", "Navigation Knife", "Navigation ButterKnife", "Navigation Fridge"]
    assert goal_gate(empty, sliced, "Fridge", ["Bread"]) == ["Navigation Knife", "Navigation ButterKnife"]
    assert goal_gate(["PickupObject Knife", "PickupObject Apple", "Navigation Bread"], sliced, "CounterTop",
                     ["Bread"]) == ["PickupObject Knife"]  # free hands by a knife: take it
    assert goal_gate(empty[:1] + empty[3:], sliced, "Fridge", ["Bread"]) == ["Navigation Bread", "Navigation Fridge"]
    two = {"object_target": "Pillow", "parent_target": "Sofa", "mrecep_target": "", "object_state": "none",
           "object_sliced": False, "two_objects": True}
    at_sofa = ["PickupObject Pillow", "Navigation ArmChair"]
    assert goal_gate(at_sofa, two, "Sofa", [], inside=[("Pillow", "Sofa")]) == ["Navigation ArmChair"]
    # one is on the sofa: the second one is fetched like the first (picking it up where it lies is the step)
    assert goal_gate(at_sofa, two, "ArmChair", [], inside=[("Pillow", "Sofa")]) == ["PickupObject Pillow"]
    assert goal_gate(at_sofa + ["Navigation Pillow"], two, "Sofa", ["Pillow"], inside=[("Pillow", "Sofa")]) == \
        ["Navigation Pillow"]
    one = dict(two, two_objects=False)  # the adapter may miss 'two': what is in place still stays there
    assert goal_gate(at_sofa, one, "Sofa", [], inside=[("Pillow", "Sofa")]) == ["Navigation ArmChair"]
    # Holding the second roll at a cabinet where the first one is not in view: on to another cabinet (the goal
    # wants both in one); where it is in view, or on the first trip, or in an imagined state, the put.
    rolls = {**two, "object_target": "ToiletPaper", "parent_target": "Cabinet"}
    held = ["PutObject ToiletPaper Cabinet", "Navigation Cabinet", "Navigation Toilet"]
    first = [("ToiletPaper", "Cabinet")]
    assert goal_gate(held, rolls, "Cabinet", ["ToiletPaper"], holding="ToiletPaper", here=["Cabinet (open)"],
                     located=first) == ["Navigation Cabinet"]
    assert goal_gate(held, rolls, "Cabinet", ["ToiletPaper"], holding="ToiletPaper",
                     here=["Cabinet (open)", "ToiletPaper"], located=first) == ["PutObject ToiletPaper Cabinet"]
    assert goal_gate(held, rolls, "Cabinet", ["ToiletPaper"], holding="ToiletPaper", here=["Cabinet (open)"]) == \
        ["PutObject ToiletPaper Cabinet"]
    assert goal_gate(held, rolls, "Cabinet", ["ToiletPaper"], holding="ToiletPaper", located=first) == \
        ["PutObject ToiletPaper Cabinet"]


def test_goal_gate_receptacle_lamp_and_search_with_a_knife():
    # The keys are in the box: with free hands the box is fetched next (then carried to the chair).
    box = {"object_target": "KeyChain", "parent_target": "ArmChair", "mrecep_target": "Box", "object_state": "none",
           "object_sliced": False, "two_objects": False}
    free = ["Navigation Box", "Navigation Sofa", "PickupObject Box", "PickupObject KeyChain"]
    assert goal_gate(free, box, "Sofa", ["Box", "KeyChain"], inside=[("KeyChain", "Box")]) == ["PickupObject Box"]
    assert goal_gate(free[:2], box, "Sofa", ["Box", "KeyChain"], inside=[("KeyChain", "Box")]) == ["Navigation Box"]
    assert goal_gate(free[:2], box, "Sofa", ["Box", "KeyChain"],
                     inside=[("KeyChain", "Box"), ("Box", "ArmChair")]) == free[:2]  # in place: nothing to fetch
    # Look at the keys in the light: holding them, walks go only to the lamp, and switching it on is the step.
    look = {**box, "parent_target": "", "mrecep_target": "", "toggle_target": "FloorLamp"}
    walks = ["Navigation FloorLamp", "Navigation Sofa", "PutObject KeyChain Sofa"]
    assert goal_gate(walks, look, "Sofa", ["KeyChain"], holding="KeyChain") == ["Navigation FloorLamp"]
    assert goal_gate(["ToggleObjectOn FloorLamp", "Navigation Sofa"], look, "FloorLamp", ["KeyChain"],
                     holding="KeyChain") == ["ToggleObjectOn FloorLamp"]
    # With the knife in hand and the bread never seen (its walk found none): open closed containers.
    sliced = {"object_target": "Bread", "parent_target": "CounterTop", "mrecep_target": "", "object_state": "heat",
              "object_sliced": True, "two_objects": False}
    lost = ["OpenObject Cabinet", "Navigation Fridge", "Navigation CounterTop"]
    assert goal_gate(lost, sliced, "Cabinet", ["Cabinet (closed)", "Fridge (closed)"], holding="Knife") == \
        ["OpenObject Cabinet"]
    assert goal_gate(lost, sliced, "Cabinet", ["Cabinet (closed)", "Bread"], holding="Knife") == lost  # seen
    # Holding the bottle, the plate it goes onto never seen (its walk found none): open closed containers.
    plate = {**box, "object_target": "Glassbottle", "parent_target": "SinkBasin", "mrecep_target": "Plate"}
    assert goal_gate(lost, plate, "Cabinet", ["Cabinet (closed)"], holding="Glassbottle") == ["OpenObject Cabinet"]
    assert goal_gate(lost, plate, "Cabinet", ["Cabinet (closed)", "Plate"], holding="Glassbottle") == lost


def test_a_mode_key_with_an_unknown_value_is_refused():
    from planner.config import PlannerConfig

    with pytest.raises(ValueError, match=r"nav_scope must be one of \('task', 'all'\), not 'tasks'"):
        PlannerConfig.from_params({"planner": {"nav_scope": "tasks"}})
    assert PlannerConfig.from_params({"planner": {"nav_scope": "all"}}).legal.nav_scope == "all"


def test_goal_gate_switches_on_what_makes_the_state_once_the_object_is_in():
    heating = [("Apple", "Microwave")]
    at_oven = ["ToggleObjectOn Microwave", "Navigation GarbageCan", "Navigation Microwave", "CloseObject Microwave"]
    assert goal_gate(at_oven, HEAT_APPLE, "Microwave", ["Apple"], inside=heating) == ["ToggleObjectOn Microwave"]
    away = ["Navigation GarbageCan", "Navigation Microwave", "OpenObject Cabinet"]
    assert goal_gate(away, HEAT_APPLE, "Cabinet", ["Apple"], inside=heating) == \
        ["Navigation Microwave", "OpenObject Cabinet"]  # free hands: walks only back to it
    assert goal_gate(at_oven, HEAT_APPLE, "Microwave", ["Apple (hot)"], inside=heating) == \
        ["Navigation Microwave"]  # hot: not switched on again (and no hot apple here to take out)
