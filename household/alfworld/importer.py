"""ALFWorld importer: an ALFWorld game (PDDL problem of a real ALFRED scene + its traj_data.json) as a Task and Scene."""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from household.world.floorplans import Place, Pose
from household.world.layout import ObjectSpec, Scene
from household.world.ontology import (
    CONTAINERS, LAMP_SURFACES, LANDMARKS, MOVABLE_RECEPTACLES, OBJECTS, PICKUPABLE, PLACE_RECEPTACLES,
    STARTS_OPEN_CLASSES, canonical_class,
)
from household.world.tasks import Task, task_from_record

log = logging.getLogger(__name__)

_FACT = re.compile(r"\(\s*([A-Za-z]+)\s+([^()]*?)\s*\)")
_NAME_CODES = (("_bar_", "|"), ("_plus_", "+"), ("_minus_", "-"), ("_dot_", "."))
KEEP_FIXED = frozenset({"DeskLamp", "Faucet"})  # non-pickupable objects that matter to tasks


def decode_name(name: str) -> str:
    """ALFWorld's escaped THOR id -> THOR id: 'Cabinet_bar__plus_00_dot_65' -> 'Cabinet|+00.65'."""
    for code, char in _NAME_CODES:
        name = name.replace(code, char)
    return name


def decode_location(loc: str, where: str) -> Pose:
    """'loc_bar__minus_1_bar_3_bar_1_bar_60' -> (x m, z m, rotation deg, horizon deg); grid cells are 0.25 m."""
    parts = decode_name(loc).split("|")
    try:
        x, z, rot, hor = (int(p) for p in parts[1:5])
    except (ValueError, IndexError) as exc:
        raise ValueError(f"{where}: bad location {loc!r}") from exc
    return (x * 0.25, z * 0.25, (rot % 4) * 90, hor)


def _problem_text(game_dir: Path) -> tuple[str, Path]:
    pddl = game_dir / "initial_state.pddl"
    if pddl.is_file():
        return pddl.read_text(encoding="utf-8"), pddl
    tw = game_dir / "game.tw-pddl"
    if tw.is_file():
        try:
            data = json.loads(tw.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{tw}: line {exc.lineno}: invalid JSON ({exc.msg})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("pddl_problem"), str):
            raise ValueError(f"{tw}: missing field 'pddl_problem'")
        return data["pddl_problem"], tw
    raise FileNotFoundError(f"{game_dir}: neither initial_state.pddl nor game.tw-pddl found")


def _type_class(type_name: str, where: str) -> str | None:
    base = type_name[:-4] if type_name.endswith("Type") else type_name
    return canonical_class(base)


