"""Constrained decoding: the set of legal answers of one call, as a grammar, a regex or a JSON schema.

A `Constraint` is a template of literal text and choice slots; its language is finite: every way of filling
each slot with one of its options. `Constraint.choice(options)` is the one-slot case (the answer is exactly
one option). One constraint renders to each endpoint's dialect:

- `gbnf()`: llama.cpp GBNF (the `grammar` field of llama.cpp / llama-cpp-python servers);
- `regex()`: a regex without anchors (vLLM `structured_outputs: {"regex": ...}` / `guided_regex`);
- `choices`: the options of a plain choice (vLLM `structured_outputs: {"choice": [...]}` / `guided_choice`);
- `json_schema()`: an object with one enum-valued string property per slot (OpenAI `response_format`
  `json_schema`, strict); `from_json(answer)` maps such an answer back to the template's text.

`accepts(text)` is the validation every answer gets whatever was sent: a server that does not know a field
ignores it and answers free text with HTTP 200.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence, Union

__all__ = ["Constraint", "ConstraintError", "MODES", "OPENAI_MAX_ENUM_VALUES"]

# Values of `llm.constrain` (per role). auto: the client finds what the endpoint supports (see client.py).
MODES: tuple[str, ...] = ("auto", "grammar", "json_schema", "structured_outputs", "guided", "off")

# OpenAI Structured Outputs limits on enums (platform docs; the limits have grown since 2024: 1,000 enum values
# per schema and 15,000 characters per large enum today; an API error in late 2024 still said "at most 500 enum
# values in total"). The older, lower figures are used so the schema is accepted by every model snapshot.
OPENAI_MAX_ENUM_VALUES = 500          # enum values across all properties of one schema
OPENAI_LARGE_ENUM = 250               # an enum with more values than this ...
OPENAI_LARGE_ENUM_MAX_CHARS = 7_500   # ... may total at most this many characters
OPENAI_MAX_PROPERTIES = 100

Part = Union[str, tuple[str, ...]]

_REGEX_SPECIAL = set("\\.^$|?*+()[]{}/")
_NAME_OK = re.compile(r"[^a-z0-9_]+")


class ConstraintError(ValueError):
    """A constraint that cannot be built, or cannot be rendered for one dialect (e.g. over OpenAI's enum limits)."""


@dataclass(frozen=True)
class Constraint:
    """A finite set of legal answers: literal segments (str) and choice slots (tuple of options), in order.

    Build with `Constraint.choice(options)` or `Constraint.template(parts)`; adjacent literals are merged and
    empty literals dropped. Options of a slot are kept in the given order, duplicates removed.
    """

    parts: tuple[Part, ...]
    names: tuple[str, ...] = ()  # one JSON property name per slot (derived from the literal before it by default)

    def __post_init__(self) -> None:
        merged: list[Part] = []
        for part in self.parts:
            if isinstance(part, str):
                if not part:
                    continue
                if merged and isinstance(merged[-1], str):
                    merged[-1] = merged[-1] + part
                else:
                    merged.append(part)
            else:
                options = tuple(dict.fromkeys(part))
                if not options:
                    raise ConstraintError("a choice slot needs at least one option")
                for opt in options:
                    if not isinstance(opt, str) or not opt:
                        raise ConstraintError(f"slot options must be non-empty strings, got {opt!r}")
                merged.append(options)
        if not merged:
            raise ConstraintError("a constraint needs at least one part")
        # accepts() strips the answer, so whitespace at either end of the answer could never be matched
        first = [merged[0]] if isinstance(merged[0], str) else merged[0]
        last = [merged[-1]] if isinstance(merged[-1], str) else merged[-1]
        for text in first:
            if text != text.lstrip():
                raise ConstraintError(f"the answer cannot start with whitespace ({text!r}): answers are stripped")
        for text in last:
            if text != text.rstrip():
                raise ConstraintError(f"the answer cannot end with whitespace ({text!r}): answers are stripped")
        object.__setattr__(self, "parts", tuple(merged))
        n_slots = sum(not isinstance(p, str) for p in merged)
        names = tuple(self.names) if self.names else _derive_names(merged)
        if len(names) != n_slots or len(set(names)) != n_slots:
            raise ConstraintError(f"need {n_slots} distinct slot names, got {names!r}")
        for name in names:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", name):
                raise ConstraintError(f"slot name {name!r}: letters, digits and '_' only (at most 64)")
        object.__setattr__(self, "names", names)

    # ---- construction -------------------------------------------------------------------------------------
    @classmethod
    def choice(cls, options: Sequence[str]) -> "Constraint":
        """The answer is exactly one of `options`."""
        if isinstance(options, str):
            raise ConstraintError("Constraint.choice takes a sequence of options, not one string")
        return cls((tuple(options),), ("answer",))

    @classmethod
    def template(cls, parts: Sequence[Part], names: Sequence[str] | None = None) -> "Constraint":
        """Literal strings and tuples of allowed values, in order, e.g. ["object=", ("Apple", "Mug"), " sliced=", ("yes", "no")]."""
        if isinstance(parts, str):
            raise ConstraintError("Constraint.template takes a sequence of parts, not one string")
        return cls(tuple(p if isinstance(p, str) else tuple(p) for p in parts), tuple(names or ()))

    # ---- views ----------------------------------------------------------------------------------------------
    @property
    def slots(self) -> tuple[tuple[str, ...], ...]:
        """The options of each slot, in order."""
        return tuple(p for p in self.parts if not isinstance(p, str))

    @property
    def is_choice(self) -> bool:
        """True when the answer is exactly one option of a single slot (no literal text)."""
        return len(self.parts) == 1 and not isinstance(self.parts[0], str)

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The options of a plain choice (for vLLM choice decoding); None for a template."""
        return self.parts[0] if self.is_choice else None  # type: ignore[return-value]

    def size(self) -> int:
        """Number of legal answers (product of the slot sizes)."""
        n = 1
        for slot in self.slots:
            n *= len(slot)
        return n

    # ---- dialects -------------------------------------------------------------------------------------------
    def gbnf(self) -> str:
        """llama.cpp GBNF grammar of exactly these answers (one optional leading space, which answers are stripped of)."""
        return self._gbnf

    @cached_property
    def _gbnf(self) -> str:
        # The optional leading space keeps the first token natural for tokenizers that fold the space into the
        # word ("ĠNavigation"); accepts() strips it.
        seq: list[str] = ['" "?']
        rules: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                seq.append(_gbnf_literal(part))
            else:
                name = f"slot{len(rules)}"
                rules.append(f"{name} ::= " + " | ".join(_gbnf_literal(o) for o in part))
                seq.append(name)
        return "\n".join([f"root ::= {' '.join(seq)}", *rules]) + "\n"

    def regex(self) -> str:
        """A regex (no anchors, no flags) matching exactly these answers; match it whole (`re.fullmatch`)."""
        return self._regex

    @cached_property
    def _regex(self) -> str:
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(_regex_escape(part))
            else:
                # longest first: a leftmost-first engine must not stop at an option that is a prefix of another
                opts = sorted(part, key=len, reverse=True)
                out.append("(" + "|".join(_regex_escape(o) for o in opts) + ")")
        return "".join(out)

    def json_schema(self) -> dict[str, Any]:
        """JSON schema of an object with one enum-valued string property per slot (strict-mode ready).

        Raises ConstraintError when over OpenAI's limits (enum values per schema, characters of a large enum).
        """
        slots = self.slots
        if len(slots) > OPENAI_MAX_PROPERTIES:
            raise ConstraintError(f"{len(slots)} slots > {OPENAI_MAX_PROPERTIES} properties allowed in a JSON schema")
        total = sum(len(s) for s in slots)
        if total > OPENAI_MAX_ENUM_VALUES:
            raise ConstraintError(f"{total} enum values > {OPENAI_MAX_ENUM_VALUES} allowed in one JSON schema")
        for name, slot in zip(self.names, slots):
            chars = sum(len(o) for o in slot)
            if len(slot) > OPENAI_LARGE_ENUM and chars > OPENAI_LARGE_ENUM_MAX_CHARS:
                raise ConstraintError(f"slot {name!r}: {len(slot)} values of {chars} characters > "
                                      f"{OPENAI_LARGE_ENUM_MAX_CHARS} allowed for an enum of over {OPENAI_LARGE_ENUM}")
        return {
            "type": "object",
            "properties": {name: {"type": "string", "enum": list(slot)} for name, slot in zip(self.names, slots)},
            "required": list(self.names),
            "additionalProperties": False,
        }

    def response_format(self, name: str = "answer") -> dict[str, Any]:
        """OpenAI `response_format` for chat: strict `json_schema` built from `json_schema()`."""
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": self.json_schema()}}

    def from_json(self, text: str) -> str:
        """Map a JSON answer of `json_schema()` back to the template's text; ConstraintError if it does not fit."""
        try:
            obj = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise ConstraintError(f"answer is not JSON: {_clip(text)!r}") from exc
        if not isinstance(obj, dict):
            raise ConstraintError(f"answer is not a JSON object: {_clip(text)!r}")
        out: list[str] = []
        names = iter(self.names)
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            name = next(names)
            value = obj.get(name)
            if not isinstance(value, str) or value not in part:
                raise ConstraintError(f"property {name!r} = {value!r} is not one of its {len(part)} options")
            out.append(value)
        return "".join(out)

    def accepts(self, text: str | None) -> bool:
        """True when `text`, stripped of surrounding whitespace, is exactly one legal answer."""
        if not isinstance(text, str):
            return False
        # What `re.fullmatch(self.regex(), text)` says, without compiling a regex per legal set (most constraints
        # are used once; compiling a 50-option alternation cost more CPU than the rest of the call): every
        # position the parts so far can end at, advanced part by part.
        answer = text.strip()
        ends = {0}
        for part in self.parts:
            options = (part,) if isinstance(part, str) else part
            ends = {at + len(o) for at in ends for o in options if answer.startswith(o, at)}
            if not ends:
                return False
        return len(answer) in ends

    def key(self) -> str:
        """Stable text identifying this constraint (for cache keys and logs)."""
        return json.dumps({"parts": [p if isinstance(p, str) else list(p) for p in self.parts],
                           "names": list(self.names)}, ensure_ascii=False, separators=(",", ":"))


def _derive_names(parts: Sequence[Part]) -> tuple[str, ...]:
    # A slot is named after the label before it ("object=" -> "object"), which also tells a JSON-schema model
    # what it fills; otherwise slot<i>. Duplicates get a numeric suffix.
    names: list[str] = []
    prev = ""
    for part in parts:
        if isinstance(part, str):
            prev = part
            continue
        words = _NAME_OK.sub(" ", prev.lower()).split()
        labelled = prev.rstrip().endswith(("=", ":"))  # "object=" / "parent:" label the slot; "the value is " does not
        base = words[-1] if labelled and words and not words[-1][0].isdigit() else f"slot{len(names)}"
        name, k = base, 2
        while name in names:
            name, k = f"{base}_{k}", k + 1
        names.append(name[:64])
        prev = ""
    return tuple(names)


_GBNF_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                 **{chr(c): f"\\x{c:02X}" for c in [*range(0x20), 0x7F] if chr(c) not in "\n\r\t"}}
_GBNF_TABLE = str.maketrans(_GBNF_ESCAPES)


def _gbnf_literal(text: str) -> str:
    return '"' + text.translate(_GBNF_TABLE) + '"'


def _regex_escape(text: str) -> str:
    # Only the metacharacters: re.escape also escapes spaces and '-', which some server-side regex engines
    # (xgrammar, outlines) reject or read differently.
    out = []
    for ch in text:
        if ch in _REGEX_SPECIAL:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        else:
            out.append(ch)
    return "".join(out)


def _clip(text: Any, n: int = 120) -> str:
    text = str(text)
    return text if len(text) <= n else text[:n] + "..."
