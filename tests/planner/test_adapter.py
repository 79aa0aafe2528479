"""The adapter's answer options: every class, or the values the instruction's words point to (the lexicon)."""
from __future__ import annotations

import pytest

from planner.adapter.lexicon import Lexicon, train_lexicon, words
from planner.adapter.predict import ALL_OPTIONS, Adapter, args_constraint, lexicon_options, with_phrase
from tests.planner.helpers import sample


def test_words_drop_plain_plurals_only():
    assert words("Put two Apples, a glass and the keys") == {"put", "two", "apple", "a", "glass", "and", "the", "key"}


def test_a_word_points_to_a_value_only_when_it_makes_it_likelier():
    pairs = [("put the key on the sofa", {"object_target": "KeyChain", "two_objects": False})] * 3 \
        + [("put the apple in the fridge", {"object_target": "Apple", "two_objects": False})] * 3 \
        + [("put two apples in the fridge", {"object_target": "Apple", "two_objects": True})] * 3
    lex = Lexicon(pairs)
    # 'the' is in every sentence: P(Apple | the) = 2/3 is no higher than Apple's share anyway, so it points nowhere.
    assert lex.points_to("object_target", "the thing", 0.1) == []
    assert lex.points_to("object_target", "the key", 0.1) == ["KeyChain"]
    assert lex.points_to("two_objects", "two mugs", 0.1) == ["yes"]
    assert lex.points_to("object_target", "a rare word: key", 1.1) == []  # above any share
    assert Lexicon(pairs[:2]).points_to("object_target", "key", 0.1) == []  # a word seen twice says nothing


def test_train_lexicon_narrows_each_slot_to_what_the_words_name():
    opts = lexicon_options("Put a clean wash cloth on the counter.", 0.1)
    assert "Cloth" in opts["object_target"] and "WateringCan" not in opts["object_target"]
    assert opts["object_target"][0] == "Cloth"  # most likely first
    assert "CounterTop" in opts["parent_target"] and opts["parent_target"][-1] == "none"
    assert opts["toggle_target"] == ("none",) and opts["two_objects"] == ("no",)
    assert "clean" in opts["object_state"] and "heat" not in opts["object_state"]
    two = lexicon_options("Put two pillows on the couch.", 0.1)
    assert two["two_objects"] == ("yes", "no") and "Sofa" in two["parent_target"]
    lamp = lexicon_options("Examine a set of keys under a tall lamp", 0.1)
    assert lamp["toggle_target"][:2] == ("FloorLamp", "DeskLamp") and lamp["object_target"][0] == "KeyChain"
    # No word points to any object: the object keeps every class (a rare word must not force a wrong one).
    assert lexicon_options("Do the thing.", 0.1)["object_target"] == ALL_OPTIONS["object_target"]
    assert train_lexicon() is train_lexicon()  # built once per process


def test_a_container_named_before_with_is_the_movable_receptacle():
    text = "Put a plate with a bottle on top of it in the sink."
    assert with_phrase(text) == (["Plate"], "a bottle")
    assert with_phrase("Put a cup and a knife on the counter.") == (["Cup"], "a knife")  # 'and' and an object
    assert with_phrase("Chill a cup and place it in the cabinet.") == ([], "")  # 'and' and a verb
    assert with_phrase("Examine a mug with the lamp.") == (["Mug"], "the lamp")  # the rule's known miss (look_at)
    assert with_phrase("Put a pan with a knife and a tomato slice in it on the counter.") == \
        (["Pan"], "a knife and a tomato slice")
    plain = lexicon_options(text, 0.1)
    assert "none" in plain["mrecep_target"] and "Plate" in plain["object_target"]
    ruled = lexicon_options(text, 0.1, container_with=True)
    assert ruled["mrecep_target"][0] == "Plate" and "none" not in ruled["mrecep_target"]
    assert "none" in plain["parent_target"] and "none" not in ruled["parent_target"]  # a receptacle task: a parent
    assert "SinkBasin" in ruled["parent_target"]
    assert "Plate" not in ruled["object_target"] and "Glassbottle" in ruled["object_target"]
    assert "Bread" in plain["object_target"] and all("ottle" in c for c in ruled["object_target"])  # after 'with'
    slices = lexicon_options("Put a pan with a knife and a tomato slice in it on the counter.", 0.1, True)
    assert {"Tomato", "Knife"} <= set(slices["object_target"]) and "Pan" not in slices["object_target"]
    assert lexicon_options("Chill a cup and place it in the cabinet.", 0.1, container_with=True)["mrecep_target"][-1] \
        == "none"