def parse_problem(text: str, where: str, floorplan: int) -> Scene:
    """Scene of an ALFWorld PDDL problem: exact receptacles, object placement, open/toggle states, agent pose."""
    start = text.find("(:init")
    if start < 0:
        raise ValueError(f"{where}: missing section '(:init'")
    end = text.find("(:goal", start)
    init = text[start:end if end > 0 else len(text)]
    recep_cls: dict[str, str] = {}
    obj_cls: dict[str, str] = {}
    recep_loc: dict[str, Pose] = {}
    obj_loc: dict[str, Pose] = {}
    inside: dict[str, str] = {}
    opened: set[str] = set()
    openable: set[str] = set()
    toggled: set[str] = set()
    agent: Pose | None = None
    for pred, rest in _FACT.findall(init):
        args = rest.split()
        if pred == "receptacleType" and len(args) == 2:
            cls = _type_class(args[1], where)
            if cls:
                recep_cls[args[0]] = cls
        elif pred == "objectType" and len(args) == 2:
            cls = _type_class(args[1], where)
            if cls:
                obj_cls[args[0]] = cls
        elif pred == "receptacleAtLocation" and len(args) == 2:
            recep_loc[args[0]] = decode_location(args[1], f"{where}: receptacleAtLocation {args[0]}")
        elif pred == "objectAtLocation" and len(args) == 2:
            obj_loc[args[0]] = decode_location(args[1], f"{where}: objectAtLocation {args[0]}")
        elif pred == "inReceptacle" and len(args) == 2:
            inside[args[0]] = args[1]
        elif pred == "opened" and args:
            opened.add(args[0])
        elif pred == "openable" and args:
            openable.add(args[0])
        elif pred == "isToggled" and args:
            toggled.add(args[0])
        elif pred == "atLocation" and len(args) == 2:
            agent = decode_location(args[1], f"{where}: atLocation")
    if not recep_cls:
        raise ValueError(f"{where}: field 'receptacleType': no receptacles in (:init")
    if agent is None:
        raise ValueError(f"{where}: field 'atLocation': no agent location in (:init")
    if openable:  # a cabinet or drawer the problem does not call openable has no door in that scene: it stands open
        opened |= {n for n, c in recep_cls.items() if c in CONTAINERS and n not in openable}
    places: list[Place] = []
    place_ids: dict[str, str] = {}
    for name, cls in recep_cls.items():
        if cls in MOVABLE_RECEPTACLES:
            continue  # bowls, boxes... are objects here
        if cls not in PLACE_RECEPTACLES:
            log.debug("%s: skipping receptacle %s of class %s", where, name, cls)
            continue
        if name not in recep_loc:
            raise ValueError(f"{where}: field 'receptacleAtLocation': no location for {name}")
        pid = decode_name(name)
        place_ids[name] = pid
        places.append(Place(pid, cls, recep_loc[name]))
    # floor lamps are places the agent walks to
    for name, cls in obj_cls.items():
        if cls in LANDMARKS and name in obj_loc:
            pid = decode_name(name)
            place_ids[name] = pid
            places.append(Place(pid, cls, obj_loc[name]))
    objects: list[ObjectSpec] = []
    obj_ids: dict[str, str] = {}
    for name, cls in obj_cls.items():
        if cls in PICKUPABLE or cls in KEEP_FIXED:
            obj_ids[name] = decode_name(name)

    def surface_near(name: str) -> str | None:
        pose = obj_loc.get(name)
        cands = [p for p in places if p.cls in LAMP_SURFACES] or places
        if not cands:
            return None
        if pose is None:
            return cands[0].id
        return min(cands, key=lambda p: abs(p.pose[0] - pose[0]) + abs(p.pose[1] - pose[1])).id

    for name, oid in obj_ids.items():
        cls = obj_cls[name]
        holder = inside.get(name)
        if holder in place_ids:
            parent = place_ids[holder]
        elif holder in obj_ids:
            parent = obj_ids[holder]
        elif cls == "Faucet":
            basins = [p.id for p in places if p.cls == "SinkBasin"]
            if not basins:
                continue
            parent = basins[0]
        elif cls == "DeskLamp":
            parent = surface_near(name) or ""
        else:
            log.debug("%s: %s is in no known receptacle; skipped", where, name)
            continue
        if not parent:
            continue
        is_open = name in opened or cls in STARTS_OPEN_CLASSES
        objects.append(ObjectSpec(oid, cls, parent, is_open=is_open, is_on=name in toggled))
    for p in places:  # ALFWorld drops faucets from some problems; every basin gets one
        if p.cls == "SinkBasin" and not any(o.cls == "Faucet" and o.parent == p.id for o in objects):
            objects.append(ObjectSpec(f"Faucet|{p.id}", "Faucet", p.id))
    open_places = frozenset(place_ids[n] for n in opened if n in place_ids)
    on_places = frozenset(place_ids[n] for n in toggled if n in place_ids)
    unknown = sorted({c for c in obj_cls.values() if c not in OBJECTS})
    if unknown:
        log.debug("%s: unknown classes %s", where, unknown)
    return Scene(floorplan, tuple(places), tuple(objects), agent, {}, open_places, on_places, source="alfworld")


def load_alfworld_game(game_dir: str | Path) -> tuple[Task, Scene]:
    """Load an ALFWorld game folder (initial_state.pddl or game.tw-pddl, plus traj_data.json) as (Task, Scene)."""
    game_dir = Path(game_dir)
    traj_path = game_dir / "traj_data.json"
    if not traj_path.is_file():
        raise FileNotFoundError(f"{traj_path}: traj_data.json not found")
    try:
        traj = json.loads(traj_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{traj_path}: line {exc.lineno}: invalid JSON ({exc.msg})") from exc
    if not isinstance(traj, dict):
        raise ValueError(f"{traj_path}: expected a JSON object")
    row = dict(traj)
    # ALFWorld folders are '<task folder>/<trial>' (sometimes flattened to '<task folder>_trial_...')
    name = game_dir.name
    if name.startswith("trial_"):
        row["path"] = f"{game_dir.parent.name}/{name}"
    elif "_trial_" in name:
        head, tail = name.split("_trial_", 1)
        row["path"] = f"{head}/trial_{tail}"
    else:
        row["path"] = name
    task = task_from_record(row, "alfworld", str(traj_path))
    text, problem_path = _problem_text(game_dir)
    scene = parse_problem(text, str(problem_path), task.floorplan)
    return task, scene


def find_games(root: str | Path) -> list[Path]:
    """Every ALFWorld game folder under root (holding traj_data.json and a PDDL problem), sorted."""
    root = Path(root)
    dirs = {p.parent for p in root.rglob("traj_data.json")}
    return sorted(d for d in dirs if (d / "initial_state.pddl").is_file() or (d / "game.tw-pddl").is_file())
