"""The ALFWorld backend: our environment interface (`observe`, `step`, `done`, `goal_conditions`, ...) over
ALFWorld's own TextWorld/PDDL engine, playing a `game.tw-pddl` offline (optional extra: `pip install -e .[alfworld]`).

Who decides what. ALFWorld's engine holds the state and decides every action: a command runs only when the
engine lists it as admissible, and the episode is won when the engine says so. The backend keeps only what the
agent was told (the engine's text after each command: what is on or in a receptacle on arrival or opening, what
was picked up or put down) and turns it into our `Observation`.

What the agent's actions may read (`view`, params.yaml `world.alfworld_view`). `text` (the default): only what
ALFWorld shows its agent, the intro (the room's receptacles, in its order), each answer of the engine and the
admissible commands. Every choice the backend makes for a sub-goal comes from them by a named rule: places rank in
the order the intro lists them (`intro_order`); `Navigation C` goes to the first known C in that order, else explores
the unvisited receptacles in that order; `PickupObject X` takes the first X the engine listed where the agent stands
whose `take` is admissible (then the first listed); objects are shown in the order the engine listed them; a
receptacle's open/closed is what the engine said on arrival; the microwave's and the faucets' switches (the
backend's own) start off, as do lamps; a sliced object is one the agent sliced. ALFRED's step limit (`max_steps`)
is not applied: its steps are travel over the scene's poses, which ALFWorld never shows (the field's budget is
`max_actions`). `scene`: the backend as it was before `text`, kept for `hindsight world crosscheck` (which compares
it with our world, whose rules read the scene) and for measuring what the scene was worth: from our import of the
game's scene it takes the map (the receptacles' poses: the nearest known C, and the order
`Navigation C` tries unvisited places, cheapest first within `explore_budget`, the same rule as
`household.world.navigation`), the pick-up and display order of our children lists, where an object listed at two
receptacles stands, the initial open/on states and the lamps' and slices' facts. In both views the names come from
the game's PDDL (PDDL id -> ALFWorld's 'apple 3', named as ALFWorld's Demangler does; the class is the one the name
shows), and the expert, the cost-to-go and the metrics (GC from the engine's facts, `low_steps` from the poses) may
read the game; the agent's actions may not (tests/household/alfworld/test_text_view.py moves every pose and finds
the same commands).

Where the two action spaces differ, and how each difference is resolved:
- Navigation. Ours: `Navigation C` to a class (a receptacle, or an object: walk to where it was seen), exploring
  unvisited places cheapest first when no C is known. ALFWorld: `go to R` to one receptacle instance. Resolved:
  the backend picks the instance by the view's rule (above) and issues one `go to` per place walked through
  (exploration walks and looks at each place in turn). ALFWorld's intro lists every receptacle of the room; the
  backend reports a place as seen only once visited, as ours does. A floor lamp (a place in ours, an object in
  ALFWorld) is reached by going to the receptacle that holds it (under `text`, once the engine listed it there).
- Pick up / put. `PickupObject X` -> `take x N from r M` (the first X seen where the agent stands, scene order);
  `PutObject X R` -> `put x N in/on r M` where the agent stands at an R. Putting into a movable receptacle (bowl,
  plate) is ALFWorld's `put ... in/on` on that receptacle when the engine lists it; ALFWorld's own actions for
  objects inside movable receptacles are disabled in its domain (the object inside stays behind).
- Heat / cool / clean. Ours: appliances act on what is inside them (microwave toggled on, fridge closed, faucet
  of a basin toggled on; or put into a running microwave / basin). ALFWorld: one command on the held object
  (`heat x with microwave 1`, `cool x with fridge 1`, `clean x with sinkbasin 1`); the microwave and the faucet
  have no switch there. Resolved: the backend keeps the microwave's and the faucets' on/off itself, marks what
  ours would heat/cool/clean as due, and when the agent takes a due object out of that appliance it issues
  `take` then ALFWorld's `heat/cool/clean ... with` on the spot. The effect thus lands in the engine when the
  object leaves the appliance, not when the switch is flipped: goal conditions of an object left inside differ (GC
  only; every task needs the object taken out and put elsewhere). The agent is shown the state as ours shows it,
  from the moment ours makes it ('Bread (cold)' in the closed fridge): an effect that is due reads as made.
- Toggle. Lamps: `ToggleObjectOn/Off DeskLamp` -> `use desklamp 1`; the backend keeps the lamp's on/off (the
  engine's facts never read isOn after a `use`) and checks it first, so that 'already on' fails as in ours. Microwave
  and faucet: kept by the backend (above); the faucet is seen at every basin as 'Faucet (on)' / 'Faucet (off)', as
  ours shows the faucet object it puts at each basin.
- Open / close. `OpenObject R` -> `open r M` where the agent stands at an R; openable objects (laptops) have no
  open/close in ALFWorld: such a sub-goal fails with that reason.
- Slice. `SliceObject X` -> `slice x N with knife M` (a knife held). ALFWorld marks the object sliced in place;
  ours makes XSliced pieces: the backend reports a sliced X as class XSliced, `PickupObject XSliced` takes it.
- Failures. ALFWorld answers 'Nothing happens.' to any command it does not admit. The backend states why, from
  what the agent was told (closed, not here, not holding, hands full) in our words; a command our rules would
  allow but the engine refuses fails with 'ALFWorld: Nothing happens (<command>)'.
- Objects in two places. ALFWorld lists an object in a receptacle that stands on another at both (a mug in the
  coffee machine on the counter); until the agent moves it, the backend shows it only where our import holds it,
  as ours does.
- Floor lamps. A floor lamp that stands in no receptacle cannot be walked to in ALFWorld (`go to` needs one):
  `Navigation FloorLamp` fails there and runs in ours (a remaining difference, reported by the crosscheck).
- What the agent is shown. Only the objects our world models (pickupable ones, desk lamps, faucets): ALFWorld also
  lists fixtures such as paper towel rolls that no task uses and ours leaves out of the scene. An openable object
  (box, laptop) shows open/closed as our import of the scene has it (ALFWorld cannot open or close it); a floor
  lamp walked past is seen, with its on/off from the engine's facts.
- Goal. Success is the engine's own verdict (`won`). Goal conditions (GC) are ALFRED's, counted by our rules over
  the engine's facts (inReceptacle, isHot/isCool/isClean, isSliced, holds, isOn); ALFWorld's `cool` deletes isHot
  and `heat` deletes isCool (states there, histories in ALFRED and ours).
- Steps. Low-level steps are counted as ours counts them (travel cost between the places' poses, one per
  interaction: a metric), so that ALFRED's max_steps means the same on both backends under `scene`; the engine's
  own command count is `engine_commands`.
- ALFWorld actions (the field's budget: 50 per game, `max_actions`). Every command a sub-goal issues counts as
  ALFWorld counts its agent's actions, including one the engine would answer 'Nothing happens.': `Navigation C`
  costs one `go to` per place walked through (an exploration of 3 places is 3), `PickupObject` 1 (2 when the
  object leaves a running microwave, a closed fridge or a running basin: `take` and ALFWorld's `heat/cool/clean
  ... with`), `PutObject`, `Open/CloseObject`, `SliceObject` and a desk lamp's toggle 1 each; the microwave's and
  the faucets' switches, which ALFWorld lacks, 0. A command past the budget is not sent: the sub-goal fails and
  the episode ends ('max_actions'). `actions_used` counts them; `command` sends one raw command (a text agent).
- The goal. `goal` is ALFWorld's templated goal ('examine the alarmclock with the desklamp.', as AlfredTWEnv shows
  it after 'Your task is to: '), and `welcome` the text the engine opens the game with (the room's receptacles and
  that line, as ReAct reads it), named as ALFWorld names them.
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from household.alfworld.importer import KEEP_FIXED, decode_name, load_alfworld_game
from household.world.goals import total_conditions
from household.world.layout import Scene
from household.world.navigation import NAVIGABLE, cost_table
from household.world.ontology import (
    CONTAINERS, KNIVES, LANDMARKS, MOVABLE_RECEPTACLES, OPENABLE, PICKUPABLE, PLACE_RECEPTACLES, SLICEABLE,
    SLICED_OF, TOGGLEABLE, canonical_class, place_class,
)
from household.world.state import WorldState
from household.world.subgoals import SubGoal
from household.world.tasks import Task
from household.world.world import STATE_WORD, Observation, StepResult, record_step, run_subgoal

GAME_FILE = "game.tw-pddl"
INSTALL_HINT = "the ALFWorld backend needs the optional extra: pip install -e '.[alfworld]' (make setup installs it)"
_FACT = re.compile(r"\(\s*([A-Za-z]+)\s+([^()]*?)\s*\)")
_DUE_AT = {"Microwave": "heat", "Fridge": "cool", "SinkBasin": "clean"}
GOAL_LINE = "Your task is to: "  # ALFWorld's templated goal follows it in the game's opening text
NOTHING = "Nothing happens."  # ALFWorld's answer to a command it does not admit
TEXT, SCENE = "text", "scene"
VIEWS = (TEXT, SCENE)  # world.alfworld_view: what the agent's actions may read (module docstring)


def alfworld_available() -> bool:
    """Whether ALFWorld's engine (alfworld + textworld[pddl] with fast_downward) is installed."""
    try:
        import alfworld.agents.utils.misc  # noqa: F401
        import fast_downward  # noqa: F401
        import textworld  # noqa: F401
    except ImportError:
        return False
    return True


