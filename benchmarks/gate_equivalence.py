"""The rule-table goal gate (`planner.scaffold.gate`) against the pre-refactor gate, at every state bench_gate visits.

bench_gate's rollouts (true arguments, the first legal sub-goal, scaffold full; benchmarks/floors.py) run with the
loop's `goal_gate` wrapped: at each call both gates answer the same arguments and must return the identical list.
With the gate on, the wrapper answers the new gate's list. With the gate off the loop never calls a gate, so the
wrapper answers the legal set unchanged (what the loop keeps with the gate off) after checking both gates there;
the rollouts are then checked to take exactly the sub-goals of a `goal_gate: false` run (the same states).
Every task of each split by default (valid_unseen first, then valid_seen), gate on and off. Exit 1 on a mismatch.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import planner.loop.episode  # noqa: E402
from benchmarks.floors import floor_rollouts  # noqa: E402
from benchmarks.sample import seeded_tasks  # noqa: E402
from flows.runtime.params import load_params  # noqa: E402
from flows.runtime.workspace import configure  # noqa: E402
from household.ontology import KNIVES, SLICED_OF, canonical_class  # noqa: E402
from planner.scaffold.gate import goal_gate  # noqa: E402
from planner.scaffold.legal import STATE_PLACE, STATE_TOGGLES, parse_seen  # noqa: E402

# The pre-refactor gate (planner/legal.py, now planner/scaffold/legal.py, before the gate had its own module),
# copied verbatim with the two helpers and the constant it read: kept as the reference the rule-table gate is checked
# against (down to "end of").
STATE_WORD = {"heat": "hot", "cool": "cold", "clean": "clean"}


def _observed_state(cls: str, state: str, observed: Sequence[str]) -> bool:
    """Whether a seen object of `cls` shows the predicted state ('Apple (hot)'); no state asked = True."""
    if state not in STATE_WORD:
        return True
    return any(c == cls and STATE_WORD[state] in words for c, words in map(parse_seen, observed))


def _reachable(classes: Sequence[str], legal: Sequence[str]) -> tuple[str, ...]:
    """The classes a legal step walks to or acts on from here."""
    return tuple(c for c in classes if c and (f"Navigation {c}" in legal or any(a.endswith(f" {c}") for a in legal)))


def old_goal_gate(legal: Sequence[str], args: dict | None, location: str, observed: Sequence[str],
              inside: Sequence[tuple[str, str]] = (), holding: str = "", here: Sequence[str] | None = None,
              located: Sequence[tuple[str, str]] = ()) -> list[str]:
    """`legal` without the steps that skip or undo what the predicted arguments require (unless nothing is left);
    when a put that does what they require next is legal here, only such puts.

    The goal object (the slice when sliced) goes only where the arguments send it next: where the predicted state
    is made until the state is observed, then into the movable receptacle when one is named, then to the parent;
    while it is held, walks go only there. The receptacle goes to the parent only with the object in it, and then
    only there; once the object is in it, with free hands, walks go only to it and picking it up is the step. The
    appliance that makes the state is switched on only with the object put in its place and until the state is
    observed, and not switched off before. With free hands: while the object is in there and its state
    does not show, walks go only there and switching the appliance on (closing the fridge) is the step; once it
    shows, walks go only there and taking it out (opening the fridge first) is the step; with the object not yet
    placed anywhere, walks go only to it (the world explores for an unseen one) and picking it up is the step where
    it lies. When a slice is asked for, until one is seen: the whole object is not picked up, walks go to a knife
    with free hands (picking one up is the step there) and to the object with the knife in hand (cutting it is the
    step there), and the knife is not put down; once a slice is seen, putting the knife down (not where the slice
    goes) is the step. When what is fetched next was never seen and no walk to it is legal (one found none), walks
    go to closed containers and opening one is the step (so too for what is to be cut, with the knife in hand, and
    for the movable receptacle, with the object in hand).
    Holding the object of a look-at task, walks go only to the lamp and switching it on is the step. Nothing is
    closed except the fridge with the object in it (to cool). An object put in the parent is not picked up again
    there. With two objects and one put in the parent, free hands fetch the other like the first; holding it at a
    parent where the first one is not in view (another cabinet), walking on to the parent is the step.
    `observed`: the seen list with states (a state counts once observed); `inside`: the placements the agent made;
    `holding`: the class in the agent's hands; `here` (the real state only, else None): the place and what is in
    view there; `located`: (object, place class) of each seen object, as last observed.
    """
    args = args or {}
    obj, parent, mrecep, lamp = (canonical_class(str(args.get(k) or "")) or "" for k in
                                 ("object_target", "parent_target", "mrecep_target", "toggle_target"))
    if not obj:  # no arguments, or no object to gate
        return list(legal)
    state = str(args.get("object_state") or "none")
    final = SLICED_OF.get(obj, obj) if args.get("object_sliced") else obj
    maker = STATE_PLACE.get(state, "")
    state_ok = _observed_state(final, state, observed)
    mrecep = "" if mrecep == final else mrecep
    goal_place = maker if maker and not state_ok else (mrecep or parent or lamp)  # look at it: to the lamp
    sliced_seen = final == obj or any(parse_seen(x)[0] == final for x in observed)
    carried = {final: goal_place}  # what is held -> the one place it should go next
    if mrecep and (final, mrecep) in inside:
        carried[mrecep] = parent
    made = bool(maker) and state_ok and (final, maker) in inside  # the state shows; the object is still in there
    making = bool(maker) and not state_ok and (final, maker) in inside  # in there; switch it on (close the fridge)
    slicing = not sliced_seen  # a slice is asked for and none is seen yet: a knife first, then the object
    loaded = bool(mrecep) and (final, mrecep) in inside and (mrecep, parent) not in inside  # the receptacle next
    two = bool(args.get("two_objects"))
    second = two and not holding and (final, parent) in inside  # one is in place: fetch the other
    # holding the second one at a parent without the first in view: the goal wants both in one receptacle
    elsewhere = (two and holding == final and here is not None and location == parent
                 and any(parse_seen(o)[0] == final and p == parent for o, p in located)
                 and final not in {parse_seen(x)[0] for x in here[1:]})
    # where a walk should go: the held object's next place, back to the object left where its state was made, or
    # with free hands to what is fetched next (a knife before a slice, else the goal object not yet placed); before
    # a slice, with a knife in hand, to the object
    want: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    if slicing:
        targets = (obj,) if holding in KNIVES else ()
        want = () if holding else KNIVES
    elif holding:
        targets = (carried.get(holding, ""),)
    elif made or making:
        targets = (maker,)
    elif loaded:
        want = (mrecep,)
    elif all(o != final for o, _ in inside) or second:
        want = (final,)
    # the one already put in the parent is not the one to fetch (it is not picked up again there)
    placed_here = location == parent and (final, parent) in inside
    targets = _reachable(targets or want, [a for a in legal if not (placed_here and a == f"PickupObject {final}")])
    # what is fetched next, cut with the knife in hand, or (holding the object) the movable receptacle it goes into
    # was never seen and no walk to it is legal (one found none): look inside closed containers
    seek = want or ((obj,) if slicing and holding in KNIVES else
                    (mrecep,) if mrecep and holding == final and goal_place == mrecep else ())
    searching = bool(seek) and not targets and not {parse_seen(x)[0] for x in observed} & set(seek)
    if searching:
        targets = _reachable(tuple(c for c, flags in map(parse_seen, observed) if c and "closed" in flags), legal)
    knife_down = holding in KNIVES and not slicing and final != obj  # sliced: the knife is put down, not in the goal

    def progress(step: str) -> bool:
        """A put that does what the arguments require next, picking up the goal object not yet placed anywhere, or
        taking it out once its state shows (opening the closed fridge it cooled in first)."""
        if step == f"PickupObject {final}":  # out of where its state was made, not yet placed anywhere (the critic
            # walked away from it), or the second of two
            return made or (not holding and (all(o != final for o, _ in inside) or second))
        if elsewhere:  # on to the parent that holds the first one
            return step == f"Navigation {parent}"
        if made and step == f"OpenObject {maker}":
            return True
        words = step.split()
        if searching and words[0] == "OpenObject":
            return True
        if lamp and holding == final and step == f"ToggleObjectOn {lamp}":  # look at it in the light
            return True
        if loaded and not holding and step == f"PickupObject {mrecep}":  # the receptacle with the object in it
            return True
        if making and (step in {f"ToggleObjectOn {t}" for t in STATE_TOGGLES.get(state, ())} or
                       (state == "cool" and step == f"CloseObject {maker}")):
            return True
        if slicing:  # the knife with free hands, the cut with the knife in hand
            return (step == f"SliceObject {obj}" and holding in KNIVES) or \
                (not holding and words[0] == "PickupObject" and words[1] in KNIVES)
        if knife_down and words[0] == "PutObject" and len(words) == 3 and words[1] == holding:
            return words[2] not in (parent, mrecep, maker)
        return words[0] == "PutObject" and len(words) == 3 and carried.get(words[1]) == words[2]

    def allowed(step: str) -> bool:
        words = step.split()
        verb, what = words[0], (words[1] if len(words) > 1 else "")
        if verb == "PutObject" and len(words) == 3:
            where = words[2]
            if elsewhere and what == final:
                return False
            if what in carried:
                return progress(step)
            if what == obj and final != obj:
                return where not in (parent, mrecep)
            if what == mrecep and mrecep and where == parent:
                return False  # the receptacle without the object in it
            if what in KNIVES and not sliced_seen:
                return False  # the knife is still needed
        if verb == "Navigation" and targets:
            return what in targets
        if verb == "PickupObject" and what == obj and final != obj:
            return False  # slice it where it is: the goal is on the slice
        if verb == "PickupObject" and what == final and placed_here:
            return False  # it is where it goes (with two objects, the second one is elsewhere)
        if verb == "ToggleObjectOff" and what in STATE_TOGGLES.get(state, ()):
            return state_ok  # switching it off before the state shows undoes the work (on/off loops)
        if verb == "ToggleObjectOn" and what in STATE_TOGGLES.get(state, ()):
            return not state_ok and (final, maker) in inside  # on with the object in, and only until the state shows
        if verb == "CloseObject":
            return state == "cool" and what == maker and not state_ok and (final, maker) in inside
        return True

    kept = [a for a in legal if allowed(a)]
    forward = [a for a in kept if progress(a)]
    if forward:
        return forward
    return kept if [a for a in kept if a != "Stop"] else list(legal)


# (end of the pre-refactor gate)


class Checker:
    """The loop's `goal_gate` while checking: both gates at each call; answers the new gate's list (gate on) or the
    legal set unchanged (gate off)."""

    def __init__(self, gate_on: bool) -> None:
        self.gate_on = gate_on
        self.calls = 0
        self.states: set[str] = set()  # distinct argument tuples
        self.mismatches: list[dict[str, Any]] = []

    def __call__(self, legal: Sequence[str], args: dict | None, location: str, observed: Sequence[str],
                 inside: Sequence[tuple[str, str]] = (), holding: str = "", here: Sequence[str] | None = None,
                 located: Sequence[tuple[str, str]] = ()) -> list[str]:
        call = (legal, args, location, observed, inside, holding, here, located)  # as the loop passes them
        new = goal_gate(*call)
        old = old_goal_gate(*call)
        self.calls += 1
        self.states.add(repr([None if x is None else x if isinstance(x, (str, dict)) else list(x) for x in call]))
        if new != old:
            self.mismatches.append({"call": call, "old": old, "new": new})
        return new if self.gate_on else list(legal)


def check(params: dict[str, Any], split: str, per_type: int, task_set: str, gate_on: bool) -> Checker:
    """bench_gate's rollouts on one sample, both gates checked at every state; prints the counts."""
    tasks = seeded_tasks(split, per_type, int(params["world"]["seed"]), "", task_set)
    checker = Checker(gate_on)
    with mock.patch.object(planner.loop.episode, "goal_gate", checker):
        rollouts = floor_rollouts(tasks, params, "full", "first", goal_gate=True)
    wins = sum(int(r["success"]) for r in rollouts)
    note = ""
    if not gate_on:  # the wrapper must visit what a gate-off run visits: the same sub-goals, task by task
        plain = floor_rollouts(tasks, params, "full", "first", goal_gate=False)
        differ = [r["task_id"] for r, p in zip(rollouts, plain)
                  if [s["subgoal"] for s in r["steps"]] != [s["subgoal"] for s in p["steps"]]]
        if differ:
            checker.mismatches.append({"gate-off rollouts differ from goal_gate: false": differ[:10]})
        note = f", same sub-goals as a goal_gate: false run in {len(tasks) - len(differ)}/{len(tasks)} tasks"
    print(f"{split} ({task_set}, {per_type or 'every'} per type, {len(tasks)} tasks), gate {'on' if gate_on else 'off'}"
          f": {checker.calls} gate calls checked ({len(checker.states)} distinct states), "
          f"{len(checker.mismatches)} mismatches; {wins}/{len(tasks)} succeeded{note}", flush=True)
    return checker


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--splits", default="valid_unseen,valid_seen", help="comma-separated, run in this order")
    ap.add_argument("--per-type", type=int, default=0, help="tasks per task type (0 = every task)")
    ap.add_argument("--set", dest="task_set", default="all", choices=("heldout", "dev", "all"))
    ap.add_argument("--gate", default="both", choices=("on", "off", "both"))
    ap.add_argument("--show", type=int, default=5, help="mismatches to print")
    args = ap.parse_args(argv)

    configure()
    params = load_params(args.params)
    modes = {"on": [True], "off": [False], "both": [True, False]}[args.gate]
    bad: list[dict[str, Any]] = []
    for split in args.splits.split(","):
        for gate_on in modes:
            bad += check(params, split, args.per_type, args.task_set, gate_on).mismatches
    for m in bad[:args.show]:
        print("MISMATCH", m, file=sys.stderr)
    print("identical at every state" if not bad else f"{len(bad)} MISMATCHES", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
