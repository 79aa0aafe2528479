"""ALFWorld's games like for like: a ReAct turn records whether it was re-asked (exactly when the command the model
wrote was not one the engine admits), and `evaluate.task_set` picks ALFWorld's games as it picks our tasks (heldout:
no game of a dev-set spec), in ALFWorld's real engine on its 134 games, the LLM scripted."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import llm.client as llm_client
from flows.stages.alfworld_games import game_rows
from household.alfworld.env import INSTALL_HINT, AlfworldEnv, alfworld_available, load_game
from household.world.resources import data_path, games_dir
from household.world.tasks import dev_specs, spec_of
from llm.scripted import ScriptedEndpoint, grammar_choices
from planner.config import PlannerConfig
from planner.loop.episode import run_episode
from planner.retrieval.examples import ExamplePools
from planner.variants import get_variant

ROOT = Path(__file__).resolve().parents[2]
GAMES = "../alfworld/json_2.1.1"
UNSEEN = f"{GAMES}/valid_unseen"
PROMPTS = "../alfworld/prompts/alfworld_3prompts.json"
LOOK = "look_at_obj_in_light-AlarmClock-None-DeskLamp-308/trial_T20190908_222917_366542"
needs_games = pytest.mark.skipif(not games_dir(UNSEEN).is_dir(), reason="ALFWorld's 134 games are not beside the data "
                                                                        "directory")


# ------------------------------------------------------------------------------------------ the re-ask, turn by turn
# Turns as the model writes them: thoughts, admissible commands and commands the engine does not admit.
WRITTEN = ["Think: I look for an alarmclock.", "Action: go to desk 1", "Action: fly to the moon",
           "Action: go to desk 2", "Think: not here.", "Action: take the moon", "Action: look", "Action: go to desk 1"]


def _play(tmp_path: Path, actions: str):
    """One ReAct game whose model writes WRITTEN in turn; a constrained re-ask picks 'look' (always admissible).
    Returns the rollout and, per turn, whether a constrained re-ask was requested."""
    world = {"backend": "alfworld", "alfworld_games": UNSEEN, "alfworld_goal": "templated", "max_actions": len(WRITTEN)}
    cfg = PlannerConfig.from_params({"world": world, "planner": {"react_actions": actions}},
                                    variant=get_variant("react"))
    turns = iter(WRITTEN)
    asked: list[bool] = []

    def answer(req):
        if grammar_choices(req.body):  # the re-ask of the turn just written
            asked[-1] = True
            return "look"
        asked.append(False)
        return next(turns)

    game = load_game(games_dir(UNSEEN) / LOOK)
    with ScriptedEndpoint(answer) as ep, \
            llm_client.LLMClient(ep.settings(constrain="grammar"), cache_dir=tmp_path / "cache") as client:
        rollout = run_episode(game.task, "react", ExamplePools.from_records([], []), client, cfg, seed=0)
    return game, rollout, asked


def _refused_first(game) -> list[bool]:
    """Per turn of WRITTEN, replayed in a fresh engine (a refused command replaced by the re-ask's 'look'): whether
    the engine would have refused the command as written (not one of its admissible commands)."""
    env = AlfworldEnv(game.task, game, max_actions=0)
    out = []
    for line in WRITTEN:
        if line.startswith("Think:"):
            out.append(False)
            continue
        command = line.removeprefix("Action: ")
        refused = command not in env.admissible()
        out.append(refused)
        env.command("look" if refused else command)
    return out


@needs_games
@pytest.mark.skipif(not alfworld_available(), reason=INSTALL_HINT)
@pytest.mark.skipif(not data_path(PROMPTS).is_file(), reason="ReAct's prompts are not beside the data directory")
def test_a_turn_is_recorded_as_reasked_exactly_when_the_engine_refused_its_first_command(tmp_path):
    game, rollout, asked = _play(tmp_path, "admissible")
    flags = [s.reasked for s in rollout.steps]
    refused = _refused_first(game)
    assert flags == asked == refused and sum(flags) == 2  # 'fly to the moon', 'take the moon'
    assert rollout.metrics["react_constrained"] == 2 and rollout.metrics["react_actions"] == "admissible"
    assert [s.subgoal for s, r in zip(rollout.steps, flags) if r] == ["look", "look"]  # what ran: the re-ask's pick
    assert all(s.chosen_by == "llm" for s in rollout.steps)
    assert json.loads(rollout.model_dump_json())["steps"][2]["reasked"] is True  # written in the record
    # ReAct's published setting never re-asks: the same turns, no flag, the engine answers "Nothing happens."
    _, free, asked_free = _play(tmp_path / "free", "free")
    assert not any(s.reasked for s in free.steps) and not any(asked_free)
    assert [s.reason for s, r in zip(free.steps, refused) if r] == ["Nothing happens."] * 2
    assert free.metrics["react_actions"] == "free" and free.metrics["react_constrained"] == 0


# ---------------------------------------------------------------------------------- the games counted as held out
def _params(task_set: str, per_type: int = 0) -> dict:
    return {"world": {"seed": 0, "backend": "alfworld", "alfworld_games": GAMES},
            "evaluate": {"splits": ["valid_unseen"], "task_set": task_set, "alfworld_per_type": per_type}}


@needs_games
def test_the_games_counted_as_held_out_exclude_every_dev_set_spec():
    rows = {s: game_rows(_params(s))[0] for s in ("all", "heldout", "dev")}
    held, dev, every = ({r["id"] for r in rows[s]} for s in ("heldout", "dev", "all"))
    assert len(every) == 134 and (len(held), len(dev)) == (97, 37)
    assert not {spec_of(g) for g in held} & dev_specs()  # no game of a dev-set spec
    assert {spec_of(g) for g in dev} <= dev_specs() and held | dev == every and not held & dev
    # the profile plays all 134 (task_set: all): its 48 seeded games are those of the kept run, 11 of them dev-set
    kept = json.loads((ROOT / "benchmarks/results/run-b368628.json").read_text())["games"]["react"]
    played = sorted(r["id"] for r in game_rows(_params("all", 8))[0])
    assert played == kept and len([g for g in played if spec_of(g) in dev_specs()]) == 11


# ------------------------------------------------------------------------- the kept journals are of another protocol
def test_journals_kept_before_the_text_view_are_not_replayed_as_the_new_protocol():
    """A journal is keyed by the stage's declared params (and its inputs), not by code: the backend's view is a world
    key, so the journals of benchmarks/results/journal-alfworld/ (keyed before it existed, when the backend read the
    scene) match neither view, and the two views never share one."""
    import copy

    import yaml

    from flows.runtime.params import resume_key, stage_params

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    profile = yaml.safe_load((ROOT / "profiles/alfworld.yaml").read_text())

    def key(view: str | None) -> object:
        full = copy.deepcopy(params)
        full["evaluate"]["world"] = {k: v for k, v in profile["evaluate"]["world"].items() if k != "alfworld_view"}
        if view is None:  # as params.yaml and the profile stood when the journals were kept
            del full["world"]["alfworld_view"]
        else:
            full["evaluate"]["world"]["alfworld_view"] = view
        return resume_key(stage_params("evaluate", full, "no_hindsight"))

    assert params["world"]["alfworld_view"] == "text" == profile["evaluate"]["world"]["alfworld_view"]
    assert len({json.dumps(key(v), sort_keys=True) for v in (None, "text", "scene")}) == 3
