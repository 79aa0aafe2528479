"""The 120 ALFRED floorplans: receptacle instances (places) with the agent pose that reaches them, and travel costs."""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from household.world.ontology import LANDMARKS, PLACE_RECEPTACLES
from household.world.resources import load_data_json

GRID = 0.25  # THOR's MoveAhead step (m)
LOOK_DEG = 15  # THOR's LookUp/LookDown step (deg)

Pose = tuple[float, float, int, int]  # x, z, rotation (deg), horizon (deg)


@dataclass(frozen=True)
class Place:
    """A receptacle instance (or landmark such as a floor lamp) the agent can navigate to."""

    id: str
    cls: str
    pose: Pose


@dataclass(frozen=True)
class Floorplan:
    """One floorplan's room type, object classes and places."""

    number: int
    room_type: str
    object_classes: frozenset[str]
    places: tuple[Place, ...]


def instance_class(instance_id: str) -> str:
    """Class of a THOR receptacle id: 'Cabinet|+00.68|...' -> Cabinet, 'Sink|...|SinkBasin' -> SinkBasin."""
    parts = instance_id.split("|")
    return parts[-1] if len(parts) > 4 else parts[0]


def nav_cost(a: Pose, b: Pose) -> int:
    """Low-level THOR actions to walk from pose a to pose b: 0.25 m grid moves, 90-degree turns, 15-degree looks."""
    dx, dz = abs(a[0] - b[0]), abs(a[1] - b[1])
    moves = round(dx / GRID) + round(dz / GRID)
    turn = abs(int(a[2]) - int(b[2])) % 360
    turns = min(turn, 360 - turn) // 90
    if dx > 1e-6 and dz > 1e-6:
        turns += 1  # an L-shaped walk needs one more turn
    looks = abs(int(a[3]) - int(b[3])) // LOOK_DEG
    return moves + turns + looks


def synthetic_pose(rng: random.Random, anchors: list[Pose]) -> Pose:
    """A pose for a receptacle ALFRED lists without one: 0.5-1 m from a seeded existing pose."""
    if not anchors:
        return (rng.choice((-1.0, 0.0, 1.0)), rng.choice((-1.0, 0.0, 1.0)), rng.choice((0, 90, 180, 270)), 30)
    x, z, _, _ = rng.choice(anchors)
    step = rng.choice((0.5, 0.75, 1.0)) * rng.choice((-1, 1))
    if rng.random() < 0.5:
        x += step
    else:
        z += step
    return (x, z, rng.choice((0, 90, 180, 270)), 30)


@lru_cache(maxsize=None)
def get_floorplan(number: int) -> Floorplan:
    """Floorplan `number` with its listed places plus one place per receptacle class present without a listed one."""
    raw = load_data_json("floorplans.json")["floorplans"].get(f"FloorPlan{number}")
    if raw is None:
        raise KeyError(f"floorplans.json: no floorplan {number}")
    places = [Place(rid, instance_class(rid), (float(p[0]), float(p[1]), int(p[2]), int(p[3])))
              for rid, p in sorted(raw["receptacles"].items())]
    classes = frozenset(raw["object_classes"])
    have = {p.cls for p in places}
    rng = random.Random(f"floorplan|{number}")  # per floorplan, not per task: the room is the same for every task
    anchors = [p.pose for p in places]
    for cls in sorted(classes):
        if (cls in PLACE_RECEPTACLES or cls in LANDMARKS) and cls not in have:
            places.append(Place(f"{cls}|{number}|1", cls, synthetic_pose(rng, anchors)))
    return Floorplan(number, raw.get("room_type", ""), classes, tuple(places))
