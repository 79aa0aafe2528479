import pytest

from household.expert.env import Env
from household.expert.scene import build_scene
from household.world.tasks import load_tasks

from tests.household.helpers import kitchen, make_task


def env_for(task_type="pick_heat_then_place_in_recep", obj="Apple", parent="DiningTable", **kw):
    return Env(make_task(task_type, obj, parent, **kw), scene=kitchen())


def run(env, *subgoals):
    res = None
    for sg in subgoals:
        res = env.step(sg)
        assert res.ok, (sg, res.reason)
    return res


@pytest.mark.parametrize("setup, subgoal, reason", [
    ((), "PickupObject Apple", "Apple not found"),
    (("Navigation CounterTop",), "PickupObject Fridge", "Fridge cannot be picked up"),
    (("Navigation CounterTop", "PickupObject Apple"), "PickupObject Knife", "already holding Apple"),
    (("Navigation CounterTop",), "SliceObject Apple", "no Knife in hand"),
    (("Navigation CounterTop",), "PutObject Apple CounterTop", "not holding anything"),
    (("Navigation CounterTop", "PickupObject Apple"), "PutObject Knife CounterTop", "holding Apple, not Knife"),
    (("Navigation CounterTop", "PickupObject Apple", "Navigation Fridge"), "PutObject Apple Fridge",
     "Fridge is closed"),
    (("Navigation CounterTop", "PickupObject Apple"), "PutObject Apple Fridge", "Fridge not here"),
    (("Navigation CounterTop", "PickupObject Knife", "Navigation Microwave", "OpenObject Microwave"),
     "PutObject Knife Microwave", "Microwave cannot hold Knife"),
    (("Navigation Fridge", "OpenObject Fridge", "CloseObject Fridge"), "PickupObject Tomato", "Fridge is closed"),
    (("Navigation Fridge",), "CloseObject Fridge", "Fridge is already closed"),
    (("Navigation Fridge",), "OpenObject Microwave", "Microwave not here"),
    (("Navigation CounterTop",), "OpenObject Apple", "Apple cannot be opened"),
    (("Navigation CounterTop",), "ToggleObjectOn Apple", "Apple cannot be toggled"),
    (("Navigation CounterTop",), "ToggleObjectOn Faucet", "Faucet not found"),
    (("Navigation Microwave",), "ToggleObjectOff Microwave", "Microwave is already off"),
    (("Navigation CounterTop",), "SliceObject Knife", "Knife cannot be sliced"),
    ((), "Fly Apple", "unknown action 'Fly'"),
    ((), "PickupObject Unicorn", "unknown class 'Unicorn'"),
    ((), "PutObject Apple", "PutObject takes 2 arguments"),
    ((), "Navigation Window", "cannot navigate to Window"),
])
def test_precondition_failures_have_reason_and_change_nothing(setup, subgoal, reason):
    env = env_for()
    run(env, *setup)
    before = env.world_state()
    obs = env.observe()
    res = env.step(subgoal)
    assert not res.ok and res.reason == reason
    assert env.world_state() == before and res.observation == obs
    assert env.failed_subgoals == 1 and not res.done


def test_navigation_explores_and_fails_when_absent():
    env = env_for()
    res = env.step("Navigation Pillow")
    assert not res.ok and res.reason == "Pillow not found"
    assert env.low_steps > 0  # it walked the room looking


def test_hidden_until_opened():
    env = env_for()
    run(env, "Navigation Fridge")
    assert not any(o.startswith("Tomato") for o in env.observe().objects)
    assert "Fridge (closed)" in env.observe().objects
    assert env.step("PickupObject Tomato").reason == "Tomato not found"  # the agent never saw it
    run(env, "OpenObject Fridge")
    obs = env.observe()
    assert "Tomato" in obs.objects and "Fridge (open)" in obs.objects
    run(env, "PickupObject Tomato")
    assert env.observe().holding == "Tomato"


