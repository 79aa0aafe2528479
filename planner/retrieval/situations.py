"""Examples by situation (`retrieval.unit: step`): short windows of pool plans, keyed by the situation before their
last step.

A situation is what the agent faces before it chooses a step: the task's arguments (the instruction when the
planner predicts none), what it holds, and its last `size - 1` executed steps, failed ones with the world's reason
inline as its prompts show them ('...' when earlier steps are cut). `situation_text` writes it for the encoder, for
the live state and for every window of a pool alike, so kNN compares like with like.

A window is up to `size` consecutive steps of a trace ending at the step taken next; its situation is the steps
before that step. `windows_of` takes a trace ((step, failure reason) pairs) and the task's fields, so any record with
a `trace()` can be windowed (`record_windows`): by default a window ends at every step the world carried out (a
failed step is never the answer an example shows); `ends` names the positions instead (a correction's: its
correction step).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence, TypeVar

from household.world.subgoals import parse_subgoal
from planner.prompts.parsing import format_args, format_plan
from planner.prompts.prompting import inline_step

S = TypeVar("S")


@dataclass(frozen=True)
class Window:
    """Up to `size` steps of a sample's trace ending at the step taken next (`steps[-1]`), with the situation there."""

    sample: str  # the id of the record it was cut from (leave-one-out excludes it)
    task_id: str
    instruction: str
    args: dict[str, Any]
    steps: tuple[tuple[str, str], ...]  # (sub-goal, failure reason or '') pairs; the last is the step taken next
    holding: str  # what was held before the last step ('' = nothing)
    cut: bool  # earlier steps of the trace are not shown
    end: int  # the position of the last step in the trace

    def key(self, with_args: bool = True) -> str:
        """The situation before the window's last step, as the encoder reads it (`situation_text`)."""
        return situation_text(self.instruction, self.args if with_args else None,
                              [inline_step(s, r) for s, r in self.steps[:-1]], self.holding, self.cut)


def recent(steps: Sequence[S], size: int) -> tuple[list[S], bool]:
    """The last `size - 1` of `steps` (what a window of `size` shows before its step), and whether earlier ones are
    cut."""
    keep = list(steps)[-(size - 1):] if size > 1 else []
    return keep, len(keep) < len(steps)


def situation_text(instruction: str, args: Mapping[str, Any] | None, recent_steps: Sequence[str], holding: str,
                   cut: bool) -> str:
    """The situation as the encoder reads it: the arguments (the instruction when there are none), what is held, and
    the recent steps in the prompts' inline form ('...' first when earlier steps are cut)."""
    task = f"Args: {format_args(dict(args))}" if args is not None else f"Task: {instruction.strip()}"
    plan = format_plan(list(recent_steps))
    steps = " ".join(p for p in ("..." if cut else "", plan) if p) or "none yet"
    return f"{task}\nHolding: {holding or 'nothing'}\nSteps: {steps}"


def live_situation(instruction: str, args: Mapping[str, Any] | None, trace: Sequence[str], holding: str,
                   size: int) -> str:
    """The agent's situation after `trace` (its executed steps, failed ones inline) for windows of `size`."""
    steps, cut = recent(trace, size)
    return situation_text(instruction, args, steps, holding, cut)


def held_after(trace: Sequence[tuple[str, str]]) -> str:
    """What the agent holds after a trace: the object of the last pickup the world carried out, unless a put it
    carried out came after ('' = nothing)."""
    held = ""
    for step, reason in trace:
        sg = parse_subgoal(step)
        if reason or sg is None:
            continue
        if sg.action == "PickupObject":
            held = sg.args[0]
        elif sg.action == "PutObject":
            held = ""
    return held


def windows_of(trace: Sequence[tuple[str, str]], size: int, *, sample: str, task_id: str, instruction: str,
               args: Mapping[str, Any], ends: Iterable[int] | None = None) -> list[Window]:
    """The windows of up to `size` steps of a trace, one ending at each position of `ends` (default: each step the
    world carried out)."""
    trace = [(str(s), str(r or "")) for s, r in trace]
    positions = [i for i, (_, reason) in enumerate(trace) if not reason] if ends is None else list(ends)
    out = []
    for i in positions:
        before, cut = recent(trace[:i], size)
        out.append(Window(sample, task_id, instruction, dict(args), tuple(before) + (trace[i],),
                          held_after(trace[:i]), cut, i))
    return out


def record_windows(record: Any, size: int, ends: Iterable[int] | None = None) -> list[Window]:
    """`windows_of` a record with `id`, `task_id`, `instruction`, `args` and `trace()` (a pool's actor samples)."""
    return windows_of(record.trace(), size, sample=record.id, task_id=record.task_id,
                      instruction=record.instruction, args=record.args, ends=ends)
