"""The belief generator applies known effects and notes known precondition failures."""
from planner.relabel.phi import phi
from planner.search.generator import Belief, belief_step


def test_effects_chain():
    b = Belief()
    for sg in ["Navigation Apple", "PickupObject Apple", "Navigation Microwave", "OpenObject Microwave",
               "PutObject Apple Microwave", "CloseObject Microwave", "ToggleObjectOn Microwave"]:
        b = belief_step(b, sg)
    assert b.holding == "" and "Apple" in b.heated and "Microwave" in b.on and not b.predicted_fail
    assert b.done[-1] == "ToggleObjectOn Microwave"


def test_known_precondition_failures():
    b = belief_step(Belief(holding="Mug"), "PickupObject Apple")
    assert b.holding == "Mug" and b.predicted_fail and "Apple" not in b.done
    b = belief_step(Belief(holding="Apple"), "SliceObject Apple")
    assert b.predicted_fail and not b.sliced
    b = belief_step(Belief(holding="Knife"), "SliceObject Apple")
    assert "Apple" in b.sliced and "AppleSliced" in b.seen


def test_stop_ends_rollout():
    assert belief_step(Belief(), "Stop").stopped


def test_phi_uses_only_arguments():
    args = {"object_target": "Apple", "parent_target": "DiningTable", "mrecep_target": "", "toggle_target": "",
            "object_state": "heat", "object_sliced": True, "two_objects": False}
    assert phi("pick_heat_then_place_in_recep", args) == "Heat the sliced apple, then put it in the dining table."
    assert phi("look_at_obj_in_light", {**args, "toggle_target": "DeskLamp", "object_sliced": False,
                                        "object_state": "none"}) == "Look at the apple under the desk lamp."
