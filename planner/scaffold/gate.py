"""The scaffold's goal gate: named rules that keep the legal set on the way the predicted arguments require.

An ALFRED goal asks for one object (a slice of it when sliced), maybe with a state made somewhere (heat in the
microwave, cool in the fridge, clean in the sink basin), maybe put into a movable receptacle, then put onto a parent
(or looked at under a lamp), sometimes twice. `goal_gate` narrows a legal set (`planner.scaffold.legal.legal_now`)
in three filters, each visible in its body:

1. `ALLOW_RULES` veto the steps that skip or undo what the arguments require;
2. of what is kept, `PROGRESS_RULES` keep only the steps that do what is required next, when any is legal;
3. when nothing but Stop would be left, the gate steps aside (the legal set unchanged).

Each table is asked in order and the first rule with an opinion on a step decides (a rule returns None to leave the
step to the next one), so the order carries meaning. The rules read `GateState`, derived once per call from the
arguments, the observation and what the agent did (no hidden scene information).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Callable, Mapping, NamedTuple, Sequence

from household.world.ontology import KNIVES, SLICED_OF, canonical_class
from household.world.world import STATE_WORD
from planner.scaffold.legal import STATE_PLACE, STATE_TOGGLES, parse_seen

PHASES = ("fetch", "slice", "make", "deliver", "two", "look", "walk", "search")


class Step(NamedTuple):
    """A legal step and its words: 'PutObject Apple Fridge' -> verb, what, where."""
    text: str
    verb: str
    what: str
    where: str  # the receptacle of a put ('' for any other step)

    @classmethod
    def parse(cls, text: str) -> Step:
        """The step's words; `where` only for a three-word step."""
        words = text.split()
        return cls(text, words[0] if words else "", words[1] if len(words) > 1 else "",
                   words[2] if len(words) == 3 else "")

    @property
    def put(self) -> bool:
        """A put of one object into one place."""
        return self.verb == "PutObject" and bool(self.where)


@dataclass(frozen=True)
class GateState:
    """What the rules read, derived once per call (`gate_state`)."""
    obj: str  # the object the arguments name
    final: str  # the object the goal is on: its slice when sliced
    parent: str  # where it goes last ('' for a look-at task)
    mrecep: str  # the movable receptacle it goes into first ('' when none, or when it is the object itself)
    lamp: str  # the lamp of a look-at task
    state: str  # the predicted state: heat, cool, clean or none
    maker: str  # where the state is made ('' when none is asked)
    toggles: tuple[str, ...]  # the appliances switched on to make the state
    holding: str  # the class in the agent's hands
    state_ok: bool  # the state shows on the object (or none is asked)
    sliced_seen: bool  # a slice is seen (or none is asked)
    goal_place: str  # where the object goes next: the maker until the state shows, then mrecep, parent or lamp
    carried: Mapping[str, str]  # what is held -> the one place it goes next (the receptacle too, once loaded)
    in_maker: bool  # the agent put the object where the state is made
    made: bool  # in there and the state shows: take it out
    making: bool  # in there and the state does not show yet: switch it on (close the fridge)
    slicing: bool  # a slice is asked for and none is seen: a knife first, then the object
    loaded: bool  # the object is in the receptacle, the receptacle not yet in the parent
    unplaced: bool  # the agent has put the object nowhere yet
    second: bool  # two objects, free hands, one in the parent: fetch the other
    elsewhere: bool  # holding the second one at a parent where the first one is not in view
    placed_here: bool  # at the parent the object was put in
    knife_down: bool  # sliced, the knife in hand: it is put down, not in the goal
    targets: tuple[str, ...] = ()  # where walks go (reachable from here); none = walks stay free
    searching: bool = False  # what is fetched next was never seen and no walk to it is legal
    forward: frozenset[str] = frozenset()  # the legal steps that are progress (set once PROGRESS_RULES ran)


Verdict = Callable[[Step, GateState], bool | None]


@dataclass(frozen=True)
class Rule:
    """One named rule: `fn(step, state)` is its verdict on a step, or None to leave the step to the next rule."""
    name: str
    phase: str
    why: str
    fn: Verdict