def require_alfworld() -> None:
    """Raise ImportError with the install hint when the optional extra is missing."""
    if not alfworld_available():
        raise ImportError(INSTALL_HINT)


# ---------------------------------------------------------------------------------------------------- game files
@dataclass(frozen=True)
class AlfworldGame:
    """One ALFWorld game: its folder, its `game.tw-pddl`, the task from its traj_data.json and our scene import."""

    dir: Path
    game_file: Path
    task: Task
    scene: Scene


def check_game_file(path: Path) -> dict[str, Any]:
    """Read a game.tw-pddl and check the fields the engine needs; errors name the file, line and field."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: ALFWorld game file not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: invalid JSON ({exc.msg}); expected an ALFWorld game "
                         f"(JSON with pddl_domain, grammar, pddl_problem)") from exc
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text; expected an ALFWorld game (JSON)") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with pddl_domain, grammar, pddl_problem")
    for key in ("pddl_domain", "grammar", "pddl_problem"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{path}: missing field '{key}' (expected the {key} text of an ALFWorld game)")
    if "(:init" not in data["pddl_problem"]:
        raise ValueError(f"{path}: field 'pddl_problem': missing section '(:init'")
    return data


def load_game(game_dir: str | Path) -> AlfworldGame:
    """Load one game folder (game.tw-pddl + traj_data.json) after checking its files; errors name the file."""
    game_dir = Path(game_dir)
    game_file = game_dir / GAME_FILE
    check_game_file(game_file)
    task, scene = load_alfworld_game(game_dir)
    return AlfworldGame(game_dir, game_file, task, scene)


def find_game_dirs(root: str | Path) -> list[Path]:
    """Game folders under `root` as alfworld-download lays them out (TYPE-.../trial_.../game.tw-pddl), sorted."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: ALFWorld games folder not found (world.alfworld_games)")
    dirs = sorted({p.parent for p in root.rglob(GAME_FILE)} | {p.parent for p in root.rglob("traj_data.json")})
    if not dirs:
        raise FileNotFoundError(f"{root}: no ALFWorld game (no {GAME_FILE} under it)")
    return dirs


@lru_cache(maxsize=8)
def _games(root: str) -> tuple[AlfworldGame, ...]:
    return tuple(load_game(d) for d in find_game_dirs(root))


def load_games(root: str | Path) -> list[AlfworldGame]:
    """Every game under `root` (loaded once per process); a missing or malformed file raises naming it."""
    return list(_games(str(Path(root).resolve())))


def game_dir_for(task_id: str, root: str | Path) -> Path | None:
    """The folder of `task_id`'s game under `root` found by its path alone (TYPE-.../trial_..., or that flattened
    to TYPE-..._trial_...), in `root` or one split folder below it (train/, valid_unseen/, ...); None if absent.
    Looking the folder up, not loading every game, keeps a practice run on alfworld-download's thousands of train games
    from parsing them all."""
    root = Path(root)
    names = (task_id, task_id.replace("/trial_", "_trial_"))
    bases = [root] + (sorted(d for d in root.iterdir() if d.is_dir()) if root.is_dir() else [])
    for base in bases:
        for name in names:
            if (base / name / GAME_FILE).is_file():
                return base / name
    return None


