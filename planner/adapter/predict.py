"""The adapter: predicts the seven hidden task arguments from the instruction and the objects seen so far."""
from __future__ import annotations

import logging
import re
from typing import Any, Iterable, Mapping, Sequence

from household.world.ontology import (LAMPS, MOVABLE_RECEPTACLES, PICKUPABLE, PLACE_RECEPTACLES, RECEPTACLES,
                               canonical_class, class_words, name_siblings)
from planner.adapter.lexicon import Lexicon, train_lexicon, words
from llm.constrain import Constraint
from planner.prompts.parsing import ARG_SHORT, empty_args, parse_args
from planner.prompts.prompting import adapter_example, join_examples, render
from pools.records import Sample

log = logging.getLogger(__name__)


def _options(classes: Iterable[str], none: bool = True) -> tuple[str, ...]:
    return tuple(sorted(classes)) + (("none",) if none else ())


# Every value each argument can take: classes of the ontology, the four states, yes/no. Constrained decoding keeps
# the small model from inventing classes ("goldbin") or keys; parsing still validates it.
ALL_OPTIONS: dict[str, tuple[str, ...]] = {
    "object_target": _options(PICKUPABLE, none=False), "parent_target": _options(RECEPTACLES),
    "mrecep_target": _options(MOVABLE_RECEPTACLES), "toggle_target": _options(LAMPS),
    "object_state": ("clean", "heat", "cool", "none"), "object_sliced": ("yes", "no"), "two_objects": ("yes", "no"),
}
EMPTY = {"object_sliced": "no", "two_objects": "no"}  # a slot's empty value as the answer writes it (else 'none')
# Slots whose value the instruction must name: when no word points to one, only the empty value is offered. The
# object and the parent always keep a full list when no word points to any (a rare word must not force a wrong one).
NAMED_OR_EMPTY = ("mrecep_target", "toggle_target", "object_state", "object_sliced", "two_objects")
# all: every class (the paper's adapter answers over the whole vocabulary); lexicon: the values the instruction's words
# point to by counts over every train annotation (the scaffold); gt_lexicon: the same counts over the gt pool's
# annotations only (few-shot knowledge)
ADAPTER_OPTIONS = ("all", "lexicon", "gt_lexicon")
CLASS_SLOTS = ("object_target", "parent_target", "mrecep_target", "toggle_target")
# The order the answer line names the arguments in (examples and constraint alike). With the movable receptacle
# first, the model names the container ("a plate with a bottle on it": Plate) before the object that goes in it,
# instead of naming the container as the object.
ARG_ORDERS: dict[str, tuple[str, ...]] = {
    "object_first": tuple(ARG_SHORT),
    "mrecep_first": ("mrecep", "object", "parent", "toggle", "state", "sliced", "two"),
}


def args_constraint(options: Mapping[str, Sequence[str]], order: str = "object_first") -> Constraint:
    """The one-line answer 'object=.. parent=.. mrecep=.. toggle=.. state=.. sliced=.. two=..' (in `order`)."""
    parts: list[Any] = []
    for i, short in enumerate(ARG_ORDERS[order]):
        parts += [("" if i == 0 else " ") + short + "=", tuple(options[ARG_SHORT[short]])]
    return Constraint.template(parts)


def _by_name(instruction: str, classes: Iterable[str]) -> list[str]:
    """Classes the instruction names by a word of their own name ('bottle' -> Glassbottle, 'lamp' -> FloorLamp)."""
    ws = {w for w in words(instruction) if len(w) >= 3}
    out = []
    for c in classes:
        own = class_words(c).split()
        if ws & set(own) or any(len(w) >= 4 and c.lower().endswith(w) for w in ws):
            out.append(c)
    return out


# Words that end the phrase after 'with' ("a pan with a knife and a tomato slice | in it").
_PHRASE_ENDS = frozenset("on in into onto inside to at under from".split())
_ARTICLES = frozenset({"a", "an", "the", "some"})