def _observed_state(cls: str, state: str, observed: Sequence[str]) -> bool:
    """Whether a seen object of `cls` shows the predicted state ('Apple (hot)'); no state asked = True."""
    if state not in STATE_WORD:
        return True
    return any(c == cls and STATE_WORD[state] in words for c, words in map(parse_seen, observed))


def _reachable(classes: Sequence[str], legal: Sequence[str]) -> tuple[str, ...]:
    """The classes a legal step walks to or acts on from here."""
    return tuple(c for c in classes if c and (f"Navigation {c}" in legal or any(a.endswith(f" {c}") for a in legal)))


def gate_state(legal: Sequence[str], args: dict | None, location: str, observed: Sequence[str],
               inside: Sequence[tuple[str, str]] = (), holding: str = "", here: Sequence[str] | None = None,
               located: Sequence[tuple[str, str]] = ()) -> GateState | None:
    """The flags the rules read (arguments as `goal_gate` takes them); None when the arguments name no object."""
    args = args or {}
    obj, parent, mrecep, lamp = (canonical_class(str(args.get(k) or "")) or "" for k in
                                 ("object_target", "parent_target", "mrecep_target", "toggle_target"))
    if not obj:
        return None
    state = str(args.get("object_state") or "none")
    final = SLICED_OF.get(obj, obj) if args.get("object_sliced") else obj
    maker = STATE_PLACE.get(state, "")
    state_ok = _observed_state(final, state, observed)
    mrecep = "" if mrecep == final else mrecep
    goal_place = maker if maker and not state_ok else (mrecep or parent or lamp)  # look at it: to the lamp
    carried = {final: goal_place}
    if mrecep and (final, mrecep) in inside:
        carried[mrecep] = parent
    in_maker = (final, maker) in inside
    sliced_seen = final == obj or any(parse_seen(x)[0] == final for x in observed)
    two = bool(args.get("two_objects"))
    g = GateState(
        obj=obj, final=final, parent=parent, mrecep=mrecep, lamp=lamp, state=state, maker=maker,
        toggles=STATE_TOGGLES.get(state, ()), holding=holding, state_ok=state_ok, sliced_seen=sliced_seen,
        goal_place=goal_place, carried=MappingProxyType(carried), in_maker=in_maker,
        made=bool(maker) and state_ok and in_maker, making=bool(maker) and not state_ok and in_maker,
        slicing=not sliced_seen,
        loaded=bool(mrecep) and (final, mrecep) in inside and (mrecep, parent) not in inside,
        unplaced=all(o != final for o, _ in inside),
        second=two and not holding and (final, parent) in inside,
        # the goal wants both in one receptacle: the first one is known to be at a parent of this class, not here
        elsewhere=(two and holding == final and here is not None and location == parent
                   and any(parse_seen(o)[0] == final and p == parent for o, p in located)
                   and final not in {parse_seen(x)[0] for x in here[1:]}),
        placed_here=location == parent and (final, parent) in inside,
        knife_down=holding in KNIVES and sliced_seen and final != obj)
    targets, searching = _walks(g, legal, observed)
    return replace(g, targets=targets, searching=searching)


