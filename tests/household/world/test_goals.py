"""Goal conditions counted as ALFRED counts them, per task type."""
from household.expert.env import Env
from household.world.goals import total_conditions

from tests.household.helpers import kitchen, make_task


def steps(env, *sgs):
    out = []
    for sg in sgs:
        res = env.step(sg)
        assert res.ok, (sg, res.reason)
        out.append(env.goal_conditions())
    return out


def test_totals():
    assert total_conditions("pick_and_place_simple", False) == 1
    assert total_conditions("pick_and_place_simple", True) == 2
    assert total_conditions("look_at_obj_in_light", False) == 2
    assert total_conditions("pick_two_obj_and_place", False) == 2
    assert total_conditions("pick_two_obj_and_place", True) == 4
    for tt in ("pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep", "pick_clean_then_place_in_recep",
               "pick_and_place_with_movable_recep"):
        assert total_conditions(tt, False) == 3 and total_conditions(tt, True) == 4


def test_simple_sliced():
    env = Env(make_task("pick_and_place_simple", "Apple", "DiningTable", sliced=True), scene=kitchen())
    gc = steps(env, "Navigation CounterTop", "PickupObject Knife", "SliceObject Apple", "PutObject Knife CounterTop",
               "PickupObject AppleSliced", "Navigation DiningTable", "PutObject AppleSliced DiningTable")
    assert gc == [(0, 2), (0, 2), (1, 2), (1, 2), (1, 2), (1, 2), (2, 2)]
    assert env.success and env.done_reason == "success"


def test_pick_two_counts_one_receptacle_capped_at_two():
    env = Env(make_task("pick_two_obj_and_place", "Apple", "DiningTable", sliced=True), scene=kitchen(),
              stop_on_success=False)
    gc = steps(env, "Navigation CounterTop", "PickupObject Knife", "SliceObject Apple", "PutObject Knife CounterTop",
               "PickupObject AppleSliced", "Navigation DiningTable", "PutObject AppleSliced DiningTable",
               "Navigation CounterTop", "PickupObject AppleSliced", "Navigation DiningTable",
               "PutObject AppleSliced DiningTable", "Navigation CounterTop", "PickupObject AppleSliced",
               "Navigation DiningTable", "PutObject AppleSliced DiningTable")
    assert gc[2] == (2, 4)  # three slices exist, the sliced condition counts up to two
    assert gc[6] == (3, 4) and gc[10] == (4, 4) and gc[-1] == (4, 4)


def test_look_at_needs_hold_and_lamp_on_here():
    env = Env(make_task("look_at_obj_in_light", "Book", toggle="DeskLamp"), scene=kitchen())
    gc = steps(env, "Navigation Desk", "ToggleObjectOn DeskLamp", "ToggleObjectOff DeskLamp", "PickupObject Book",
               "ToggleObjectOn DeskLamp")
    assert gc == [(0, 2), (1, 2), (0, 2), (1, 2), (2, 2)]


def test_heat_history_and_placement():
    env = Env(make_task("pick_heat_then_place_in_recep", "Apple", "DiningTable"), scene=kitchen())
    gc = steps(env, "Navigation CounterTop", "PickupObject Apple", "Navigation DiningTable",
               "PutObject Apple DiningTable", "PickupObject Apple", "Navigation Microwave", "OpenObject Microwave",
               "PutObject Apple Microwave", "CloseObject Microwave", "ToggleObjectOn Microwave",
               "ToggleObjectOff Microwave", "OpenObject Microwave", "PickupObject Apple", "Navigation DiningTable",
               "PutObject Apple DiningTable")
    assert gc[3] == (1, 3) and gc[9] == (1, 3) and gc[12] == (1, 3) and gc[-1] == (3, 3)


def test_cool_counts_on_fridge_close():
    env = Env(make_task("pick_cool_then_place_in_recep", "Apple", "DiningTable"), scene=kitchen())
    gc = steps(env, "Navigation CounterTop", "PickupObject Apple", "Navigation Fridge", "OpenObject Fridge",
               "PutObject Apple Fridge", "CloseObject Fridge", "OpenObject Fridge", "PickupObject Apple",
               "Navigation DiningTable", "PutObject Apple DiningTable")
    assert gc[4] == (0, 3) and gc[5] == (1, 3) and gc[-1] == (3, 3)


def test_clean_with_faucet():
    env = Env(make_task("pick_clean_then_place_in_recep", "Apple", "DiningTable"), scene=kitchen())
    gc = steps(env, "Navigation CounterTop", "PickupObject Apple", "Navigation SinkBasin",
               "PutObject Apple SinkBasin", "ToggleObjectOn Faucet", "ToggleObjectOff Faucet", "PickupObject Apple",
               "Navigation DiningTable", "PutObject Apple DiningTable")
    assert gc[3] == (0, 3) and gc[4] == (1, 3) and gc[-1] == (3, 3)


def test_movable_recep():
    env = Env(make_task("pick_and_place_with_movable_recep", "Apple", "CounterTop", mrecep="Bowl"), scene=kitchen())
    gc = steps(env, "Navigation CounterTop", "PickupObject Apple", "Navigation DiningTable", "PutObject Apple Bowl",
               "PickupObject Bowl", "Navigation CounterTop", "PutObject Bowl CounterTop")
    assert gc[3] == (1, 3) and gc[4] == (1, 3) and gc[-1] == (3, 3)