def with_phrase(instruction: str) -> tuple[list[str], str]:
    """The movable receptacles named by the word right before 'with' ('a plate with a bottle on it': Plate), or
    before 'and' and an object ('a cup and knife'), and the words after it up to the next place preposition ('a
    bottle', 'knife'); ([], '') when no container comes first."""
    ws = re.findall(r"[a-z]+", instruction.lower())
    for i, (w, nxt) in enumerate(zip(ws, ws[1:])):
        rest = ws[i + 2:i + 10]
        named = [x for x in rest[:3] if x not in _ARTICLES][:1]
        if nxt == "with" or (nxt == "and" and named and _by_name(named[0], PICKUPABLE)):
            found = _by_name(w, MOVABLE_RECEPTACLES)
            if found:
                end = next((j for j, x in enumerate(rest) if x in _PHRASE_ENDS), len(rest))
                return found, " ".join(rest[:end])
    return [], ""


def _named_values(lex: Any, key: str, text: str, min_share: float, full: Sequence[str]) -> tuple[str, ...]:
    """The values of slot `key` that the words of `text` point to, then classes it names by their own name."""
    empty = EMPTY.get(key, "none")
    named = tuple(v for v in lex.points_to(key, text, min_share) if v in full and v != empty)
    if key in CLASS_SLOTS:  # only a class train ever has in this slot: 'rolls' must not offer ToiletPaperRoll
        named += tuple(c for c in _by_name(text, full) if c not in named and c != empty and lex.value_count[key][c] > 0)
    return named


# Words that name the light of a look-at task. Over train's 21,025 annotations the task has a toggle target in 2,215
# of the 2,231 that use one (and then no parent, movable receptacle, state, slice or second object in 2,215-2,231),
# and none in 18,758 of the 18,794 that use none.
# ALFWorld's templated goals name the lamp by its class ('examine the alarmclock with the desklamp.'): a word ending in
# 'lamp' is one too (no ALFRED annotation has such a word besides 'lamp' itself: the counts above are unchanged).
LAMP_WORDS = frozenset({"lamp", "light", "lamplight", "lit"})


def names_a_lamp(instruction: str) -> bool:
    """Whether a word of the instruction names the light of a look-at task."""
    return any(w in LAMP_WORDS or w.endswith("lamp") for w in words(instruction))


# A look-at task's arguments besides the object and the lamp: each slot's empty value.
LOOK_AT_EMPTY = {"parent_target": "none", "mrecep_target": "none", "object_state": "none", "object_sliced": "no",
                 "two_objects": "no"}


# Words that ask for a slice. Over train's 21,025 annotations, 2,717 of the 2,992 on a sliced task use one and 17 of
# the 18,033 on the others do (valid_unseen: 93 of 96 and 2 of 725).
SLICE_WORDS = frozenset({"slice", "sliced", "slicing", "cut", "cutting", "piece", "chop", "chopped", "dice", "diced",
                         "half", "wedge"})


def lexicon_options(instruction: str, min_share: float, container_with: bool = False,
                    lamp_word: bool = False, slice_word: bool = False, lex: Lexicon | None = None
                    ) -> dict[str, tuple[str, ...]]:
    """Each slot's options limited to the values the instruction's words point to (`planner.adapter.lexicon`), then the
    classes it names by their own name that train has in the slot (too rare there for the counts, e.g. Glassbottle).

    With `container_with`, a container named right before 'with' must be the movable receptacle: 'none' is not
    offered for it nor for the parent, the container is not offered as the object, and when the words after 'with'
    point to objects ('with a knife and a tomato slice'), only those are offered. With `lamp_word`, an instruction
    with a word for the light ('lamp', 'light') is a look-at task (a lamp, no 'none'; the other slots empty), and
    one without such a word has no toggle target. With `slice_word`, the object is sliced exactly when a word asks
    for a slice ('cut', 'piece'). `lex`: the counts to read (default: every train annotation)."""
    lex = lex or train_lexicon()
    out: dict[str, tuple[str, ...]] = {}
    for key, full in ALL_OPTIONS.items():
        empty = EMPTY.get(key, "none")
        named = _named_values(lex, key, instruction, min_share, full)
        if not named:
            out[key] = (empty,) if key in NAMED_OR_EMPTY else full
        else:
            out[key] = named + ((empty,) if empty in full else ())
    lit = lamp_word and names_a_lamp(instruction)  # a look-at task: no movable receptacle
    held, phrase = with_phrase(instruction) if container_with and not lit else ([], "")
    if held:  # a receptacle task: it has a parent too (train: none in 17 of the 1,869 sentences the rule fires on)
        out["mrecep_target"] = tuple(dict.fromkeys(held + [v for v in out["mrecep_target"] if v != "none"]))
        out["parent_target"] = tuple(v for v in out["parent_target"] if v != "none") or out["parent_target"]
        objects = tuple(v for v in out["object_target"] if v not in held) or out["object_target"]
        after = set(_named_values(lex, "object_target", phrase, min_share, ALL_OPTIONS["object_target"]))
        out["object_target"] = tuple(v for v in objects if v in after) or objects
    if lit:
        out["toggle_target"] = tuple(v for v in out["toggle_target"] if v != "none") or LAMPS
        out.update({k: (v,) for k, v in LOOK_AT_EMPTY.items()})
    elif lamp_word:
        out["toggle_target"] = ("none",)
    if slice_word and not lit:
        out["object_sliced"] = ("yes",) if words(instruction) & SLICE_WORDS else ("no",)
    return out