def test_a_word_for_the_light_makes_a_look_at_answer():
    lit = lexicon_options("Look at a mug in lamp light.", 0.1, lamp_word=True)
    assert "none" not in lit["toggle_target"] and set(lit["toggle_target"]) <= {"DeskLamp", "FloorLamp"}
    assert lit["object_state"] == ("none",) and lit["two_objects"] == ("no",) and lit["parent_target"] == ("none",)
    assert "heat" in lexicon_options("Look at a mug in lamp light.", 0.1)["object_state"]  # what the rule removes
    mug = lexicon_options("Examine a mug with the lamp.", 0.1, container_with=True, lamp_word=True)
    assert mug["mrecep_target"] == ("none",) and "Mug" in mug["object_target"]  # no container rule in a look-at
    dark = lexicon_options("Put a set of keys on the dresser.", 0.1, lamp_word=True)
    assert dark["toggle_target"] == ("none",) and "Dresser" in dark["parent_target"]
    for goal, lamp in (("examine the alarmclock with the desklamp.", "DeskLamp"),  # ALFWorld's templated goals
                       ("look at bowl under the floorlamp.", "FloorLamp")):
        templated = lexicon_options(goal, 0.1, lamp_word=True)
        assert lamp in templated["toggle_target"] and "none" not in templated["toggle_target"], goal


class _Client:
    def __init__(self, text: str) -> None:
        self.text, self.sent = text, []

    def complete(self, role, prompt, **kw):
        self.sent.append((prompt, kw.get("constraint")))
        return type("R", (), {"text": self.text})()


def test_the_adapter_sends_and_lists_only_the_instructions_options():
    client = _Client(" object=Cloth parent=CounterTop mrecep=none toggle=none state=clean sliced=no two=no")
    pred = Adapter(client, [], options="lexicon").predict("Put a clean wash cloth on the counter.", ())
    assert pred["object_target"] == "Cloth" and pred["object_state"] == "clean"
    prompt, constraint = client.sent[0]
    objects = next(ln for ln in prompt.splitlines() if ln.startswith("Objects:"))
    assert "Cloth" in objects and "WateringCan" not in objects
    assert constraint.slots[0][0] == "Cloth" and "WateringCan" not in constraint.slots[0]
    assert constraint.slots[3] == ("none",)  # toggle: no lamp named
    client = _Client(" object=Cloth")
    Adapter(client, [], options="all").predict("Put a clean wash cloth on the counter.", ())
    assert client.sent[0][1] == args_constraint(ALL_OPTIONS)
    with pytest.raises(ValueError, match="adapter_options"):
        Adapter(client, [], options="some")
    with pytest.raises(ValueError, match="adapter_order"):
        Adapter(client, [], order="alphabetical")


def test_the_container_first_order_holds_for_examples_and_answer():
    ex = sample("gt", "t1", "Put a cold apple in the fridge.", ["Navigation Fridge"])
    client = _Client(" mrecep=none object=Apple parent=Fridge toggle=none state=cool sliced=no two=no")
    adapter = Adapter(client, [ex], options="lexicon", order="mrecep_first")
    pred = adapter.predict("Put a chilled apple in the fridge.", ())
    assert pred["object_target"] == "Apple" and pred["parent_target"] == "Fridge" and pred["object_state"] == "cool"
    prompt, constraint = client.sent[0]
    assert "Args: mrecep=none object=Apple parent=Fridge toggle=none state=cool" in prompt
    assert constraint.parts[0] == "mrecep=" and constraint.parts[2] == " object="


def test_a_class_too_rare_for_the_counts_is_offered_by_its_own_name():
    opts = lexicon_options("Put a plate with a bottle on top of it in the sink.", 0.1)
    assert "Glassbottle" in opts["object_target"] and "Plate" in opts["mrecep_target"]
    # ... but not a class train never has in the slot: ALFRED's toilet paper tasks are on ToiletPaper.
    rolls = lexicon_options("Put the toilet paper rolls inside the sink cabinet", 0.1)["object_target"]
    assert "ToiletPaper" in rolls and "ToiletPaperRoll" not in rolls
    from household.world.ontology import PICKUPABLE
    from planner.adapter.predict import _by_name
    assert _by_name("Put the pot on the stove.", sorted(PICKUPABLE)) == ["Pot"]  # a word of its name, not 'Potato'


