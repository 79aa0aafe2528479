import json
import shutil
from pathlib import Path

import pytest

from household.alfworld.importer import decode_location, decode_name, find_games, load_alfworld_game
from household.expert.env import Env
from household.expert.expert import solve
from household.world.resources import games_dir

SAMPLES = games_dir("alfworld_samples")


def test_three_samples_load_and_solve():
    games = find_games(SAMPLES)
    assert len(games) == 3
    for g in games:
        task, scene = load_alfworld_game(g)
        assert task.split == "alfworld" and task.annotations and scene.source == "alfworld"
        res = solve(task, scene=scene)
        assert res.success, (g.name, res.reason)


def test_exact_placement_from_pddl():
    g = next(g for g in find_games(SAMPLES) if "Apple" in g.name)
    task, scene = load_alfworld_game(g)
    assert task.floorplan == 10 and task.args.object_state == "heat"
    apples = {o.parent for o in scene.objects if o.cls == "Apple"}
    assert "Sink|-00.70|+00.93|-00.65|SinkBasin" in apples  # where ALFWorld's expert took apple 3
    env = Env(task, scene=scene)
    assert env.step("Navigation SinkBasin").ok and "Apple" in env.observe().objects


def test_game_tw_pddl_alone(tmp_path):
    src = next(g for g in find_games(SAMPLES) if "Pillow" in g.name)
    dst = tmp_path / "pick_two_obj_and_place-Pillow-None-Sofa-219" / "trial_T20190907_163327_486300"
    dst.mkdir(parents=True)
    shutil.copy(src / "game.tw-pddl", dst)
    shutil.copy(src / "traj_data.json", dst)
    task, scene = load_alfworld_game(dst)
    assert task.id == "pick_two_obj_and_place-Pillow-None-Sofa-219/trial_T20190907_163327_486300"
    assert solve(task, scene=scene).success


def test_malformed_files_name_file_and_field(tmp_path):
    src = next(iter(find_games(SAMPLES)))
    bad = tmp_path / "g"
    bad.mkdir()
    traj = json.loads((src / "traj_data.json").read_text())
    del traj["task_type"]
    (bad / "traj_data.json").write_text(json.dumps(traj))
    shutil.copy(src / "initial_state.pddl", bad)
    with pytest.raises(ValueError, match=r"traj_data\.json: missing field 'task_type'"):
        load_alfworld_game(bad)
    (bad / "traj_data.json").write_text((src / "traj_data.json").read_text())
    (bad / "initial_state.pddl").write_text("(define (problem p) (:domain alfred))")
    with pytest.raises(ValueError, match=r"initial_state\.pddl: missing section '\(:init'"):
        load_alfworld_game(bad)
    (bad / "initial_state.pddl").write_text("(define (problem p) (:init (receptacleType Fridge_bar_1 FridgeType) (atLocation agent1 loc_bar_1_bar_1_bar_0_bar_30)))")
    with pytest.raises(ValueError, match=r"initial_state\.pddl: field 'receptacleAtLocation'"):
        load_alfworld_game(bad)
    (bad / "traj_data.json").write_text("{oops")
    with pytest.raises(ValueError, match=r"traj_data\.json: line 1"):
        load_alfworld_game(bad)


def test_decoders():
    assert decode_name("Cabinet_bar__plus_00_dot_65_bar__minus_01_dot_72") == "Cabinet|+00.65|-01.72"
    assert decode_location("loc_bar__minus_1_bar_3_bar_1_bar_60", "x") == (-0.25, 0.75, 90, 60)