# Classes that never lie inside anything (furniture, appliances, lamps): a walk that did not find one means the room
# has none. A walk to the true parent or lamp of every valid_seen and valid_unseen task finds it from the start (423
# and 83 tasks); a walk to the true object does not in 77 of 506 (it is in a closed drawer), so an object is dropped
# only once a class of the same name has been seen (`gone`, `drop_sibling`), and movable receptacles never.
IN_THE_OPEN = PLACE_RECEPTACLES | frozenset(LAMPS)
ABSENT_SLOTS = ("parent_target", "toggle_target")


def gone(absent: Iterable[str], present: Iterable[str], places: bool = True, siblings: bool = False
         ) -> frozenset[str]:
    """The classes of `absent` (walks found none) not to offer: parents and lamps (`places`), and (`siblings`)
    objects once a class of the same name is in `present` ('WineBottle not found', a Glassbottle seen)."""
    absent, present = set(absent), set(present)
    out = absent & IN_THE_OPEN if places else set()
    if siblings:
        out |= {c for c in absent & PICKUPABLE if name_siblings(c) & present}
    return frozenset(out)


def without_absent(opts: Mapping[str, Sequence[str]], absent: Iterable[str]) -> dict[str, Sequence[str]]:
    """`opts` less the classes in `absent` (see `gone`); a parent or lamp slot left with only its empty value
    offers every other class of its kind instead (the instruction named one, so the task has one); the object slot
    keeps its list when every option is absent."""
    absent = set(absent)
    out = dict(opts)
    for slot in ABSENT_SLOTS:
        if not absent & set(opts[slot]):
            continue
        left = tuple(v for v in opts[slot] if v not in absent)
        if all(v == "none" for v in left):
            left = tuple(v for v in ALL_OPTIONS[slot] if v not in absent and v != "none")
        out[slot] = left
    out["object_target"] = tuple(v for v in opts["object_target"] if v not in absent) or opts["object_target"]
    return out