@lru_cache(maxsize=64)
def _game(game_dir: str) -> AlfworldGame:
    return load_game(game_dir)


def game_for(task_id: str, root: str | Path) -> AlfworldGame:
    """The game under `root` whose task is `task_id`."""
    found = game_dir_for(task_id, root)
    if found is not None:
        game = _game(str(found.resolve()))
        if game.task.id == task_id:
            return game
    for g in load_games(root):
        if g.task.id == task_id:
            return g
    raise KeyError(f"{root}: no ALFWorld game for task {task_id!r}")


# ---------------------------------------------------------------------------------------------------- the engine
def _start_engine(game_file: Path) -> Any:
    """A TextWorld PDDL environment on one game, objects named as ALFWorld names them ('apple 3')."""
    require_alfworld()
    import textworld

    infos = textworld.EnvInfos(won=True, admissible_commands=True)
    return textworld.start(str(game_file), request_infos=infos)


def _name_entities(state: Any) -> None:
    """Name the game's entities as ALFWorld's AlfredDemangler does ('apple 3'), without importing its training
    stack. The state's entity infos are the engine's own objects: the names hold from the engine's next answer."""
    from alfworld.agents.utils.misc import Demangler

    infos = state["_entity_infos"]
    demangler = Demangler(game_infos=infos, shuffle=False)
    for info in infos.values():
        info.name = demangler.demangle_alfred_name(info.id)


def _problem_facts(text: str) -> list[tuple[str, list[str]]]:
    start = text.find("(:init")
    end = text.find("(:goal", start)
    return [(p, rest.split()) for p, rest in _FACT.findall(text[start:end if end > 0 else len(text)])]


def _type_class(type_name: str) -> str | None:
    return canonical_class(type_name[:-4] if type_name.endswith("Type") else type_name)


_LIST = re.compile(r"(?:you see|In it, you see) (.*?)\.(?:\s|$)")


def _listed(text: str) -> list[str]:
    """Names in ALFWorld's 'you see a apple 1, a bread 2, and a cup 1.' ('nothing' -> [])."""
    m = _LIST.search(text)
    if not m or m.group(1).strip() == "nothing":
        return []
    items = re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(1))
    out = []
    for it in items:
        it = it.strip()
        for art in ("a ", "an ", "the "):
            if it.startswith(art):
                it = it[len(art):]
                break
        if it:
            out.append(it)
    return out