def _walks(g: GateState, legal: Sequence[str], observed: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """Where walks go from here, and whether that is a search of closed containers."""
    # The held object's next place, back to the object left where its state is made, or with free hands to what is
    # fetched next (a knife before a slice, the loaded receptacle, else the goal object not yet placed); before a
    # slice, with a knife in hand, to the object.
    want: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    if g.slicing:
        targets = (g.obj,) if g.holding in KNIVES else ()
        want = () if g.holding else KNIVES
    elif g.holding:
        targets = (g.carried.get(g.holding, ""),)
    elif g.made or g.making:
        targets = (g.maker,)
    elif g.loaded:
        want = (g.mrecep,)
    elif g.unplaced or g.second:
        want = (g.final,)
    # the one already put in the parent is not the one to fetch (it is not picked up again there)
    targets = _reachable(targets or want, [a for a in legal if not (g.placed_here and a == f"PickupObject {g.final}")])
    # What is fetched next, cut with the knife in hand, or (holding the object) the receptacle it goes into was never
    # seen and no walk to it is legal (one found none): look inside closed containers.
    seek = want or ((g.obj,) if g.slicing and g.holding in KNIVES else
                    (g.mrecep,) if g.mrecep and g.holding == g.final and g.goal_place == g.mrecep else ())
    searching = bool(seek) and not targets and not {parse_seen(x)[0] for x in observed} & set(seek)
    if searching:
        targets = _reachable(tuple(c for c, flags in map(parse_seen, observed) if c and "closed" in flags), legal)
    return targets, searching


# Vetoes, asked in order: False forbids the step, True allows it without asking the later rules, None leaves it to
# the next rule (default: allowed). Rules on different verbs commute; the put rules do not (a loaded receptacle goes
# to the parent: carried_only_where_next allows it before empty_receptacle_not_delivered would forbid it).
ALLOW_RULES: tuple[Rule, ...] = (
    Rule("carried_only_where_next", "deliver",
         "what the goal needs is put only where it goes next (maker, receptacle, parent), never elsewhere",
         lambda s, g: (s.text in g.forward) if s.put and s.what in g.carried else None),
    Rule("whole_not_delivered", "slice",
         "the goal is on the slice: the whole object may be put down, but not where the slice goes",
         lambda s, g: (s.where not in (g.parent, g.mrecep)) if s.put and s.what == g.obj and g.final != g.obj
         else None),
    Rule("empty_receptacle_not_delivered", "deliver",
         "the movable receptacle goes to the parent only with the object in it",
         lambda s, g: False if s.put and g.mrecep and s.what == g.mrecep and s.where == g.parent else None),
    Rule("keep_knife_until_sliced", "slice",
         "the knife is still needed until a slice is seen",
         lambda s, g: False if s.put and s.what in KNIVES and not g.sliced_seen else None),
    Rule("walk_only_to_targets", "walk",
         "where the next step lies is known and reachable: walks elsewhere only wander",
         lambda s, g: (s.what in g.targets) if s.verb == "Navigation" and g.targets else None),
    Rule("slice_where_it_lies", "slice",
         "the goal is on the slice: the whole object is cut where it lies, not picked up",
         lambda s, g: False if s.verb == "PickupObject" and s.what == g.obj and g.final != g.obj else None),
    Rule("placed_stays", "deliver",
         "the object put in the parent is where it goes: not picked up again there",
         lambda s, g: False if s.verb == "PickupObject" and s.what == g.final and g.placed_here else None),
    Rule("no_switch_off_before_state", "make",
         "switching the appliance off before the state shows undoes the work (on/off loops)",
         lambda s, g: g.state_ok if s.verb == "ToggleObjectOff" and s.what in g.toggles else None),
    Rule("switch_on_only_with_object_in", "make",
         "the appliance makes the state only with the object in, and only until the state shows",
         lambda s, g: (not g.state_ok and g.in_maker) if s.verb == "ToggleObjectOn" and s.what in g.toggles
         else None),
    Rule("close_only_cooling_fridge", "make",
         "closing undoes an opening; only the fridge with the object in it, to cool it, is closed",
         lambda s, g: (g.state == "cool" and s.what == g.maker and not g.state_ok and g.in_maker)
         if s.verb == "CloseObject" else None),
)

# What is required next, asked in order: True = progress, False = not, None = the next rule's call (default: not).
PROGRESS_RULES: tuple[Rule, ...] = (
    Rule("take_out_made", "make",
         "the state shows on the object still where it was made: taking it out is next",
         lambda s, g: True if s.text == f"PickupObject {g.final}" and g.made else None),
    Rule("pick_up_unplaced", "fetch",
         "the goal object not yet placed anywhere is picked up where it lies (the critic may have walked away)",
         lambda s, g: True if s.text == f"PickupObject {g.final}" and not g.holding and g.unplaced else None),
    Rule("pick_up_second", "two",
         "one of two objects is in the parent: the other is picked up like the first",
         lambda s, g: True if s.text == f"PickupObject {g.final}" and not g.holding and g.second else None),
    Rule("walk_on_to_parent", "two",
         "holding the second one at a parent where the first is not in view: both go in one, so walk on (the put "
         "here is then no progress, and carried_only_where_next forbids it)",
         lambda s, g: (s.text == f"Navigation {g.parent}") if g.elsewhere else None),
    Rule("open_to_take_out", "make",
         "the state shows inside the closed fridge: opening it comes before taking the object out",
         lambda s, g: True if g.made and s.text == f"OpenObject {g.maker}" else None),
    Rule("open_to_search", "search",
         "what is fetched next was never seen and no walk finds it: it may be inside a closed container",
         lambda s, g: True if g.searching and s.verb == "OpenObject" else None),
    Rule("lamp_on", "look",
         "holding the object of a look-at task, switching the lamp on is the goal",
         lambda s, g: True if g.lamp and g.holding == g.final and s.text == f"ToggleObjectOn {g.lamp}" else None),
    Rule("pick_up_loaded_receptacle", "deliver",
         "the object is in the movable receptacle: the receptacle is carried to the parent next",
         lambda s, g: True if g.loaded and not g.holding and s.text == f"PickupObject {g.mrecep}" else None),
    Rule("switch_on_maker", "make",
         "the object is where its state is made: switching the appliance on makes it",
         lambda s, g: True if g.making and s.text in {f"ToggleObjectOn {t}" for t in g.toggles} else None),
    Rule("close_fridge_to_cool", "make",
         "the object is in the fridge: closing the fridge cools it",
         lambda s, g: True if g.making and g.state == "cool" and s.text == f"CloseObject {g.maker}" else None),
    Rule("knife_then_cut", "slice",
         "a slice is asked for and none is seen: a knife with free hands, then the cut; nothing else moves on",
         lambda s, g: ((s.text == f"SliceObject {g.obj}" and g.holding in KNIVES)
                       or (not g.holding and s.verb == "PickupObject" and s.what in KNIVES)) if g.slicing else None),
    Rule("knife_down", "slice",
         "sliced, the knife in hand: putting it down frees the hands, but not where the slice goes",
         lambda s, g: (s.where not in (g.parent, g.mrecep, g.maker)) if g.knife_down and s.put
         and s.what == g.holding else None),
    Rule("put_where_it_goes_next", "deliver",
         "a put of what is held into the one place it goes next: where its state is made, the receptacle, the parent",
         lambda s, g: True if s.put and g.carried.get(s.what) == s.where else None),
)

RULE_NAMES = frozenset(r.name for r in ALLOW_RULES + PROGRESS_RULES)


def _verdict(rules: Sequence[Rule], step: Step, g: GateState, disabled: frozenset[str], default: bool) -> bool:
    """The verdict of the first enabled rule with an opinion on `step`, else `default`."""
    for rule in rules:
        if rule.name not in disabled:
            verdict = rule.fn(step, g)
            if verdict is not None:
                return verdict
    return default


def goal_gate(legal: Sequence[str], args: dict | None, location: str, observed: Sequence[str],
              inside: Sequence[tuple[str, str]] = (), holding: str = "", here: Sequence[str] | None = None,
              located: Sequence[tuple[str, str]] = (), *, disabled: frozenset[str] = frozenset()) -> list[str]:
    """`legal` without the steps that skip or undo what the predicted arguments require, only the steps that do
    what they require next when any is legal, and unchanged when nothing but Stop would be left.

    `observed`: the seen list with states (a state counts once observed); `inside`: the placements the agent made;
    `holding`: the class in the agent's hands; `here` (the real state only, else None): the place and what is in
    view there; `located`: (object, place class) of each seen object, as last observed. `disabled`: names of rules
    switched off (to test what each one does).
    """
    if disabled - RULE_NAMES:
        raise ValueError(f"no such gate rule: {sorted(disabled - RULE_NAMES)}")
    g = gate_state(legal, args, location, observed, inside, holding, here, located)
    if g is None:  # no arguments, or no object to gate
        return list(legal)
    steps = [Step.parse(a) for a in legal]
    # the vetoes read what is progress (what the goal needs goes only where it goes next)
    g = replace(g, forward=frozenset(s.text for s in steps if _verdict(PROGRESS_RULES, s, g, disabled, False)))
    kept = [s.text for s in steps if _verdict(ALLOW_RULES, s, g, disabled, True)]
    forward = [a for a in kept if a in g.forward]
    if forward:
        return forward
    return kept if any(a != "Stop" for a in kept) else list(legal)