def test_observation_is_what_was_seen_only():
    env = env_for()
    assert env.observe().objects == () and env.observe().location is None
    run(env, "Navigation CounterTop")
    obs = env.observe()
    assert obs.location == "CounterTop" and {"Apple", "Knife", "CounterTop"} <= set(obs.objects)
    assert "Mug" not in obs.objects and "Book" not in obs.objects
    assert "Apple" in obs.text() and "CounterTop" in obs.text()


def test_heat_cool_clean_slice_effects():
    env = env_for()
    run(env, "Navigation CounterTop", "PickupObject Knife", "SliceObject Apple", "PutObject Knife CounterTop",
        "PickupObject AppleSliced", "Navigation Microwave", "OpenObject Microwave", "PutObject AppleSliced Microwave",
        "CloseObject Microwave", "ToggleObjectOn Microwave")
    assert "AppleSliced (hot)" in env.observe().objects and "Microwave (closed, on)" in env.observe().objects
    run(env, "ToggleObjectOff Microwave", "OpenObject Microwave", "PickupObject AppleSliced",
        "Navigation Fridge", "OpenObject Fridge", "PutObject AppleSliced Fridge", "CloseObject Fridge")
    run(env, "OpenObject Fridge", "PickupObject AppleSliced", "Navigation SinkBasin", "PutObject AppleSliced Sink",
        "ToggleObjectOn Faucet")
    assert "AppleSliced (hot, cold, clean)" in env.observe().objects


def test_navigation_costs_steps_and_interactions_count_one():
    env = env_for()
    run(env, "Navigation CounterTop")
    after_nav = env.low_steps
    assert after_nav > 0
    run(env, "PickupObject Apple")
    assert env.low_steps == after_nav + 1 and env.subgoals_executed == 2


def test_max_fails_and_max_steps_end_episode():
    env = Env(make_task("pick_and_place_simple", "Apple", "Fridge"), scene=kitchen(), max_fails=3)
    for _ in range(3):
        res = env.step("PickupObject Apple")
    assert res.done and env.done_reason == "max_fails"
    assert not env.step("Navigation Fridge").ok  # nothing runs after the end
    env = Env(make_task("pick_and_place_simple", "Apple", "Fridge"), scene=kitchen(), max_steps=5)
    res = env.step("Navigation Desk")
    assert res.done and env.done_reason == "max_steps"


def test_stop_ends_episode():
    env = env_for()
    res = env.step("Stop")
    assert res.ok and res.done and env.done_reason == "stop" and not env.success


@pytest.mark.parametrize("split", ["valid_unseen", "train"])
def test_seeded_scenes_reproducible(split):
    for t in load_tasks(split)[:25]:
        assert build_scene(t, 3) == build_scene(t, 3)
        e1, e2 = Env(t, seed=3), Env(t, seed=3)
        for sg in ("Navigation CounterTop", "Navigation Apple", "Navigation Fridge", "OpenObject Fridge"):
            assert e1.step(sg) == e2.step(sg)
    t = load_tasks(split)[0]
    assert any(build_scene(t, s) != build_scene(t, 0) for s in range(1, 5))


def test_scene_follows_alfred_plan_and_receptacle_rules():
    from household.world.ontology import accepts
    for t in load_tasks("valid_unseen")[:60]:
        scene = build_scene(t)
        places = {p.id: p for p in scene.places}
        x = scene.roles["object"][0]
        xobj = next(o for o in scene.objects if o.id == x)
        # the task is never done before it starts
        assert Env(t, scene=scene).goal_conditions()[0] == 0 or t.task_type == "look_at_obj_in_light"
        for o in scene.objects:
            if o.id in sum(scene.roles.values(), ()) or o.cls in ("Faucet", "DeskLamp"):
                continue
            if o.parent in places:
                assert accepts(places[o.parent].cls, o.cls), (t.id, o)
        assert xobj.cls == t.args.object_target
