"""Strict parsing of values, plans and arguments; garbage never raises."""
import pytest

from planner.prompts.parsing import args_accuracy, empty_args, format_args, parse_args, parse_value, parse_values, split_plan


@pytest.mark.parametrize("text,expected", [
    ("the value is 3/4", (3, 4)),
    ("So, The Value is 2 / 3.", (2, 3)),
    ("reasoning... the value is: 0/5", (0, 5)),
])
def test_value_accepted(text, expected):
    assert parse_value(text) == expected


@pytest.mark.parametrize("text", ["", "value 3/4", "the value is high", "the value is 5/4", "the value is 1/0",
                                  "3/4", None, "\x00\x01garbage"])
def test_value_rejected(text):
    assert parse_value(text) is None


def test_batched_values():
    assert parse_values("1. the value is 1/3\n2. the value is 3/3", 2) == [(1, 3), (3, 3)]
    assert parse_values("2. the value is 1/2\n1. the value is 0/2\n7. the value is 1/2", 3) == [(0, 2), (1, 2), None]
    assert parse_values("the value is 1/3 and the value is 2/3", 3) == [(1, 3), (2, 3), None]
    assert parse_values("nonsense", 2) == [None, None]


def test_split_plan():
    assert split_plan(" Navigation Apple; PickupObject Apple; Stop") == ["Navigation Apple", "PickupObject Apple",
                                                                          "Stop"]
    assert split_plan("1. Navigation Apple\n2) OpenObject Fridge.") == ["Navigation Apple", "OpenObject Fridge"]
    assert split_plan("") == []


def test_args_round_trip_and_garbage():
    args = {"object_target": "Apple", "parent_target": "DiningTable", "mrecep_target": "", "toggle_target": "",
            "object_state": "heat", "object_sliced": True, "two_objects": False}
    parsed, n = parse_args(format_args(args))
    assert parsed == args and n == 7
    parsed, n = parse_args("blah state=boil sliced=maybe object=")
    assert parsed == empty_args() and n == 0
    acc = args_accuracy({**args, "parent_target": "Fridge"}, args)
    assert acc["parent_target"] is False and sum(acc.values()) == 6


def test_grounding_strict_then_mapped_then_rejected():
    from planner.retrieval.grounding import Grounder

    class Nearest:
        def __init__(self, legal, floor):
            self.legal = legal

        def map(self, text):  # stand-in for the encoder: the first legal candidate, if any
            return (self.legal[0], 0.9) if self.legal else (None, 0.0)

    g = Grounder(0.6, Nearest)
    assert g.ground("pickup apple", ["Apple"]) == "PickupObject Apple"
    assert g.ground("PickObject Apple", ["Fridge"]).endswith("Apple")  # invented action: mapped, keeps the object
    assert all("Apple" in c.split() for c in g.candidates("PickObject Apple", ["Fridge", "Mug"]))
    assert g.ground("%%%%", []) is None
    assert dict(g.stats) == {"parsed": 1, "mapped": 1, "rejected": 1}


def test_impossible_sub_goal_is_not_strictly_parsed():
    from planner.retrieval.grounding import Grounder
    from tests.planner.helpers import RejectingMapper

    g = Grounder(0.6, RejectingMapper)
    assert g.ground("ToggleObjectOn CoffeeTable", ["CoffeeTable"]) is None
    assert g.ground("PutObject Apple Fridge", []) == "PutObject Apple Fridge"
    assert g.ground("stop", []) == "Stop"
