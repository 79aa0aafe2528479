from household.world.subgoals import SubGoal, legal_subgoals, parse_subgoal


def test_parse_case_insensitive_and_canonical():
    assert str(parse_subgoal("putobject apple fridge")) == "PutObject Apple Fridge"
    assert parse_subgoal("('PutObject','Apple', 'Sink')") == SubGoal("PutObject", ("Apple", "Sink"))
    assert str(parse_subgoal("Navigation sink basin")) == "Navigation SinkBasin"
    assert str(parse_subgoal("stop")) == "Stop"
    for bad in ("", "Fly Apple", "PickupObject", "PickupObject Unicorn", "Stop now", "PutObject Apple"):
        assert parse_subgoal(bad) is None, bad


def test_legal_subgoals_follow_affordances():
    legal = set(legal_subgoals(["Apple", "Fridge", "Knife", "Microwave", "DeskLamp"]))
    assert {"PickupObject Apple", "PutObject Apple Fridge", "OpenObject Fridge", "SliceObject Apple",
            "ToggleObjectOn Microwave", "ToggleObjectOn DeskLamp", "Navigation Fridge", "Stop"} <= legal
    assert "PickupObject Fridge" not in legal and "SliceObject Knife" not in legal
    assert "PutObject Knife Microwave" not in legal  # ALFRED's receptacle rules
