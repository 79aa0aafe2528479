"""`evaluate` on the ALFWorld backend (world.backend: alfworld): the stage's own items and episode work, every
sample game played in ALFWorld's engine by the LLM planner against the scripted endpoint; SR per task type."""
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

import llm.client as llm_client
from flows.stages.alfworld_games import eval_splits
from flows.stages.evaluate import plan
from household.alfworld.env import INSTALL_HINT, alfworld_available, load_games
from household.expert.expert import expert_plan
from household.world.resources import games_dir
from household.world.tasks import load_tasks
from llm.scripted import ScriptedEndpoint
from planner.relabel.gt_samples import build_gt_samples
from planner.variants import PRESETS
from pools.jsonl import read_jsonl, write_jsonl
from pools.analysis.metrics import details

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = games_dir("alfworld_samples")
pytestmark = pytest.mark.skipif(not alfworld_available(), reason=INSTALL_HINT)


def _workspace(tmp: Path, games: Path) -> dict:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["world"].update(backend="alfworld", alfworld_games=str(games))
    params["evaluate"]["variants"]["llm_planner"] = PRESETS["llm_planner"]
    (tmp / "params.yaml").write_text(yaml.safe_dump(params))
    train = [t for t in load_tasks("train") if t.task_type == "pick_and_place_simple"][:2]
    write_jsonl(tmp / "data/pools/gt.jsonl", [s.model_dump() for s in build_gt_samples(train)], "sample")
    write_jsonl(tmp / "data/pools/hindsight.jsonl", [], "sample")
    write_jsonl(tmp / "data/tasks.jsonl", [], "task")  # not read on this backend: the games are the tasks
    return params


def test_evaluate_plays_every_game_in_alfworld_and_reports_sr_per_type(tmp_path, monkeypatch):
    params = _workspace(tmp_path, SAMPLES)
    params["evaluate"]["task_set"] = "all"  # two of the three are of dev-set specs (heldout leaves them out)
    monkeypatch.chdir(tmp_path)
    planned = plan(params, "llm_planner", "fail")
    games = {g.task.id: g for g in load_games(SAMPLES)}
    assert sorted(i for i, _ in planned.items) == sorted(games)
    assert {row["split"] for _, row in planned.items} == {"alfworld"} and eval_splits(params) == ["alfworld"]
    # The planner's actor is answered with the expert plan of the game whose instruction the prompt carries,
    # except the Pillow game, answered with walks only (it must fail: the scores are the planner's, not given).
    plans = {g.task.instruction(0): expert_plan(g.task, scene=g.scene) for g in games.values()}

    def answer(req):
        for text, steps in plans.items():
            if text in req.prompt:
                if "pillow" in text.lower():
                    return " Navigation Sofa; Navigation ArmChair"
                return " " + "; ".join(steps)
        return " Stop"

    with ScriptedEndpoint(answer) as ep, llm_client.LLMClient(ep.settings(), cache_dir=tmp_path / "cache") as client:
        rollouts = [planned.work(client, row) for _, row in planned.items]
    write_jsonl(tmp_path / "out.jsonl", rollouts, "rollout")  # the stage's output schema
    rollouts = read_jsonl(tmp_path / "out.jsonl", "rollout").records
    by_type = details("llm_planner", rollouts)["by_split"]["alfworld"]["by_type"]
    assert by_type["pick_heat_then_place_in_recep"]["sr"] == 1.0
    assert by_type["pick_two_obj_and_place"]["sr"] == 0.5 and by_type["pick_two_obj_and_place"]["episodes"] == 2
    assert all(r["split"] == "alfworld" and r["steps"] for r in rollouts)


def test_a_malformed_game_fails_the_stage_naming_the_file(tmp_path, monkeypatch):
    games = tmp_path / "games"
    src = next(d for d in SAMPLES.iterdir() if "SoapBar" in d.name) if isinstance(SAMPLES, Path) else None
    src = src or next(Path(str(SAMPLES)).glob("*SoapBar*"))
    shutil.copytree(src, games / src.name)
    tw = games / src.name / "game.tw-pddl"
    tw.write_text(json.dumps({"pddl_domain": "(define)", "grammar": "g"}))
    params = _workspace(tmp_path, games)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=re.escape(str(tw)) + r": missing field 'pddl_problem'"):
        plan(params, "llm_planner", "fail")
