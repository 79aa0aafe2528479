import pytest

from household.world.ontology import canonical_class
from household.world.tasks import SPLITS, TASK_TYPES, get_task, load_tasks, task_from_record


def test_split_sizes_and_annotations():
    sizes = {s: len(load_tasks(s)) for s in SPLITS}
    assert sizes == {"train": 6574, "valid_seen": 251, "valid_unseen": 255}
    assert sum(len(t.annotations) for t in load_tasks("valid_unseen")) == 821
    assert {t.floorplan for t in load_tasks("valid_unseen")} == {10, 219, 308, 424}
    assert len(TASK_TYPES) == 7


def test_args_from_type_and_pddl():
    t = next(t for t in load_tasks("valid_unseen") if t.task_type == "pick_heat_then_place_in_recep")
    assert t.args.object_state == "heat" and not t.args.two_objects
    two = next(t for t in load_tasks("valid_unseen") if t.task_type == "pick_two_obj_and_place")
    assert two.args.two_objects and two.args.object_state == "none"
    mov = next(t for t in load_tasks("valid_unseen") if t.task_type == "pick_and_place_with_movable_recep")
    assert mov.args.mrecep_target and set(mov.args.as_dict()) == {
        "object_target", "parent_target", "mrecep_target", "toggle_target", "object_state", "object_sliced",
        "two_objects"}
    assert t.instruction() == t.annotations[0].task_desc and t.annotations[0].high_descs


def test_get_task_any_split_and_unknown():
    t = load_tasks("train")[5]
    assert get_task(t.id) is t
    with pytest.raises(KeyError, match="nope"):
        get_task("nope")


def test_malformed_record_names_field():
    with pytest.raises(ValueError, match=r"f\.json\[0\]: missing field 'task_type'"):
        task_from_record({"pddl_params": {}}, "train", "f.json[0]")
    row = {"task_type": "pick_and_place_simple", "pddl_params": {"object_target": "Unicorn"}, "scene": {}}
    with pytest.raises(ValueError, match="pddl_params.object_target"):
        task_from_record(row, "train", "x")


def test_canonical_class():
    assert canonical_class("sink basin") == "SinkBasin"
    assert canonical_class("apple") == "Apple"
    assert canonical_class("alarmclock") == "AlarmClock"
    assert canonical_class("knives") == "Knife"
    assert canonical_class("unicorn") is None
