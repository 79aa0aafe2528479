"""`hindsight world crosscheck --alfworld DIR [--json]`: agreement and every disagreement, with ALFWorld's response."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flows.cli.main import main
from household.alfworld.env import INSTALL_HINT, alfworld_available, find_game_dirs
from household.world.resources import games_dir

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not alfworld_available(), reason=INSTALL_HINT)


def _games(tmp_path: Path) -> Path:
    """The SoapBar sample twice: as given, and with ALFWorld's goal moved to the toilet (ours, from traj_data.json,
    stays 'two soap bars in a cabinet')."""
    src = next(d for d in find_game_dirs(games_dir("alfworld_samples")) if "SoapBar" in d.name)
    for name in ("given", "goal_on_toilet"):
        dst = tmp_path / f"pick_two_obj_and_place-SoapBar-None-Cabinet-424-{name}" / "trial_T20190909_081746_857594"
        dst.mkdir(parents=True)
        shutil.copy(src / "traj_data.json", dst)
        text = (src / "game.tw-pddl").read_text()
        if name != "given":
            text = text.replace("(receptacleType ?r CabinetType)", "(receptacleType ?r ToiletType)")
        (dst / "game.tw-pddl").write_text(text)
    return tmp_path


def test_crosscheck_json_shape_and_disagreement(tmp_path):
    games = _games(tmp_path)
    out = subprocess.run([sys.executable, "-m", "flows.cli", "world", "crosscheck", "--alfworld", str(games),
                          "--json"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert {k: data[k] for k in ("games", "won_both", "agree", "ours_won", "alfworld_won")} == \
        {"games": 2, "won_both": 1, "agree": 1, "ours_won": 2, "alfworld_won": 1}
    assert data["agreement"] == 0.5 and data["won_both_share"] == 0.5
    assert len(data["results"]) == 2 and all(r["plan_len"] == 11 for r in data["results"])
    (d,) = data["disagreements"]
    assert d["game"] == "trial_T20190909_081746_857594" and "goal_on_toilet" in d["task_id"]
    assert d["ours_won"] and not d["alfworld_won"]  # every step ran in ALFWorld too: the goals differ
    assert d["step"] == 10 and d["subgoal"] == "PutObject SoapBar Cabinet"
    assert d["reason"] == "ALFWorld: goal not reached"
    # the second soap bar put is soapbar 1: the backend takes the one our `find_here` takes (visible order)
    assert d["commands"] == ["put soapbar 1 in/on cabinet 1"]
    assert d["alfworld_response"] == "You put the soapbar 1 in/on the cabinet 1."
    # what the agent is shown, step by step: 11 expert steps and 4 non-expert ones per game, all alike
    o = data["observations"]
    assert (o["steps"], o["wrong_steps"]) == (22, 8) and o["step_agreement"] == 1.0, o
    assert o["games_agree"] == 2 and o["first_differences"] == []


def test_crosscheck_text_and_errors(tmp_path, capsys):
    assert main(["world", "crosscheck", "--alfworld", str(tmp_path / "nowhere")]) == 1
    assert "nowhere: ALFWorld games folder not found" in capsys.readouterr().err
    games = _games(tmp_path)
    shutil.rmtree(next(games.glob("*-given")))
    assert main(["world", "crosscheck", "--alfworld", str(games)]) == 0
    text = capsys.readouterr().out
    assert "1 games; won in both worlds 0/1 (0.0%); verdicts agree 0/1" in text
    assert "ours won, ALFWorld lost; step 10 'PutObject SoapBar Cabinet': ALFWorld: goal not reached" in text
    assert "what the agent is shown: expert steps agree 11/11 (100.0%), non-expert steps 4/4 (100.0%)" in text


def test_random_subgoals_in_both_worlds(tmp_path):
    games = _games(tmp_path)
    shutil.rmtree(next(games.glob("*-goal_on_toilet")))
    out = subprocess.run([sys.executable, "-m", "flows.cli", "world", "crosscheck", "--alfworld", str(games),
                          "--random", "30", "--runs", "2", "--json"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    r = json.loads(out)["random"]
    assert r["games"] == 1 and r["runs"] == 2
    assert r["steps_compared"] == 60 and r["runs_diverged"] == 0, r["diverged"]
