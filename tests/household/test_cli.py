import io
import json
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

from flows.cli.cmd_world import _play
from household.world.resources import games_dir
from household.world.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]


def test_stats_json():
    out = subprocess.run([sys.executable, "-m", "flows.cli", "world", "stats", "--split", "valid_unseen", "--json",
                          "--limit", "20"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert data["tasks"] == 20 and data["expert_sr"] == 1.0 and data["unsolvable"] == []
    assert {"annotations", "by_type", "expert_len"} <= set(data)


def test_stats_alfworld():
    out = subprocess.run([sys.executable, "-m", "flows.cli", "world", "stats", "--alfworld",
                          str(games_dir("alfworld_samples")), "--json"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out)["tasks"] == 3 and json.loads(out)["expert_sr"] == 1.0


def test_play_piped():
    t = load_tasks("valid_unseen")[0]
    inp = io.StringIO("Navigation Desk\nPickupObject AlarmClock\nfly away\nNavigation Desk\nToggleObjectOn DeskLamp\n")
    out = io.StringIO()
    rc = _play(Namespace(task_id=t.id, seed=0, max_fails=10, max_steps=1000), inp, out)
    text = out.getvalue()
    assert rc == 0 and "FAILED: unknown action 'fly'" in text and "success=True" in text and "goal 2/2" in text