class Adapter:
    """One LLM call per distinct (instruction, seen objects); the answer is parsed strictly, bad keys default."""

    role = "adapter"

    def __init__(self, client: Any, examples: Sequence[Sample], max_tokens: int = 40, constrain: bool = True,
                 options: str = "all", min_share: float = 0.1, order: str = "object_first",
                 container_with: bool = False, lamp_word: bool = False, slice_word: bool = False,
                 drop_absent: bool = False, drop_sibling: bool = False, lexicon: Lexicon | None = None) -> None:
        if options not in ADAPTER_OPTIONS:
            raise ValueError(f"planner.adapter_options must be one of {ADAPTER_OPTIONS}, not {options!r}")
        if order not in ARG_ORDERS:
            raise ValueError(f"planner.adapter_order must be one of {tuple(ARG_ORDERS)}, not {order!r}")
        if options == "gt_lexicon" and lexicon is None:
            raise ValueError("planner.adapter_options gt_lexicon needs the gt pool's lexicon (Lexicon.of_samples)")
        self.client = client
        self.options = options
        self.lexicon = lexicon if options == "gt_lexicon" else None
        self.min_share = min_share
        self.order = order
        self.container_with = container_with
        self.lamp_word = lamp_word
        self.slice_word = slice_word
        self.drop_absent = drop_absent
        self.drop_sibling = drop_sibling
        self.examples = join_examples(adapter_example(s, ARG_ORDERS[order]) for s in examples)
        self.max_tokens = max_tokens
        self.constrain = constrain
        self._memo: dict[tuple[str, tuple[str, ...], frozenset[str]], dict[str, Any]] = {}
        self.parsed_keys = 0
        self.calls = 0
        self.unparsed = 0  # answers missing at least one of the seven arguments

    @classmethod
    def from_config(cls, client: Any, examples: Sequence[Sample], cfg: Any, options: str = "",
                    pool: Sequence[Sample] = ()) -> "Adapter":
        """An adapter with a `PlannerConfig`'s adapter settings (`options` overrides `cfg.adapter.adapter_options`);
        `pool`: the whole gt pool, whose annotations `gt_lexicon` counts."""
        options = options or cfg.adapter.adapter_options
        return cls(client, examples, cfg.adapter.adapter_tokens, options=options,
                   min_share=cfg.adapter.adapter_min_share, order=cfg.adapter.adapter_order,
                   container_with=cfg.adapter.adapter_container_with,
                   lamp_word=cfg.adapter.adapter_lamp_word, slice_word=cfg.adapter.adapter_slice_word,
                   drop_absent=cfg.adapter.adapter_drop_absent, drop_sibling=cfg.adapter.adapter_drop_sibling,
                   lexicon=Lexicon.of_samples(pool) if options == "gt_lexicon" else None)

    def options_for(self, instruction: str) -> Mapping[str, Sequence[str]]:
        """Each argument's options: every value, or those the instruction's words point to."""
        if self.options == "all":
            return ALL_OPTIONS
        return lexicon_options(instruction, self.min_share, self.container_with, self.lamp_word, self.slice_word,
                               self.lexicon)

    def prompt(self, instruction: str, seen: Sequence[str], opts: Mapping[str, Sequence[str]] | None = None) -> str:
        """The adapter prompt for this instruction and observation (its class lists are the answer's options)."""
        opts = opts or self.options_for(instruction)
        return render("adapter", examples=self.examples, seen=", ".join(seen) or "nothing yet",
                      instruction=instruction.strip(), objects=", ".join(opts["object_target"]),
                      receptacles=", ".join(o for o in opts["parent_target"] if o != "none") or "none")

    def predict(self, instruction: str, seen: Sequence[str], absent: Iterable[str] = (),
                present: Iterable[str] = ()) -> dict[str, Any]:
        """Return the predicted arguments (defaults where the LLM gave nothing usable). `seen`: the classes the
        prompt shows; with `drop_absent` / `drop_sibling`, classes in `absent` (walks did not find them) are not
        offered (see `gone`; `present`: the classes seen so far, shown or not)."""
        dropped = gone(absent, present, self.drop_absent, self.drop_sibling)
        key = (instruction, tuple(seen), dropped)
        if key in self._memo:  # same observation as an earlier step: same prompt, same answer
            return dict(self._memo[key])
        try:
            opts = self.options_for(instruction)
            if dropped:
                opts = without_absent(opts, dropped)
            constraint = args_constraint(opts, self.order) if self.constrain else None
            resp = self.client.complete(self.role, self.prompt(instruction, seen, opts), max_tokens=self.max_tokens,
                                        stop=["\n"], constraint=constraint)
            self.calls += 1
            args, n = parse_args(resp.text, canonical_class)
        except Exception as exc:  # LLMError or anything else: the step goes on without predictions
            log.warning("adapter call failed: %s", exc)
            args, n = empty_args(), 0
        if n < len(ARG_SHORT):
            self.unparsed += 1
        self.parsed_keys += n
        self._memo[key] = args
        return dict(args)