def test_a_lamp_or_parent_found_absent_is_offered_no_more():
    from planner.adapter.predict import gone, without_absent
    opts = lexicon_options("Examine a set of keys under a tall lamp", 0.1, lamp_word=True)
    assert set(opts["toggle_target"]) == {"DeskLamp", "FloorLamp"}
    assert without_absent(opts, {"DeskLamp"})["toggle_target"] == ("FloorLamp",)
    assert gone({"KeyChain", "DeskLamp"}, ()) == {"DeskLamp"}  # an object may be in a closed drawer: it stays
    desk = {**opts, "parent_target": ("Desk", "none")}
    left = without_absent(desk, {"Desk"})["parent_target"]
    assert "Desk" not in left and "none" not in left and "Shelf" in left  # the task named a parent: any other
    client = _Client(" object=KeyChain parent=none mrecep=none toggle=FloorLamp state=none sliced=no two=no")
    adapter = Adapter(client, [], options="lexicon", lamp_word=True, drop_absent=True)
    adapter.predict("Examine a set of keys under a tall lamp", (), {"DeskLamp"})
    assert client.sent[-1][1].slots[3] == ("FloorLamp",)
    Adapter(client, [], options="lexicon", lamp_word=True).predict("Examine a set of keys under a tall lamp", (),
                                                                    {"DeskLamp"})
    assert set(client.sent[-1][1].slots[3]) == {"DeskLamp", "FloorLamp"}  # off: the absent lamp is still offered


def test_an_object_found_absent_is_offered_no_more_once_a_namesake_is_seen():
    from household.world.ontology import name_siblings
    from planner.adapter.predict import gone, without_absent
    assert name_siblings("Knife") == {"ButterKnife"} and "Glassbottle" in name_siblings("WineBottle")
    assert name_siblings("Apple") == frozenset() and name_siblings("AppleSliced") == frozenset()  # slices apart
    # A walk found no wine bottle: it goes only once a glass bottle has been seen (else it may be in a drawer).
    assert gone({"WineBottle", "Desk"}, {"Glassbottle"}, siblings=True) == {"WineBottle", "Desk"}
    assert gone({"WineBottle", "Desk"}, {"Apple"}, siblings=True) == {"Desk"}
    assert gone({"WineBottle"}, {"Glassbottle"}, siblings=False) == frozenset()
    instruction = "Put a plate with a bottle on top of it in the sink."
    opts = lexicon_options(instruction, 0.1, container_with=True)
    assert {"WineBottle", "Glassbottle"} <= set(opts["object_target"])
    left = without_absent(opts, {"WineBottle"})["object_target"]
    assert "WineBottle" not in left and "Glassbottle" in left
    assert without_absent(opts, set(opts["object_target"]))["object_target"] == opts["object_target"]  # never empty
    client = _Client(" object=Glassbottle parent=SinkBasin mrecep=Plate toggle=none state=none sliced=no two=no")
    adapter = Adapter(client, [], options="lexicon", container_with=True, drop_sibling=True)
    adapter.predict(instruction, (), {"WineBottle"}, ("Glassbottle", "Plate"))
    assert "WineBottle" not in client.sent[-1][1].slots[0] and "Glassbottle" in client.sent[-1][1].slots[0]
    adapter.predict(instruction, (), {"WineBottle"}, ("Plate",))  # no namesake seen: still offered
    assert "WineBottle" in client.sent[-1][1].slots[0]


def test_a_slice_word_decides_sliced():
    cool = "put a cooled potato inside the microwave"  # 'potato' alone points to sliced in the lexicon
    assert lexicon_options(cool, 0.1, slice_word=True)["object_sliced"] == ("no",)
    assert lexicon_options("Put a chilled piece of potato in the microwave", 0.1, slice_word=True)[
        "object_sliced"] == ("yes",)
    assert lexicon_options("Look at a sliced apple under the lamp", 0.1, lamp_word=True,
                           slice_word=True)["object_sliced"] == ("no",)  # a look-at task is never sliced
