"""ALFWorld's protocol on its 134 evaluation games (world.alfworld_goal: templated, world.max_actions) and the ReAct
baseline (`search: react`), in ALFWorld's real engine on two of the games, the LLM scripted."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import llm.client as llm_client
from household.alfworld.env import INSTALL_HINT, AlfworldEnv, alfworld_available, load_game
from household.world.resources import data_path, games_dir
from llm.scripted import ScriptedEndpoint, grammar_choices
from planner.config import PlannerConfig
from planner.loop.episode import run_episode
from planner.prompts.react import HEADER, PREFIXES, TASK, load_examples
from planner.retrieval.examples import ExamplePools
from planner.variants import PRESETS, get_variant
from pools.jsonl import plain, read_jsonl, record_problem, write_jsonl
from tests.profiles import with_profile

ROOT = Path(__file__).resolve().parents[2]
UNSEEN = "../alfworld/json_2.1.1/valid_unseen"
PROMPTS = "../alfworld/prompts/alfworld_3prompts.json"
LOOK = "look_at_obj_in_light-AlarmClock-None-DeskLamp-308/trial_T20190908_222917_366542"
PUT = "pick_and_place_simple-Mug-None-Desk-308"
pytestmark = [pytest.mark.skipif(not alfworld_available(), reason=INSTALL_HINT),
              pytest.mark.skipif(not games_dir(UNSEEN).is_dir() or not data_path(PROMPTS).is_file(),
                                 reason="ALFWorld's 134 games and ReAct's prompts are not beside the data directory")]


def _game(rel: str = LOOK):
    path = games_dir(UNSEEN) / rel
    return load_game(path if (path / "game.tw-pddl").is_file() else next(path.glob("trial_*")))


def _cfg(variant: str, **world) -> PlannerConfig:
    world = {"backend": "alfworld", "alfworld_games": UNSEEN, "alfworld_goal": "templated", "max_actions": 50,
             **world}
    return PlannerConfig.from_params({"world": world}, variant=get_variant(variant))


@pytest.fixture(scope="module")
def pools() -> ExamplePools:
    from household.world.tasks import load_tasks
    from planner.relabel.gt_samples import build_gt_samples

    train = [t for t in load_tasks("train") if t.task_type == "pick_and_place_simple"][:2]
    return ExamplePools.from_records(build_gt_samples(train), [])


def _react(tmp_path, answer, variant="react", **world):
    cfg = _cfg(variant, **world)
    with ScriptedEndpoint(answer) as ep, \
            llm_client.LLMClient(ep.settings(constrain="grammar"), cache_dir=tmp_path / "cache") as client:
        rollout = run_episode(_game().task, variant, ExamplePools.from_records([], []), client, cfg, seed=0)
    return rollout, ep.requests


def test_the_agent_reads_alfworlds_templated_goal_not_the_annotation(tmp_path, pools):
    game = _game()
    assert game.task.instruction(0) == "Hold the clock and turn on the lamp."
    cfg = _cfg("llm_planner", max_actions=0)
    with ScriptedEndpoint(lambda req: " Stop") as ep, \
            llm_client.LLMClient(ep.settings(), cache_dir=tmp_path / "cache") as client:
        rollout = run_episode(game.task, "llm_planner", pools, client, cfg, seed=0)
    goal = "examine the alarmclock with the desklamp."
    assert rollout.instruction == goal
    prompts = [r.prompt for r in ep.requests]
    assert prompts and all(goal in p and "Hold the clock" not in p for p in prompts)


def test_every_role_retrieves_its_examples_by_the_templated_goal(tmp_path, pools, monkeypatch):
    # actors, adapter and critic choose their examples by the text the prompts show, never by the annotation
    queries: list[str] = []
    retrieve = ExamplePools.retrieve

    def spy(self, pool, text, *args, **kwargs):
        queries.append(text)
        return retrieve(self, pool, text, *args, **kwargs)

    monkeypatch.setattr(ExamplePools, "retrieve", spy)
    game = _game()
    with ScriptedEndpoint(lambda req: " Stop") as ep, \
            llm_client.LLMClient(ep.settings(), cache_dir=tmp_path / "cache") as client:
        rollout = run_episode(game.task, "hindsight", pools, client, _cfg("hindsight", max_actions=1), seed=0)
    assert rollout.instruction == "examine the alarmclock with the desklamp."
    assert len(queries) >= 3 and set(queries) == {rollout.instruction}  # adapter, the two actors, the critic


def test_the_action_budget_counts_every_command_and_ends_the_game():
    game = _game()
    free = AlfworldEnv(game.task, game, max_actions=0)
    walk = free.step("Navigation Shelf")  # the agent knows no shelf yet: it explores place after place
    assert walk.ok and len(free.last_commands) >= 3 and free.actions_used == len(free.last_commands)
    capped = AlfworldEnv(game.task, game, max_actions=2)
    res = capped.step("Navigation Shelf")
    assert not res.ok and "budget" in res.reason
    assert capped.actions_used == 2 and capped.done and capped.done_reason == "max_actions"
    assert not capped.step("Navigation Desk").ok and capped.actions_used == 2  # nothing more is sent


def test_the_planners_record_counts_alfworld_actions_per_subgoal(tmp_path, pools):
    cfg = _cfg("llm_planner", max_actions=4)
    with ScriptedEndpoint(lambda req: " Navigation Shelf; Navigation Bed; Navigation Desk") as ep, \
            llm_client.LLMClient(ep.settings(), cache_dir=tmp_path / "cache") as client:
        rollout = run_episode(_game().task, "llm_planner", pools, client, cfg, seed=0)
    per = rollout.metrics["alfworld_actions_per_subgoal"]
    assert sum(per) == rollout.metrics["alfworld_actions"] == 4 and max(per) > 1
    assert rollout.metrics["stop_reason"] == "max_actions"


def test_react_prompt_holds_the_two_published_examples_of_the_type_in_reacts_order(tmp_path):
    rollout, requests = _react(tmp_path, lambda req: "Think: I look around.", max_actions=2)
    examples = load_examples(data_path(PROMPTS))
    first = requests[0].prompt
    game = _game()
    welcome = AlfworldEnv(game.task, game).welcome
    assert first == HEADER + examples["react_examine_1"] + examples["react_examine_0"] + TASK + welcome + "\n"
    assert "Your task is to: examine the alarmclock with the desklamp." in welcome
    others = [k for k in examples if k not in ("react_examine_1", "react_examine_0")]
    assert not any(examples[k] in first for k in others)
    assert set(PREFIXES.values()) == {k.split("_")[1] for k in examples if k.startswith("react_")}


def test_a_constrained_react_action_is_always_admissible(tmp_path):
    seen: list[list[str]] = []

    def answer(req):
        options = grammar_choices(req.body)
        if options:
            seen.append(options)
            return options[-1]
        return "Action: fly to the moon"  # never a command the engine admits

    rollout, _ = _react(tmp_path, answer, max_actions=5)
    actions = [s for s in rollout.steps if not s.subgoal.startswith("Think:")]
    assert len(actions) == 5 == len(seen) == rollout.metrics["react_constrained"]
    assert all(s.ok and s.subgoal == opts[-1] for s, opts in zip(actions, seen))


def test_free_react_actions_get_nothing_happens(tmp_path):
    cfg_free = {"backend": "alfworld", "alfworld_games": UNSEEN, "alfworld_goal": "templated", "max_actions": 3}
    params = {"world": cfg_free, "planner": {"react_actions": "free"}}
    cfg = PlannerConfig.from_params(params, variant=get_variant("react"))
    with ScriptedEndpoint(lambda req: "Action: fly to the moon") as ep, \
            llm_client.LLMClient(ep.settings(constrain="grammar"), cache_dir=tmp_path / "cache") as client:
        rollout = run_episode(_game().task, "react", ExamplePools.from_records([], []), client, cfg, seed=0)
    assert [s.reason for s in rollout.steps] == ["Nothing happens."] * 3
    assert rollout.metrics["react_constrained"] == 0 and rollout.metrics["alfworld_actions"] == 3


def test_react_thoughts_are_turns_but_not_engine_actions(tmp_path):
    # ReAct's first thought plans the whole game: 100 tokens run to about 450 characters, and the record keeps it.
    plan = ("Think: To solve the task, I need to find and take an alarmclock, then find and use a desklamp. First I "
            "need to find an alarmclock. An alarmclock is more likely to appear in drawer (1-6), desk (1-2), shelf "
            "(1-5), bed (1), garbagecan (1). I can check one by one, starting with desk 1. Then I will look for a "
            "desklamp, which is more likely to appear on a desk, a sidetable or a shelf, and use it to examine it.")
    lines = iter([plan, "Action: go to desk 1", "Think: not here.", "Action: go to desk 2", "Think: next.",
                  "Action: go to shelf 1"])
    rollout, _ = _react(tmp_path, lambda req: next(lines), max_actions=6)
    assert [s.subgoal for s in rollout.steps][1::2] == ["go to desk 1", "go to desk 2", "go to shelf 1"]
    assert rollout.metrics["react_thinks"] == 3 and rollout.metrics["alfworld_actions"] == 3
    assert len(rollout.steps) == 6 and rollout.metrics["stop_reason"] == "max_actions"  # thoughts spend turns
    assert rollout.steps[0].subgoal == plan and record_problem(plain(rollout), "rollout") is None


# ---------------------------------------------------------------------------------------------- resume after a kill
def _workspace(tmp: Path, url: str, model: str, games: Path | None = None) -> None:
    """A project at `tmp` whose react variant plays the look_at and put games (copied to `games`, else tmp/games)."""
    from household.world.tasks import load_tasks
    from planner.relabel.gt_samples import build_gt_samples

    games = games or tmp / "games"
    for rel in (LOOK, PUT):
        src = _game(rel).dir
        shutil.copytree(src, games / "valid_unseen" / src.parent.name / src.name, dirs_exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["evaluate"]["world"] = {"backend": "alfworld", "alfworld_games": str(games),  # as the profile
                                   "alfworld_goal": "templated", "max_actions": 4}
    params["planner"]["react_prompts"] = str(data_path(PROMPTS))
    params["llm"].update(endpoint=url, model=model, retries=0, timeout=5, constrain="grammar")
    params["evaluate"]["variants"] = {"react": PRESETS["react"]}
    (tmp / "params.yaml").write_text(yaml.safe_dump(params))
    train = [t for t in load_tasks("train") if t.task_type == "pick_and_place_simple"][:1]
    write_jsonl(tmp / "data/pools/gt.jsonl", [s.model_dump() for s in build_gt_samples(train)], "sample")
    write_jsonl(tmp / "data/tasks.jsonl", [], "task")


class _KillInSecondGame:
    """A scripted ReAct that notes which game each call plays and SIGKILLs the stage in the second (the mug) game,
    the first one journaled; `killed_run` starts the stage and waits for the kill."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.proc: subprocess.Popen | None = None
        self.killed = False

    def __call__(self, req):
        goal = "mug" if "put a mug in desk" in req.prompt.rsplit("Here is the task.", 1)[-1] else "clock"
        self.asked.append(goal)
        if goal == "mug" and self.proc is not None and self.proc.poll() is None and not self.killed:
            self.killed = True
            os.killpg(self.proc.pid, signal.SIGKILL)
        options = grammar_choices(req.body)
        return options[0] if options else "Think: I look around."

    def killed_run(self, cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.proc.wait(timeout=300)
        assert self.killed, "the first run ended before the kill"
        assert "clock" in self.asked
        self.asked.clear()


def test_a_killed_evaluation_resumes_without_replaying_a_finished_game(tmp_path, prefect_server):
    env = dict(os.environ, PREFECT_API_URL=prefect_server, PYTHONPATH=str(ROOT), DVC_NO_ANALYTICS="1")
    cmd = [sys.executable, "-m", "flows.cli", "stage", "evaluate", "react"]
    script = _KillInSecondGame()
    with ScriptedEndpoint(script) as ep:
        _workspace(tmp_path, ep.url, ep.model)
        script.killed_run(cmd, tmp_path, env)
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert script.asked and set(script.asked) == {"mug"}  # the finished game was not played again
    rollouts = read_jsonl(tmp_path / "data/eval/react.jsonl", "rollout").records
    assert len(rollouts) == 2 and {r["task_type"] for r in rollouts} == {"look_at_obj_in_light",
                                                                         "pick_and_place_simple"}
    summary = json.loads((tmp_path / "details/stages/evaluate-react.json").read_text())
    assert summary["reused"] == 1


def test_a_kept_journal_resumes_the_run_on_a_fresh_checkout(tmp_path, prefect_server):
    """$HINDSIGHT_JOURNAL_DIR outlives the machine: a new workspace plays only the game the kill cut, the finished
    run's journal stays, and a third workspace rebuilds the same output from it with no LLM call."""
    kept = tmp_path / "kept"
    env = dict(os.environ, PREFECT_API_URL=prefect_server, PYTHONPATH=str(ROOT), DVC_NO_ANALYTICS="1",
               HINDSIGHT_JOURNAL_DIR=str(kept))
    cmd = [sys.executable, "-m", "flows.cli", "stage", "evaluate", "react"]
    first, second, third = (tmp_path / name for name in ("a", "b", "c"))
    script = _KillInSecondGame()
    with ScriptedEndpoint(script) as ep:
        for ws in (first, second, third):  # three checkouts of one project: nothing of .cache/ carries over
            _workspace(ws, ep.url, ep.model, games=tmp_path / "games")
        script.killed_run(cmd, first, env)
        done = subprocess.run(cmd, cwd=second, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert script.asked and set(script.asked) == {"mug"}  # the game finished on the first machine: not replayed
        assert len(list(kept.glob("*.jsonl"))) == 1  # kept once the stage finished
        script.asked.clear()
        again = subprocess.run(cmd, cwd=third, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert script.asked == []
    out = "data/eval/react.jsonl"
    assert (third / out).read_bytes() == (second / out).read_bytes()
    assert len(read_jsonl(third / out, "rollout").records) == 2
    assert json.loads((third / "details/stages/evaluate-react.json").read_text())["reused"] == 2


def test_the_profile_plays_the_same_48_games_for_every_agent(tmp_path, monkeypatch):
    from flows.stages.evaluate import plan

    _workspace(tmp_path, "http://127.0.0.1:9", "m")
    params = with_profile(yaml.safe_load((ROOT / "params.yaml").read_text()),
                          yaml.safe_load((ROOT / "profiles/alfworld.yaml").read_text()))
    monkeypatch.chdir(tmp_path)
    played = {v: sorted(i for i, _ in plan(params, v, "fail").items) for v in ("react", "no_hindsight")}
    assert played["react"] == played["no_hindsight"] and len(played["react"]) == 48
    per_type: dict[str, int] = {}
    for item in played["react"]:
        per_type[item.split("-")[0]] = per_type.get(item.split("-")[0], 0) + 1
    assert sorted(per_type.values()) == [8] * 6
    params["evaluate"]["alfworld_per_type"] = 0
    assert len(plan(params, "react", "fail").items) == 134


def test_the_profile_lets_the_planners_spend_the_50_actions():
    from flows.stages.alfworld_games import eval_params
    from planner.config import PlannerConfig
    from planner.variants import Variant

    profile = yaml.safe_load((ROOT / "profiles/alfworld.yaml").read_text())
    params = with_profile(yaml.safe_load((ROOT / "params.yaml").read_text()), profile)
    world = eval_params(params)["world"]
    planners = [name for name in profile["evaluate"]["variants"] if not name.startswith("react")]
    assert len(planners) == 5 and "hindsight_corrections" in planners  # the probe's pick plays beside the others
    for name in planners:
        spec = Variant.parse(name, params["evaluate"]["variants"][name])
        cfg = PlannerConfig.from_params({"world": world, "retrieval": params["retrieval"],
                                         "planner": params["planner"]}, variant=spec)
        # no wandering rule and no ALFRED failure limit: success, Stop, the cap or the 50 actions end a game
        assert (cfg.episode.max_idle, cfg.world.max_fails, cfg.world.max_actions) == (0, 50, 50), name
        assert spec.planner["scaffold"] == ("full" if name.startswith("scaffold") else "none")  # merged, not lost
    assert params["planner"]["max_idle"] == 6  # the default pipeline's planner is unchanged


def test_evaluate_world_names_an_unknown_key():
    from flows.stages.alfworld_games import eval_params

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["evaluate"]["world"] = {"max_action": 50}
    with pytest.raises(ValueError, match=r"evaluate\.world\.max_action: not a key of world"):
        eval_params(params)
    params["evaluate"]["world"] = {"max_actions": 50}
    assert eval_params(params)["world"]["max_actions"] == 50 and params["world"]["max_actions"] == 0


def test_a_lamp_switched_on_is_on_and_a_second_switch_on_fails_as_in_ours():
    # The engine's facts never read isOn after `use` (not_ison and istoggled instead): the backend keeps it.
    g = _game()
    env = AlfworldEnv(g.task, g)
    assert env.step("Navigation DeskLamp").ok and env.goal_conditions()[0] == 0
    assert env.step("ToggleObjectOn DeskLamp").ok and env.last_commands[0][0].startswith("use desklamp")
    assert "DeskLamp (on)" in env.observe().here
    assert env.goal_conditions()[0] == 1  # the light condition: the lamp on where the agent stands
    assert env.step("ToggleObjectOn DeskLamp").reason == "DeskLamp is already on" and not env.last_commands
    assert env.step("ToggleObjectOff DeskLamp").ok and "DeskLamp (off)" in env.observe().here
