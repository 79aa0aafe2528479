"""Next-state generators for the beam search: `belief` (known sub-goal effects, no LLM) and `llm` (as RAFA).

The believed state holds only what the agent has seen or done itself; no hidden scene information is used.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol

log = logging.getLogger(__name__)

# Appliances whose effects the belief knows (ALFRED's rules as the world implements them).
_HEATERS = {"Microwave"}
_COOLERS = {"Fridge"}
_CLEANERS = {"SinkBasin", "Sink", "BathtubBasin"}


def split_subgoal(subgoal: str) -> tuple[str, tuple[str, ...]]:
    """Split a canonical sub-goal string 'PutObject Apple Fridge' into ('PutObject', ('Apple', 'Fridge'))."""
    parts = subgoal.split()
    return (parts[0], tuple(parts[1:])) if parts else ("", ())


@dataclass(frozen=True)
class Belief:
    """What the agent believes about the world: seen classes, location, hands, container and appliance states."""

    seen: tuple[str, ...] = ()
    location: str = ""
    holding: str = ""
    opened: frozenset[str] = frozenset()
    on: frozenset[str] = frozenset()
    inside: tuple[tuple[str, str], ...] = ()  # (object, receptacle) placements the agent made
    sliced: frozenset[str] = frozenset()
    heated: frozenset[str] = frozenset()
    cooled: frozenset[str] = frozenset()
    cleaned: frozenset[str] = frozenset()
    done: tuple[str, ...] = ()  # sub-goals believed executed (real ones, then imagined ones)
    predicted_fail: tuple[str, ...] = ()  # imagined sub-goals whose known preconditions do not hold
    stopped: bool = False

    def text(self) -> str:
        """A one-line summary for prompts."""
        bits = [f"at {self.location or 'start'}", f"holding {self.holding or 'nothing'}"]
        if self.opened:
            bits.append("open " + ",".join(sorted(self.opened)))
        return "; ".join(bits)


def belief_step(state: Belief, subgoal: str) -> Belief:
    """Apply a sub-goal's known effects; if a known precondition fails, the state is unchanged but the failure noted."""
    action, args = split_subgoal(subgoal)
    obj = args[0] if args else ""

    def fail(why: str) -> Belief:
        return replace(state, predicted_fail=state.predicted_fail + (f"{subgoal} ({why})",))

    seen = tuple(dict.fromkeys(state.seen + tuple(a for a in args if a)))
    if action == "Stop":
        return replace(state, done=state.done + (subgoal,), stopped=True)
    if action == "Navigation":
        return replace(state, location=obj, seen=seen, done=state.done + (subgoal,))
    if action == "PickupObject":
        if state.holding:
            return fail(f"hands hold {state.holding}")
        inside = tuple(p for p in state.inside if p[0] != obj)
        return replace(state, holding=obj, inside=inside, seen=seen, done=state.done + (subgoal,))
    if action == "PutObject":
        recep = args[1] if len(args) > 1 else ""
        if state.holding != obj:
            return fail(f"not holding {obj}")
        cooled = state.cooled | ({obj} if recep in _COOLERS else set())
        heated = state.heated | ({obj} if recep in _HEATERS and recep in state.on else set())
        cleaned = state.cleaned | ({obj} if recep in _CLEANERS and "Faucet" in state.on else set())
        return replace(state, holding="", location=recep or state.location, inside=state.inside + ((obj, recep),),
                       cooled=frozenset(cooled), heated=frozenset(heated), cleaned=frozenset(cleaned), seen=seen,
                       done=state.done + (subgoal,))
    if action == "OpenObject":
        return replace(state, opened=state.opened | {obj}, seen=seen, done=state.done + (subgoal,))
    if action == "CloseObject":
        return replace(state, opened=state.opened - {obj}, seen=seen, done=state.done + (subgoal,))
    if action == "ToggleObjectOn":
        heated, cleaned = set(state.heated), set(state.cleaned)
        for o, r in state.inside:
            if obj in _HEATERS and r == obj:
                heated.add(o)
            if obj == "Faucet" and r in _CLEANERS:
                cleaned.add(o)
        return replace(state, on=state.on | {obj}, heated=frozenset(heated), cleaned=frozenset(cleaned), seen=seen,
                       done=state.done + (subgoal,))
    if action == "ToggleObjectOff":
        return replace(state, on=state.on - {obj}, seen=seen, done=state.done + (subgoal,))
    if action == "SliceObject":
        if state.holding != "Knife" and "Knife" not in state.holding:
            return fail("no Knife in hand")
        return replace(state, sliced=state.sliced | {obj}, seen=tuple(dict.fromkeys(seen + (f"{obj}Sliced",))),
                       done=state.done + (subgoal,))
    return fail("unknown action")


class NextState(Protocol):
    """A generator: the believed state after executing `subgoal` in `state`."""

    def __call__(self, state: Belief, subgoal: str) -> Belief: ...


class BeliefGenerator:
    """The default generator: known effects only, no LLM call."""

    name = "belief"
    calls = 0

    def __call__(self, state: Belief, subgoal: str) -> Belief:
        return belief_step(state, subgoal)


@dataclass
class LLMGenerator:
    """RAFA's generator: the LLM predicts the objects seen and the object held after the sub-goal.

    The belief's known effects are applied first; the LLM's answer then adds the classes it predicts will be seen
    (parsed strictly, unknown names dropped). Garbage keeps the belief's answer.
    """

    client: Any  # llm.client.LLMClient (or anything with its `complete`)
    render: Callable[[Belief, str], str]  # (state, subgoal) -> prompt
    canonical: Callable[[str], str | None]  # name -> ALFRED class
    max_tokens: int = 24
    calls: int = field(default=0)
    name: str = "llm"

    def __call__(self, state: Belief, subgoal: str) -> Belief:
        base = belief_step(state, subgoal)
        prompt = self.render(state, subgoal)
        try:
            resp = self.client.complete("generator", prompt, max_tokens=self.max_tokens, stop=["\n"])
        except Exception as exc:  # an LLM fault must not break planning: fall back to the belief
            log.warning("generator call failed (%s); using belief", exc)
            return base
        self.calls += 1
        extra = []
        for name in resp.text.replace(";", ",").split(","):
            cls = self.canonical(name.strip())
            if cls:
                extra.append(cls)
        return replace(base, seen=tuple(dict.fromkeys(base.seen + tuple(extra))))
