"""The rows of the exported views of a pool (schemas view_actor, view_critic, view_sft, view_preference).

Every prompt here is the planner's own: the actor's and critic's `prompt` methods and the example blocks of
planner/prompts/prompting.py, so a view cannot drift from what the planner sends. A view's prompt carries no retrieved
examples (what a fine-tuned model answers without), and its state is what a sample records: the task, its
arguments and the plan so far; a sample does not record what the robot saw or held.

Decisions: a next sub-goal to learn at a state, one per step of a plan that the world carried out. DECISIONS says
which pool records make them, by kind; a kind whose decisions carry a `rejected` step (the step the robot took
where the expert's is `chosen`) makes preference rows too: corrections (relabel.corrections), where the robot's next
step was not optimal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from planner.prompts.prompting import actor_example, critic_examples, inline_step, trace_text
from planner.search.actors import Actor, StepContext
from planner.search.beam import Node
from planner.search.critic import Critic
from planner.search.generator import Belief
from pools.records import Correction, CriticSample, PoolItem, Sample

VIEWS = ("actor", "critic", "sft", "preference")

# The planner's actor and critic with no examples and no LLM: only their prompts are asked for.
_ACTOR = Actor(role="actor_gt", client=None, examples=(), grounder=None)  # type: ignore[arg-type]
_CRITIC = Critic(client=None, examples=())


@dataclass(frozen=True)
class Decision:
    """A state of a pool record's task where a next sub-goal is chosen: the actor's prompt there, the answer to
    learn, and, for a correction, the step the robot took there instead ('' when there is none)."""

    record: Sample | Correction
    pool: str
    step: int
    prompt: str
    chosen: str
    rejected: str = ""


def actor_prompt(instruction: str, args: Mapping[str, Any], trace: Sequence[tuple[str, str]]) -> str:
    """The actor's prompt after `trace` ((sub-goal, failure reason or '') pairs), with the task's arguments."""
    ctx = StepContext(instruction=instruction, seen=(), args=dict(args), done=tuple(s for s, r in trace if not r),
                      trace=tuple(inline_step(s, r) for s, r in trace))
    return _ACTOR.prompt(ctx)


def actor_row(sample: Sample, pool: str) -> dict[str, Any]:
    """A view_actor row: the sample's example block, and the sample as the actor's question and answer."""
    return {**_ids(sample, pool), "kind": sample.kind, "text": actor_example(sample),
            "prompt": actor_prompt(sample.instruction, sample.args, ()), "answer": " " + trace_text(sample.trace())}


def critic_row(sample: CriticSample, pool: str) -> dict[str, Any]:
    """A view_critic row: the sample's example block, and the sample as the critic's question and answer."""
    ctx = StepContext(instruction=sample.instruction, seen=(), args=None, done=tuple(sample.steps))
    return {**_ids(sample, pool), "text": critic_examples([sample]),
            "prompt": _CRITIC.prompt(ctx, [Node((), Belief())]),
            "answer": f" the value is {sample.value_num}/{sample.value_den}"}


def actor_decisions(sample: Sample, pool: str) -> list[Decision]:
    """One decision per step of an actor sample's plan that the world carried out; a failed step stays in the plan
    of the decisions after it, with its reason, and is not an answer."""
    trace = sample.trace()
    return [Decision(sample, pool, i, actor_prompt(sample.instruction, sample.args, trace[:i]), step)
            for i, (step, reason) in enumerate(trace) if not reason]


def correction_decisions(c: Correction, pool: str) -> list[Decision]:
    """A correction's one decision, at its state: its shown step chosen, and the robot's next step there rejected
    when that one was not optimal."""
    rejected = c.robot_next if c.robot_next and c.robot_next not in c.optimal else ""
    return [Decision(c, pool, len(c.steps), actor_prompt(c.instruction, c.args, c.trace()[:-1]), c.shown,
                     rejected)]


# Pool record kind -> its decisions.
DECISIONS: dict[str, Callable[[Any, str], list[Decision]]] = {
    "gt": actor_decisions,
    "hindsight": actor_decisions,
    "correction": correction_decisions,
}


def decisions(pools: Mapping[str, Iterable[PoolItem]]) -> list[Decision]:
    """Every decision of the pools' records (pool name -> records), in pool and record order."""
    return [d for pool, records in pools.items() for r in records if r.kind in DECISIONS
            for d in DECISIONS[r.kind](r, pool)]


def sft_row(decision: Decision) -> dict[str, Any]:
    """A view_sft row: the decision's prompt and answer as chat messages."""
    return {**_ids(decision.record, decision.pool), "kind": decision.record.kind, "step": decision.step,
            "messages": [_message("user", decision.prompt), _message("assistant", decision.chosen)]}


def preference_row(decision: Decision) -> dict[str, Any]:
    """A view_preference row: the decision's prompt, the chosen answer and the rejected one."""
    return {**_ids(decision.record, decision.pool), "step": decision.step,
            "prompt": [_message("user", decision.prompt)], "chosen": [_message("assistant", decision.chosen)],
            "rejected": [_message("assistant", decision.rejected)]}


def view_rows(pools: Mapping[str, Sequence[PoolItem]]) -> dict[str, list[dict[str, Any]]]:
    """The rows of every view (VIEWS) of the pools (pool name -> its records)."""
    made = decisions(pools)
    return {
        "actor": [actor_row(r, p) for p, records in pools.items() for r in records if isinstance(r, Sample)],
        "critic": [critic_row(r, p) for p, records in pools.items() for r in records if isinstance(r, CriticSample)],
        "sft": [sft_row(d) for d in made],
        "preference": [preference_row(d) for d in made if d.rejected],
    }


def _ids(record: PoolItem, pool: str) -> dict[str, Any]:
    return {"sample_id": record.id, "pool": pool, "task_id": record.task_id, "task_type": record.task_type}


def _message(role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content}