class AlfworldEnv:
    """One episode of an ALFWorld game in ALFWorld's engine, behind our environment interface."""

    backend = "alfworld"

    def __init__(self, task: Task, game: AlfworldGame, seed: int = 0, max_fails: int = 10, max_steps: int = 1000,
                 explore_budget: int = 400, stop_on_success: bool = True, max_actions: int = 0,
                 view: str = TEXT) -> None:
        if view not in VIEWS:
            raise ValueError(f"params.yaml: world.alfworld_view: expected one of {list(VIEWS)}, not {view!r}")
        self.view = view
        self.task, self.game, self.scene = task, game, game.scene
        self.seed, self.max_fails, self.max_steps = seed, max_fails, max_steps
        self.max_actions = max_actions  # ALFWorld commands at most (0: no budget)
        self.explore_budget, self.stop_on_success = explore_budget, stop_on_success
        require_alfworld()
        try:
            self._tw = _start_engine(game.game_file)
            state = self._tw.reset()
        except Exception as exc:  # the engine's own parse/translate errors (e.g. KeyError 'val1' on a goal it
            # proves unreachable) say nothing of the file
            raise ValueError(f"{game.game_file}: ALFWorld's engine cannot load this game "
                             f"({type(exc).__name__}: {exc})") from exc
        _name_entities(state)
        opening = str(state.feedback)
        self._state, _, _ = self._tw.step("look")  # the first answer with ALFWorld's names (a look changes nothing)
        self.intro = str(self._state.feedback)  # ALFWorld's answer to `look` at the start
        self._entities = state["_entity_infos"]
        self.low_steps = 0
        self.failed_subgoals = 0
        self.subgoals_executed = 0
        self.engine_commands = 0
        self.history: list[tuple[str, bool, str]] = []
        self.transcript: list[tuple[str, str]] = []  # every (command, ALFWorld's response) of the episode
        self.last_commands: list[tuple[str, str]] = []  # those of the last sub-goal
        self._done_reason = ""
        self._geometry()
        self._names()
        # the opening after TextWorld's banner, its paragraphs joined by one newline, as ReAct reads it
        self.welcome = self._named("\n".join(opening.split("\n\n")[1:]).strip())
        self.goal = self.welcome.rsplit(GOAL_LINE, 1)[-1].strip() if GOAL_LINE in self.welcome else ""
        self.intro_order = self._intro_order()
        self._capped = False
        self.at: str | None = None  # place id
        self.holding: str | None = None  # ALFWorld name of the held object
        self.visited: set[str] = set()
        self.last_visit: dict[str, int] = {}
        self.seen_places: dict[str, None] = {}
        self.seen_objs: dict[str, None] = {}
        # object name -> place ids whose last look listed it (ALFWorld lists an object that is in a receptacle
        # standing on another at both: a mug in the coffee machine on the counter)
        self.where: dict[str, list[str]] = {}
        self.contents: dict[str, list[str]] = {}  # place id -> object names seen on/in it (last look)
        scene = self.view == SCENE  # text: nothing of the scene's states; the engine's text sets them (docstring)
        self.open: dict[str, bool] = {p.id: scene and p.id in self.scene.open_places
                                      for p in self.scene.places if p.cls in CONTAINERS}
        self.power: dict[str, bool] = {}  # microwave place id / faucet (basin place id) -> on, kept here
        self.lamp_power: dict[str, bool] = {}  # lamp name -> on, once toggled (`_lamp_on`)
        self.sliced: set[str] = set()  # objects the agent sliced (text: `object_class`)
        for p in self.scene.places:
            if p.cls == "Microwave":
                self.power[p.id] = scene and p.id in self.scene.on_places
            elif p.cls == "SinkBasin":
                self.power[p.id] = scene and any(o.cls == "Faucet" and o.parent == p.id and o.is_on
                                                 for o in self.scene.objects)
        self.due: dict[str, set[str]] = {}  # object name -> effects owed when it leaves the appliance
        self.done_effects: dict[str, set[str]] = {}  # object name -> hot/cold/clean the agent caused
        self.moved: set[str] = set()  # objects the agent has picked up (no longer where the scene put them)
        # The order the agent is shown objects in, as ours: sighting order, and at one place our `visible` order (a
        # stack over each holder's children: the last put first). `_kids` mirrors our children lists (holder ->
        # keys: ALFWorld names, or our id for an object the game lacks, as the faucet the backend keeps);
        # `seen_order` is seen_objs in that order, with the basins' faucets.
        self._kids, self._faucet_at = self._children() if scene else ({}, self._intro_faucets())
        self.seen_order: dict[str, None] = {}

    # ------------------------------------------------------------------ names and map
    def _names(self) -> None:
        infos = self._entities
        self.name_of: dict[str, str] = {k: str(v.name).strip() for k, v in infos.items()}  # PDDL id -> name
        self.pddl_of: dict[str, str] = {v: k for k, v in self.name_of.items()}
        text = self.game.game_file.read_text(encoding="utf-8")
        facts = _problem_facts(json.loads(text)["pddl_problem"])
        self.cls_of: dict[str, str] = {}  # ALFWorld name -> class
        self.receptacle_names: set[str] = set()
        holder: dict[str, str] = {}
        for pred, args in facts:
            key = args[0].lower() if args else ""  # the engine lower-cases every PDDL name
            if pred in ("objectType", "receptacleType") and len(args) == 2 and key in self.name_of:
                cls = _type_class(args[1])
                if cls:
                    self.cls_of[self.name_of[key]] = cls
                if pred == "receptacleType":
                    self.receptacle_names.add(self.name_of[key])
            elif pred == "inReceptacle" and len(args) == 2:
                holder[key] = args[1].lower()
        self.place_name: dict[str, str] = {}  # place id -> ALFWorld receptacle name to `go to`
        self.lamp_name: dict[str, str] = {}  # floor lamp place id -> its ALFWorld object name (for on/off)
        by_decoded = {decode_name(k): k for k in self.name_of}
        # Openable objects (box, laptop) keep the open/closed of our import: ALFWorld cannot open or close them.
        scene_open = {o.id.lower(): o.is_open for o in self.scene.objects if o.cls in OPENABLE}
        self.obj_open = {self.name_of[k]: scene_open[decode_name(k).lower()] for k in self.name_of
                         if decode_name(k).lower() in scene_open} if self.view == SCENE else {}
        parent = {o.id.lower(): o.parent for o in self.scene.objects}
        self.scene_parent = {self.name_of[k]: parent[decode_name(k).lower()] for k in self.name_of
                             if decode_name(k).lower() in parent}  # the place our import holds it in
        for p in self.scene.places:
            pddl = by_decoded.get(p.id.lower())
            if pddl is None:
                continue
            if p.cls in LANDMARKS:  # a floor lamp: go to the receptacle that holds it
                self.lamp_name[p.id] = self.name_of[pddl]
                outer = holder.get(pddl)
                if outer in self.name_of:
                    self.place_name[p.id] = self.name_of[outer]
            else:
                self.place_name[p.id] = self.name_of[pddl]
        self.place_of_name: dict[str, str] = {}
        for pid, name in self.place_name.items():
            if self.scene_place(pid).cls not in LANDMARKS:
                self.place_of_name[name] = pid
        order = {decode_name(k): i for i, k in enumerate(self.name_of)}
        scene_order = {o.id.lower(): i for i, o in enumerate(self.scene.objects)}
        self._rank = {n: scene_order.get(decode_name(k), len(scene_order) + order.get(decode_name(k), 0))
                      for k, n in self.name_of.items()}

    def _geometry(self) -> None:
        self._places = {p.id: p for p in self.scene.places}
        self._index, self._cost, self._start_cost = cost_table(self.scene.places, self.scene.start_pose)
        rng = random.Random(f"explore|{self.task.id}|{self.seed}")  # the same tie-break as household.world.navigation
        self._tie = {p.id: rng.random() for p in self.scene.places}

    def _intro_order(self) -> dict[str, int]:
        """Place id -> its rank in the intro's list of receptacles ('you see a cabinet 6, a cabinet 5, ...'); a
        place the intro does not list (a floor lamp standing in no receptacle) is not in it."""
        listed = {name: i for i, name in enumerate(_listed(self.welcome))}
        return dict(sorted(((pid, listed[name]) for name, pid in self.place_of_name.items() if name in listed),
                           key=lambda kv: kv[1]))

    def _intro_faucets(self) -> dict[str, str]:
        """The faucet the backend keeps at each sink basin the intro lists (key -> basin place id)."""
        return {f"faucet of {self.place_name[pid]}": pid for pid in self.intro_order
                if self._places[pid].cls == "SinkBasin"}

    def _first(self, at: str | None, places: list[str]) -> str:
        """The place a choice among `places` takes, from `at`: under `text` the first in the intro's order, under
        `scene` the nearest by the scene's poses (seeded tie-break, as household.world.navigation)."""
        if self.view == TEXT:
            return min(places, key=lambda p: (self.intro_order.get(p, len(self.intro_order)), p))
        return min(places, key=lambda p: (self._dist(at, p), self._tie[p]))

    def _explorable(self) -> list[str]:
        """The places exploration may walk to: under `text` the intro's receptacles, under `scene` every place."""
        return list(self.intro_order) if self.view == TEXT else list(self._places)

    def scene_place(self, pid: str) -> Any:
        """The scene's place of an id."""
        return self._places[pid]

    def _dist(self, a: str | None, b: str) -> int:
        return self._start_cost[self._index[b]] if a is None else self._cost[self._index[a]][self._index[b]]

    # ------------------------------------------------------------------ engine facts
    def _facts(self) -> list[tuple[str, tuple[str, ...]]]:
        """The engine's facts, predicates lower-cased (as the engine has them), arguments as ALFWorld names."""
        return [(f.name.lower(), tuple(self.name_of.get(v.name, v.name) for v in f.arguments)) for f in self._state["_facts"]]

    def _flag(self, pred: str, name: str) -> bool:
        return any(p == pred and args and args[0] == name for p, args in self._facts())

    def object_class(self, name: str) -> str:
        """Our class of an ALFWorld object name (a sliced X reads as XSliced)."""
        cls = self.cls_of.get(name, "")
        if cls in SLICED_OF and (name in self.sliced if self.view == TEXT else self._flag("issliced", name)):
            return SLICED_OF[cls]
        return cls

    # ------------------------------------------------------------------ public state (as household.world.world.World)
    @property
    def done(self) -> bool:
        """Whether the episode has ended."""
        return bool(self._done_reason)

    @property
    def done_reason(self) -> str:
        """'' while running; else 'success', 'stop', 'max_fails' or 'max_steps'."""
        return self._done_reason

    @property
    def won(self) -> bool:
        """ALFWorld's own verdict: the game's PDDL goal holds."""
        return bool(self._state["won"])

    @property
    def success(self) -> bool:
        """The engine's verdict (ALFWorld's `won`)."""
        return self.won

    def goal_conditions(self) -> tuple[int, int]:
        """(met, total) ALFRED goal conditions over the engine's facts; all met exactly when ALFWorld says won."""
        met, total = self._count_met()
        if self.won:
            return total, total
        return min(met, total - 1), total

    def _children(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """Our import's children lists in this game's names, and each basin's faucet key -> the basin."""
        ours = WorldState(self.scene)
        name = {decode_name(k).lower(): n for k, n in self.name_of.items()}
        key = lambda oid: name.get(oid.lower(), oid)  # noqa: E731
        kids = {(h if h in ours.places else key(h)): [key(c) for c in cs] for h, cs in ours.children.items()}
        faucets = {key(o.id): o.parent for o in ours.objs.values() if o.cls == "Faucet"}
        return kids, faucets

    def _order_at(self, pid: str) -> dict[str, int]:
        """Keys at a place in our `visible` order (open or closed alike); under `text`, the order the engine last
        listed them there."""
        if self.view == TEXT:
            return {k: i for i, k in enumerate(self.contents.get(pid, []))}
        out: list[str] = []
        stack = list(self._kids.get(pid, ()))
        while stack:
            k = stack.pop()
            out.append(k)
            if self.cls_of.get(k) in MOVABLE_RECEPTACLES:
                stack.extend(self._kids.get(k, ()))
        return {k: i for i, k in enumerate(out)}

    def _sighted(self, pid: str, names: list[str]) -> None:
        """Objects seen at a place (with a basin's faucet), in the order ours sees them."""
        order = self._order_at(pid)
        keys = names + [f for f, basin in self._faucet_at.items() if basin == pid]
        for k in sorted(keys, key=lambda k: order.get(k, len(order))):
            self.seen_order.setdefault(k, None)

    def observe(self) -> Observation:
        """What the agent was told so far, in our observation's form."""
        texts: dict[str, None] = {}
        for pid in self.seen_places:
            texts[self._place_text(pid)] = None
        for name in self.seen_order:
            if name in self._faucet_at:
                texts[self._faucet_text(self._faucet_at[name])] = None
                continue
            if (name != self.holding and name not in self.where) or not self._modelled(name):
                continue
            texts[self._obj_text(name)] = None
        here: tuple[str, ...] = ()
        if self.at is not None:
            order = self._order_at(self.at)
            shown = [n for n in self._visible() if self._modelled(n)]
            shown += [f for f, basin in self._faucet_at.items() if basin == self.at]
            shown.sort(key=lambda k: order.get(k, len(order)))
            here = tuple(dict.fromkeys([self._place_text(self.at), *(
                self._faucet_text(self.at) if k in self._faucet_at else self._obj_text(k) for k in shown)]))
        located = [(self._obj_text(n), self._places[self._located(n)].cls) for n in self.seen_objs
                   if n != self.holding and n in self.where and self._modelled(n)]
        for pid in self.seen_places:  # the faucet the backend keeps at each basin (module docstring)
            if self._places[pid].cls == "SinkBasin":
                texts.setdefault(self._faucet_text(pid), None)
                located.append((self._faucet_text(pid), "SinkBasin"))
        holding = self.object_class(self.holding) if self.holding else None
        return Observation(tuple(texts), self._places[self.at].cls if self.at else None, holding, here,
                           tuple(dict.fromkeys(located)))

    def _modelled(self, name: str) -> bool:
        """Whether our world has objects of this one's class (module docstring: what the agent is shown)."""
        cls = self.cls_of.get(name, "")
        return cls in PICKUPABLE or cls in KEEP_FIXED

    def _located(self, name: str) -> str:
        """The place an object is reported at, among those whose last look listed it: where our import holds it
        (a mug in the coffee machine, not the counter under it), else the first."""
        places = self.where[name]
        if self.view == TEXT:
            return places[0]  # where it was first listed
        return self.scene_parent[name] if len(places) > 1 and self.scene_parent.get(name) in places else places[0]

    def _place_text(self, pid: str) -> str:
        p = self._places[pid]
        states = []
        if pid in self.open:
            states.append("open" if self.open[pid] else "closed")
        if p.cls in TOGGLEABLE and pid in self.power:
            states.append("on" if self.power[pid] else "off")
        elif pid in self.lamp_name:
            states.append("on" if self._lamp_on(self.lamp_name[pid]) else "off")
        return f"{p.cls} ({', '.join(states)})" if states else p.cls

    def _obj_text(self, name: str) -> str:
        cls = self.object_class(name)
        states = []
        if name in self.obj_open:
            states.append("open" if self.obj_open[name] else "closed")
        if cls in TOGGLEABLE:
            states.append("on" if self._lamp_on(name) else "off")
        made = self.done_effects.get(name, set()) | self.due.get(name, set())  # due reads as made (docstring)
        states += [STATE_WORD[e] for e in ("heat", "cool", "clean") if e in made]
        return f"{cls} ({', '.join(states)})" if states else cls

    def _faucet_text(self, basin: str) -> str:
        return f"Faucet ({'on' if self.power.get(basin) else 'off'})"

    def _visible(self) -> list[str]:
        if self.at is None or not self.open.get(self.at, True):
            return []
        return [n for n in self.contents.get(self.at, []) if self.at in self.where.get(n, ())]

    # ------------------------------------------------------------------ stepping
    def step(self, subgoal: str | SubGoal) -> StepResult:
        """Execute one sub-goal through ALFWorld's engine; failures return a reason."""
        self.last_commands = []
        if self._done_reason:
            return StepResult(False, f"episode is over ({self._done_reason})", self.observe(), True)
        sg, reason = run_subgoal(subgoal, self._dispatch)
        ended = record_step(self, subgoal, sg, reason)
        if ended == "max_steps" and self.view == TEXT:  # travel over the poses: not the text agent's (docstring)
            ended = ""
        self._done_reason = ended or ("max_actions" if self._capped else "")
        return StepResult(not reason, reason, self.observe(), bool(self._done_reason))

    @property
    def actions_used(self) -> int:
        """ALFWorld commands issued so far (those the engine would answer 'Nothing happens.' included)."""
        return len(self.transcript)

    def admissible(self) -> list[str]:
        """The engine's admissible commands now."""
        return list(self._state["admissible_commands"])

    def command(self, text: str) -> str:
        """Send one raw ALFWorld command, as a text agent does (a command the engine does not admit is answered
        'Nothing happens.' and counts); returns ALFWorld's answer. Ends the episode on ALFWorld's `won` and at the
        action budget."""
        self.last_commands = []
        if self._done_reason:
            return f"episode is over ({self._done_reason})"
        ran, feedback = self._run(text, send_any=True)
        if ran and text.startswith("go to ") and text[6:] in self.place_of_name:
            self.at = self.place_of_name[text[6:]]  # where a look-at goal is judged (_count_met)
        if self.won:
            self._done_reason = "success"
        elif self.max_actions and self.actions_used >= self.max_actions:
            self._done_reason = "max_actions"
        return feedback

    def _run(self, command: str, send_any: bool = False) -> tuple[bool, str]:
        """Send one command if the engine admits it (`send_any`: whatever it is): (ran, ALFWorld's response). Past
        the action budget nothing is sent."""
        if self.max_actions and self.actions_used >= self.max_actions:
            self._capped = True
            return False, f"ALFWorld's {self.max_actions}-action budget is spent"
        if command not in self._state["admissible_commands"] and not send_any:
            self.last_commands.append((command, NOTHING))
            self.transcript.append((command, NOTHING))
            return False, NOTHING
        self._state, _, _ = self._tw.step(command)
        self.engine_commands += 1
        feedback = str(self._state.feedback).strip()
        self.last_commands.append((command, feedback))
        self.transcript.append((command, feedback))
        return feedback != NOTHING, feedback

    def _refused(self, command: str) -> str:
        if self._capped:
            return f"ALFWorld's {self.max_actions}-action budget is spent ({command} not sent)"
        return f"ALFWorld: Nothing happens ({command})"

    def _named(self, text: str) -> str:
        """The engine's text with PDDL ids as ALFWorld names them (its opening text comes before the renaming)."""
        for key in sorted(self.name_of, key=len, reverse=True):
            text = text.replace(key, self.name_of[key])
        return text

    def _dispatch(self, sg: SubGoal) -> str:
        act = sg.action
        if act == "Navigation":
            return self._navigate(sg.args[0])
        if act == "Stop":
            return ""
        self.low_steps += 1
        if act == "PickupObject":
            return self._pickup(sg.args[0])
        if act == "PutObject":
            return self._put(sg.args[0], sg.args[1])
        if act in ("OpenObject", "CloseObject"):
            return self._open_close(sg.args[0], act == "OpenObject")
        if act in ("ToggleObjectOn", "ToggleObjectOff"):
            return self._toggle(sg.args[0], act == "ToggleObjectOn")
        if act == "SliceObject":
            return self._slice(sg.args[0])
        return f"unknown action {act!r}"

    # ------------------------------------------------------------------ navigation (household.world.navigation's rule)
    def _known_targets(self, cls: str, is_place: bool) -> list[str]:
        if is_place:
            return [pid for pid in self.seen_places if self._places[pid].cls == cls]
        if cls == "Faucet":
            return [pid for pid in self.seen_places if self._places[pid].cls == "SinkBasin"]
        out: list[str] = []
        for name in self.seen_objs:
            if name != self.holding and self.object_class(name) == cls:
                out += [pid for pid in self.where.get(name, ()) if pid not in out]
        return out

    def _navigate(self, cls: str) -> str:
        cls = place_class(cls)
        is_place = cls in PLACE_RECEPTACLES or cls in LANDMARKS
        if cls not in NAVIGABLE:
            return f"cannot navigate to {cls}"
        if cls in LANDMARKS and not any(p.cls == cls and p.id in self.place_name for p in self.scene.places):
            return f"{cls} cannot be reached in ALFWorld (it stands in no receptacle there)"
        at = self.at
        known = self._known_targets(cls, is_place)
        if known and at not in known:
            return self._walk(self._first(at, known))
        others = [p for p in known if p != at]
        if others and not is_place:  # another seen object of the class (household.world.navigation)
            return self._walk(self._first(at, others))
        unvisited = [p for p in self._explorable() if p not in self.visited]
        cur, spent = at, 0
        while unvisited:
            nxt = self._first(cur, unvisited)
            if self.view == SCENE:  # the budget is travel over the poses (text: the action budget bounds it)
                spent += self._dist(cur, nxt)
            if spent > self.explore_budget:
                if at in known:
                    return self._walk(at) if cur != at else ""
                return f"{cls} not found"
            unvisited.remove(nxt)
            err = self._walk(nxt, exploring=True)
            if err:
                return err
            cur = nxt
            if is_place:
                if self._places[nxt].cls == cls:
                    return ""
            elif any(self.object_class(n) == cls for n in self._visible()) or (
                    cls == "Faucet" and self._places[nxt].cls == "SinkBasin"):
                return ""
        if at in known:
            if others:  # the one visited longest ago
                last = min(self.last_visit.get(p, -1) for p in others)
                return self._walk(self._first(cur, [p for p in others if self.last_visit.get(p, -1) == last]))
            return self._walk(at) if cur != at else ""
        return f"{cls} not found"

    def _walk(self, pid: str, exploring: bool = False) -> str:
        name = self.place_name.get(pid)
        self.low_steps += self._dist(self.at, pid)
        if name is None:  # a floor lamp that stands in no receptacle: ALFWorld has nowhere to `go to`
            if exploring:  # ours walks past it and sees nothing there; so does the backend, without a command
                self.at = pid
                self.visited.add(pid)
                self.last_visit[pid] = self._clock()
                self.seen_places.setdefault(pid, None)  # the lamp itself is seen, as in ours
                return ""
            return f"{self._places[pid].cls} cannot be reached in ALFWorld (no receptacle there)"
        ran, feedback = self._run(f"go to {name}")
        if not ran and not self._capped and f"examine {name}" in self._state["admissible_commands"]:
            # ALFWorld has no `go to` between receptacles of one location (e.g. two stove burners at loc 18): the
            # agent is there already; it looks at the receptacle instead
            self.last_commands.pop()
            self.transcript.pop()
            ran, feedback = self._run(f"examine {name}")
        if not ran:
            return self._refused(f"go to {name}")
        self.at = pid
        self.visited.add(pid)
        self.last_visit[pid] = self._clock()
        self.seen_places.setdefault(pid, None)
        self._look(pid, feedback)
        return ""

    def _clock(self) -> int:
        """When a visit happened: low-level steps under `scene` (as ours), ALFWorld commands sent under `text`."""
        return self.low_steps if self.view == SCENE else len(self.transcript)

    def _look(self, pid: str, feedback: str) -> None:
        """Record what ALFWorld said is on/in the receptacle (or that it is closed)."""
        name = self.place_name.get(pid, "")
        if f"The {name} is closed" in feedback:
            self.open[pid] = False
            return
        if f"The {name} is open" in feedback or (pid in self.open and f"On the {name}," in feedback):
            self.open[pid] = True  # ALFWorld shows what is in it: open (or, in that game, not openable at all)
        # An object in a receptacle standing on another (a mug in the coffee machine on the counter) is listed at
        # both; until the agent moves it, it is seen only where our import holds it, as in ours.
        listed = [n for n in _listed(feedback) if n in self.cls_of and self.cls_of[n] != "Faucet"
                  and (self.view == TEXT or n in self.moved or self.scene_parent.get(n) not in self._places
                       or self.scene_parent[n] == pid)]
        if self.view == TEXT:  # a floor lamp the engine lists here is seen, reached by going here
            for lamp_pid, lamp in self.lamp_name.items():
                if lamp in listed and self.place_name.get(lamp_pid) == self.place_name.get(pid):
                    self.seen_places.setdefault(lamp_pid, None)
        for n in self.contents.get(pid, []):
            if n not in listed and pid in self.where.get(n, ()):
                self.where[n].remove(pid)  # no longer there
                if not self.where[n]:
                    del self.where[n]
        self.contents[pid] = listed
        for n in listed:
            if pid not in self.where.setdefault(n, []):
                self.where[n].append(pid)
            self.seen_objs.setdefault(n, None)
        self._sighted(pid, listed)

    # ------------------------------------------------------------------ interactions
    def _here_of(self, cls: str) -> list[str]:
        """Visible objects of `cls` where the agent stands, as our `find_here` takes them: those standing at the place
        itself first, each group in our `visible` order (scene order for an object our import lacks)."""
        names = [n for n in self._visible() if self.object_class(n) == cls]
        order = self._order_at(self.at or "")
        if self.view == TEXT:  # those the engine would let the agent take first (not inside a bowl), as listed
            admissible, here = set(self.admissible()), self.place_name.get(self.at or "", "")
            return sorted(names, key=lambda n: (f"take {n} from {here}" not in admissible, order.get(n, len(order))))
        direct = set(self._kids.get(self.at or "", ()))
        return sorted(names, key=lambda n: (n not in direct, order.get(n, len(order)), self._rank.get(n, 0)))

    def _pickup(self, cls: str) -> str:
        if cls not in PICKUPABLE:
            return f"{cls} cannot be picked up"
        if self.holding:
            return f"already holding {self.object_class(self.holding)}"
        if self.at is None:
            return f"{cls} not found"
        names = self._here_of(cls) or (self._here_of(SLICED_OF[cls]) if cls in SLICED_OF else [])
        if not names:
            if not self.open.get(self.at, True) and any(
                    self.at in self.where.get(n, ()) and self.object_class(n) == cls for n in self.seen_objs):
                return f"{self._places[self.at].cls} is closed"
            return f"{cls} not found"
        obj, place = names[0], self.place_name[self.at]
        ran, feedback = self._run(f"take {obj} from {place}")
        if not ran:
            return self._refused(f"take {obj} from {place}")
        self.holding = obj
        self.moved.add(obj)
        self.where.pop(obj, None)
        for kids in self._kids.values():  # our children lists lose it (ours: `WorldState.take`)
            if obj in kids:
                kids.remove(obj)
        owed = self.due.pop(obj, set())
        effect = _DUE_AT.get(self._places[self.at].cls)
        if effect in owed:  # the appliance acted on it in our terms: ALFWorld's command, now that it is held
            ran, _ = self._run(f"{effect} {obj} with {place}")
            if ran:
                self.done_effects.setdefault(obj, set()).add(effect)
        return ""

    def _put(self, cls: str, recep: str) -> str:
        held = self.holding
        if held is None:
            return "not holding anything"
        held_cls = self.object_class(held)
        if held_cls != cls and SLICED_OF.get(cls) != held_cls:
            return f"holding {held_cls}, not {cls}"
        recep = place_class(recep)
        if self.at is None:
            return f"{recep} not here"
        if self.at not in self.place_name:  # at a floor lamp that ALFWorld has in no receptacle: nothing to put on
            return f"{recep} cannot hold {held_cls}" if self._places[self.at].cls == recep else f"{recep} not here"
        if self._places[self.at].cls == recep:
            target = self.place_name[self.at]
        elif recep in MOVABLE_RECEPTACLES:
            found = self._here_of(recep)
            if not found:
                return f"{recep} not found"
            target = found[0]
            if target not in self.receptacle_names:
                return f"ALFWorld cannot put into the {recep} (not a receptacle there)"
        else:
            return f"{recep} not here" if recep in PLACE_RECEPTACLES else f"{recep} is not a receptacle"
        if not self.open.get(self.at, True) and target == self.place_name[self.at]:
            return f"{recep} is closed"
        ran, _ = self._run(f"put {held} in/on {target}")
        if not ran:
            return self._refused(f"put {held} in/on {target}")
        self.holding = None
        self.where[held] = [self.at]
        self.contents.setdefault(self.at, []).append(held)
        self._kids.setdefault(self.at, []).append(held)  # ours appends: `visible` then lists it first
        self.seen_objs.setdefault(held, None)
        self.seen_order.setdefault(held, None)
        place_cls = self._places[self.at].cls
        if place_cls in ("Microwave", "SinkBasin") and self.power.get(self.at):
            self.due.setdefault(held, set()).add(_DUE_AT[place_cls])  # put into a running microwave / basin
        return ""

    def _open_close(self, cls: str, want_open: bool) -> str:
        verb = "opened" if want_open else "closed"
        if cls not in OPENABLE:
            return f"{cls} cannot be {verb}"
        if self.at is None or self._places[self.at].cls != cls:
            if cls in PLACE_RECEPTACLES:
                return f"{cls} not here"
            return f"ALFWorld cannot open or close a {cls} (only receptacles)" if self._here_of(cls) \
                else f"{cls} not found"
        pid, name = self.at, self.place_name[self.at]
        if self.open.get(pid, True) == want_open:
            return f"{cls} is already {'open' if want_open else 'closed'}"
        command = f"{'open' if want_open else 'close'} {name}"
        ran, feedback = self._run(command)
        if not ran:
            return self._refused(command)
        self.open[pid] = want_open
        if want_open:
            self._look(pid, feedback)
        elif cls == "Fridge":  # ours cools what is in a fridge when it is closed
            for n in self.contents.get(pid, []):
                if pid in self.where.get(n, ()):
                    self.due.setdefault(n, set()).add("cool")
        return ""

    def _toggle(self, cls: str, on: bool) -> str:
        if cls not in TOGGLEABLE:
            return f"{cls} cannot be toggled"
        word = "on" if on else "off"
        if cls in ("Microwave", "Faucet"):  # no switch in ALFWorld: the backend keeps it (module docstring)
            where = self.at if self.at is not None else ""
            want = "Microwave" if cls == "Microwave" else "SinkBasin"
            if not where or self._places[where].cls != want:
                return f"{cls} not here" if cls in PLACE_RECEPTACLES else f"{cls} not found"
            if self.power.get(where, False) == on:
                return f"{cls} is already {word}"
            self.power[where] = on
            if on:
                for n in self.contents.get(where, []):
                    if where in self.where.get(n, ()):
                        self.due.setdefault(n, set()).add(_DUE_AT[want])
            return ""
        names = self._here_of(cls)
        if not names:
            return f"{cls} not found"
        lamp = names[0]
        if self._lamp_on(lamp) == on:
            return f"{cls} is already {word}"
        ran, _ = self._run(f"use {lamp}")
        if not ran:
            return self._refused(f"use {lamp}")
        self.lamp_power[lamp] = on
        return ""

    def _lamp_on(self, name: str) -> bool:
        # `use` never makes the engine's isOn true (its facts read not_ison and istoggled after any number of uses),
        # so the backend keeps a lamp's on/off from the engine's initial state, as it keeps the microwave's.
        return self.lamp_power.get(name, self.view == SCENE and self._flag("ison", name))

    def _slice(self, cls: str) -> str:
        if cls not in SLICEABLE:
            return f"{cls} cannot be sliced"
        held = self.holding
        if held is None or self.object_class(held) not in KNIVES:
            return "no Knife in hand"
        names = self._here_of(cls)
        if not names:
            return f"{cls} not found"
        ran, _ = self._run(f"slice {names[0]} with {held}")
        if not ran:
            return self._refused(f"slice {names[0]} with {held}")
        self.sliced.add(names[0])
        return ""

    # ------------------------------------------------------------------ goal conditions over the engine's facts
    def _count_met(self) -> tuple[int, int]:
        a, tt = self.task.args, self.task.task_type
        total = total_conditions(tt, a.object_sliced)
        facts = self._facts()
        inside: dict[str, set[str]] = {}
        flags: dict[str, set[str]] = {}
        for pred, args in facts:
            if pred == "inreceptacle" and len(args) == 2:
                inside.setdefault(args[0], set()).add(args[1])
            elif len(args) >= 1 and pred in ("ishot", "iscool", "isclean", "issliced"):
                flags.setdefault(pred, set()).add(args[0])
            elif pred == "holds" and len(args) == 2:
                flags.setdefault("held", set()).add(args[1])
        x_cls = a.object_target
        xs = [n for n, c in self.cls_of.items() if c == x_cls and n not in self.receptacle_names]
        if a.object_sliced:
            xs = [n for n in xs if n in flags.get("issliced", set())]
        p_cls = place_class(a.parent_target) if a.parent_target else ""

        def in_cls(n: str, cls: str) -> list[str]:
            return [r for r in inside.get(n, ()) if place_class(self.cls_of.get(r, "")) == cls]

        met = 0
        if a.object_sliced:
            met += min(2 if tt == "pick_two_obj_and_place" else 1, len(xs))
        if tt == "pick_two_obj_and_place":
            per: dict[str, int] = {}
            for n in xs:
                for r in in_cls(n, p_cls):
                    per[r] = per.get(r, 0) + 1
            met += min(2, max(per.values(), default=0))
        elif tt == "look_at_obj_in_light":
            met += int(any(n in flags.get("held", set()) for n in xs))
            here = self.place_name.get(self.at or "", "")
            met += int(any(self.cls_of.get(n) == a.toggle_target and self._lamp_on(n)
                           and here in inside.get(n, ()) for n in self.cls_of))
        elif tt == "pick_and_place_with_movable_recep":
            x_in_m = [n for n in xs if in_cls(n, a.mrecep_target)]
            met += int(bool(x_in_m))
            ms = [n for n, c in self.cls_of.items() if c == a.mrecep_target]
            m_in_p = [m for m in ms if in_cls(m, p_cls)]
            met += int(bool(m_in_p))
            met += int(any(m in inside.get(n, ()) for m in m_in_p for n in x_in_m))
        else:
            in_p = [n for n in xs if in_cls(n, p_cls)]
            met += int(bool(in_p))
            if tt != "pick_and_place_simple":
                flag = {"pick_heat_then_place_in_recep": "ishot", "pick_cool_then_place_in_recep": "iscool",
                        "pick_clean_then_place_in_recep": "isclean"}[tt]
                met += int(any(n in flags.get(flag, set()) for n in xs))
                met += int(any(n in flags.get(flag, set()) for n in in_p))
        return met, total


__all__ = ["AlfworldEnv", "AlfworldGame", "GAME_FILE", "INSTALL_HINT", "SCENE", "TEXT", "VIEWS", "alfworld_available",
           "check_game_file", "find_game_dirs", "game_for", "load_game", "load_games", "require_alfworld"]
