"""ALFRED tasks: one per trajectory of train / valid_seen / valid_unseen, with annotations and planner arguments."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Mapping

from household.world.ontology import TASK_TYPES, canonical_class
from household.world.resources import SPLIT_FILES, load_data_json, load_json

SPLITS: tuple[str, ...] = tuple(SPLIT_FILES)
OBJECT_STATES: tuple[str, ...] = ("clean", "heat", "cool", "none")
_STATE_OF_TYPE = {
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
}


@dataclass(frozen=True)
class Annotation:
    """One human annotation: the goal sentence and the step-by-step instructions."""

    task_desc: str
    high_descs: tuple[str, ...]


@dataclass(frozen=True)
class TaskArgs:
    """The seven task arguments the planner's adapter predicts (empty string = not used)."""

    object_target: str
    parent_target: str
    mrecep_target: str
    toggle_target: str
    object_state: str
    object_sliced: bool
    two_objects: bool

    def as_dict(self) -> dict[str, Any]:
        """Plain dict of the seven arguments."""
        return asdict(self)


@dataclass(frozen=True)
class Task:
    """One ALFRED task (trajectory): id is ALFRED's task path, e.g. 'pick_and_place_simple-Apple-None-Fridge-30/trial_...'."""

    id: str
    split: str
    task_type: str
    pddl_params: Mapping[str, Any]
    floorplan: int
    annotations: tuple[Annotation, ...]
    args: TaskArgs
    high_pddl: tuple[tuple[str, tuple[str, ...]], ...]  # ALFRED expert plan: (action, lowercase args)

    def instruction(self, i: int = 0) -> str:
        """The i-th annotation's goal sentence."""
        return self.annotations[i].task_desc.strip() if self.annotations else ""

    def __hash__(self) -> int:  # pddl_params is a dict; the id identifies a task
        return hash(self.id)


def task_args(task_type: str, pddl: Mapping[str, Any]) -> TaskArgs:
    """Derive the adapter's seven arguments from the task type and ALFRED's pddl_params."""
    return TaskArgs(
        object_target=str(pddl.get("object_target") or ""),
        parent_target=str(pddl.get("parent_target") or ""),
        mrecep_target=str(pddl.get("mrecep_target") or ""),
        toggle_target=str(pddl.get("toggle_target") or ""),
        object_state=_STATE_OF_TYPE.get(task_type, "none"),
        object_sliced=bool(pddl.get("object_sliced")),
        two_objects=task_type == "pick_two_obj_and_place",
    )


def _field(row: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in row:
        raise ValueError(f"{where}: missing field '{name}'")
    return row[name]


def task_from_record(row: Mapping[str, Any], split: str, where: str = "task") -> Task:
    """Build a Task from one compact ALFRED record (or a full traj_data.json); errors name `where` and the field."""
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: expected an object, got {type(row).__name__}")
    task_type = _field(row, "task_type", where)
    if task_type not in TASK_TYPES:
        raise ValueError(f"{where}: field 'task_type': unknown task type {task_type!r}")
    pddl = dict(_field(row, "pddl_params", where))
    for key in ("object_target", "parent_target", "mrecep_target", "toggle_target"):
        val = pddl.get(key) or ""
        if val and canonical_class(val) is None:
            raise ValueError(f"{where}: field 'pddl_params.{key}': unknown class {val!r}")
        pddl[key] = canonical_class(val) if val else ""
    pddl["object_sliced"] = bool(pddl.get("object_sliced"))
    if not pddl["object_target"]:
        raise ValueError(f"{where}: field 'pddl_params.object_target' is empty")
    scene = _field(row, "scene", where)
    try:
        floorplan = int(scene["scene_num"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where}: field 'scene.scene_num' missing or not an integer") from exc
    anns_raw = row.get("anns")
    if anns_raw is None:  # full traj_data.json keeps them under turk_annotations
        anns_raw = row.get("turk_annotations", {}).get("anns", [])
    annotations = tuple(
        Annotation(str(a.get("task_desc", "")).strip(), tuple(str(h).strip() for h in a.get("high_descs", ())))
        for a in anns_raw
    )
    high_raw = _field(row, "plan", where)["high_pddl"] if "high_pddl" not in row and "plan" in row else row.get("high_pddl")
    if high_raw is None:
        raise ValueError(f"{where}: missing field 'high_pddl'")
    high: list[tuple[str, tuple[str, ...]]] = []
    for i, step in enumerate(high_raw):
        disc = step.get("discrete_action", step)
        if "action" not in disc:
            raise ValueError(f"{where}: field 'high_pddl[{i}].action' missing")
        high.append((str(disc["action"]), tuple(str(a) for a in disc.get("args", ()))))
    tid = row.get("path") or row.get("task_id")
    if not tid:
        raise ValueError(f"{where}: missing field 'path' (task id)")
    return Task(
        id=str(tid), split=split, task_type=task_type, pddl_params=pddl, floorplan=floorplan,
        annotations=annotations, args=task_args(task_type, pddl), high_pddl=tuple(high),
    )


@lru_cache(maxsize=None)
def _load(split: str) -> tuple[Task, ...]:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    name = SPLIT_FILES[split]
    rows = load_data_json(name)
    return tuple(task_from_record(r, split, f"{name}[{i}]") for i, r in enumerate(rows))


def load_tasks(split: str) -> list[Task]:
    """All tasks of an ALFRED split (cached)."""
    return list(_load(split))


@lru_cache(maxsize=None)
def _index() -> dict[str, Task]:
    out: dict[str, Task] = {}
    for split in SPLITS:
        for t in _load(split):
            out.setdefault(t.id, t)
    return out


def get_task(task_id: str) -> Task:
    """The task with this id (ALFRED task path, or its trailing trial id) from any split."""
    idx = _index()
    if task_id in idx:
        return idx[task_id]
    for t in idx.values():  # accept the bare trial id too
        if t.id.endswith("/" + task_id) or t.id.split("/")[-1] == task_id:
            return t
    raise KeyError(f"unknown task id {task_id!r}")


def spec_of(task_id: str) -> str:
    """A task's ALFRED spec ('pick_and_place_simple-Pencil-None-Shelf-308'): its id without the trial."""
    return task_id.split("/", 1)[0]


@lru_cache(maxsize=1)
def dev_specs() -> frozenset[str]:
    """The dev set (household/data/dev_set.json): the task specs rules and prompts may be tuned on; every trial of
    a spec belongs to it. Planner-quality figures are reported on tasks outside it."""
    return frozenset(str(s) for s in load_json("dev_set.json")["specs"])


TASK_SETS = ("heldout", "dev", "all")


def in_task_set(task_id: str, task_set: str) -> bool:
    """Whether a task belongs to `task_set`: heldout (outside the dev set), dev, or all."""
    if task_set not in TASK_SETS:
        raise ValueError(f"task set must be one of {TASK_SETS}, not {task_set!r}")
    return task_set == "all" or (spec_of(task_id) in dev_specs()) == (task_set == "dev")
