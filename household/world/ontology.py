"""ALFRED's object ontology: classes, receptacles, openable/toggleable/sliceable sets, receptacle rules."""
from __future__ import annotations

import re
from functools import lru_cache

from household.world.resources import load_data_json

_RAW = load_data_json("ontology.json")

TASK_TYPES: tuple[str, ...] = tuple(_RAW["task_types"])
OBJECTS: frozenset[str] = frozenset(_RAW["objects_with_sliced"]) | {"Faucet", "Sink", "Bathtub"}
RECEPTACLES: frozenset[str] = frozenset(_RAW["receptacles"])
MOVABLE_RECEPTACLES: frozenset[str] = frozenset(_RAW["movable_receptacles"])
# Places are receptacles the agent navigates to; movable receptacles are objects that also hold objects.
PLACE_RECEPTACLES: frozenset[str] = RECEPTACLES - MOVABLE_RECEPTACLES
# Laptops open and close in THOR (LLM-Planner's gold plans close them); they are never containers here.
OPENABLE: frozenset[str] = frozenset(_RAW["openable"]) | {"Laptop"}
CONTAINERS: frozenset[str] = frozenset(_RAW["openable"])  # openable receptacles hide their contents when closed
# ALFRED's Toggleable affordance lists only lamps; the microwave and faucet toggle too (heat, clean).
TOGGLEABLE: frozenset[str] = frozenset(_RAW["affordances"]["Toggleable"]) | {"Microwave", "Faucet"}
HEATABLE: frozenset[str] = frozenset(_RAW["affordances"]["Heatable"])
COOLABLE: frozenset[str] = frozenset(_RAW["affordances"]["Coolable"])
CLEANABLE: frozenset[str] = frozenset(_RAW["affordances"]["Cleanable"])
SLICED_PARENT: dict[str, str] = dict(_RAW["sliced_parent"])
SLICED_OF: dict[str, str] = {parent: sliced for sliced, parent in SLICED_PARENT.items()}
SLICES: frozenset[str] = frozenset(SLICED_OF.values())  # the pieces' classes ('AppleSliced')
# Only classes with a sliced counterpart can be sliced (Egg is Sliceable in THOR but has no EggSliced class).
SLICEABLE: frozenset[str] = frozenset(_RAW["affordances"]["Sliceable"]) & frozenset(SLICED_OF)
KNIVES: tuple[str, ...] = ("Knife", "ButterKnife")
RECEPTACLE_ACCEPTS: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in _RAW["receptacle_accepts"].items()}
PICKUPABLE: frozenset[str] = frozenset(x for v in RECEPTACLE_ACCEPTS.values() for x in v)
# Lamps stand on furniture (DeskLamp) or on the floor (FloorLamp); the faucet belongs to a sink basin.
LAMPS: tuple[str, ...] = ("DeskLamp", "FloorLamp")
LANDMARKS: frozenset[str] = frozenset({"FloorLamp"})  # non-receptacle places the agent can walk to
LAMP_SURFACES: tuple[str, ...] = ("Desk", "SideTable", "Dresser", "Shelf", "CoffeeTable", "DiningTable", "TVStand",
                                  "CounterTop")
# LLM-Planner writes `PutObject Fork Sink`; the sink's receptacle is its basin.
PLACE_ALIASES: dict[str, str] = {"Sink": "SinkBasin", "Bathtub": "BathtubBasin"}
# Laptops stand open and cardboard boxes have open flaps in ALFRED's scenes; cabinets, fridges... start closed.
STARTS_OPEN_CLASSES: frozenset[str] = frozenset({"Laptop", "Box"})
ROOM_TYPES: dict[str, tuple[int, int]] = {k: (v[0], v[1]) for k, v in _RAW["room_types"].items()}


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).lower()


_CANON: dict[str, str] = {_key(c): c for c in OBJECTS | RECEPTACLES}


@lru_cache(maxsize=1 << 16)  # pure, and called for every walk and sub-goal a search tries
def canonical_class(name: str) -> str | None:
    """ALFRED CamelCase class for a name, case/space-insensitive ("sink basin" -> "SinkBasin"), or None."""
    if not name:
        return None
    key = _key(name)
    found = _CANON.get(key)
    if found is None and key.endswith("s"):  # plurals: apples, boxes, knives
        for stem in (key[:-1], key[:-2], key[:-3] + "fe"):
            found = _CANON.get(stem)
            if found:
                break
    return found


def accepts(receptacle: str, obj: str) -> bool:
    """Whether ALFRED's receptacle rules allow object class `obj` in receptacle class `receptacle`."""
    return obj in RECEPTACLE_ACCEPTS.get(receptacle, ())


def place_class(name: str) -> str:
    """Map a receptacle alias to the class the world uses as a place (Sink -> SinkBasin)."""
    return PLACE_ALIASES.get(name, name)


def class_words(cls: str) -> str:
    """An ALFRED class in lower-case words: 'DiningTable' -> 'dining table', 'TVStand' -> 'tv stand'."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", cls).lower()


def _noun(cls: str) -> str:
    return class_words(cls).split()[-1]


def _same_noun(a: str, b: str) -> bool:
    # 'Glassbottle' is one word: a noun of 4+ letters that ends the other's name counts too ('bottle').
    na, nb = _noun(a), _noun(b)
    return na == nb or (len(nb) >= 4 and a.lower().endswith(nb)) or (len(na) >= 4 and b.lower().endswith(na))


# Pickupable classes (slices apart) that one noun names: 'knife' ButterKnife/Knife, 'bottle' WineBottle/Glassbottle/...
NAME_SIBLINGS: dict[str, frozenset[str]] = {
    c: frozenset(o for o in PICKUPABLE - set(SLICED_PARENT) if o != c and _same_noun(c, o))
    for c in sorted(PICKUPABLE - set(SLICED_PARENT))}


def name_siblings(cls: str) -> frozenset[str]:
    """The other pickupable classes named by the same noun ('Knife' -> {'ButterKnife'}); empty for the rest."""
    return NAME_SIBLINGS.get(cls, frozenset())
