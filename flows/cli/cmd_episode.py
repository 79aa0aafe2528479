"""`hindsight episode`: run one episode of a planner variant and watch it step by step (or get its JSON record)."""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any, TextIO

SPLITS = ("train", "valid_seen", "valid_unseen")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `episode` sub-command to the hindsight CLI."""
    p = subparsers.add_parser(
        "episode", help="run one planner episode on a task and show each step",
        description="Run one episode. Name the task by id, or by --split/--type/--index. Examples come from "
                    "data/pools/ when the pipeline has built them, else from a small ground-truth pool built now.")
    p.add_argument("task_id", nargs="?", help="ALFRED task path or trial id (or use --split/--type/--index)")
    p.add_argument("--variant", default="hindsight",
                   help="a variant of params.yaml's evaluate.variants (e.g. hindsight, scaffold_hindsight) or a preset "
                        "(hindsight, no_hindsight, no_adapter, llm_planner, expert); default: hindsight")
    p.add_argument("--scaffold", choices=("none", "full"), default=None,
                   help="override the variant's planner: none = the paper's, full = our rules on")
    p.add_argument("--split", default="valid_seen", choices=SPLITS, help="split to pick from (without TASK_ID)")
    p.add_argument("--type", dest="task_type", default=None, help="task type to pick from (without TASK_ID)")
    p.add_argument("--index", type=int, default=0, help="position among the split's tasks of that type")
    p.add_argument("--seed", type=int, default=None, help="scene seed (default: params world.seed)")
    p.add_argument("--max-subgoals", type=int, default=None, help="cap on planned sub-goals (default: params)")
    p.add_argument("--k", type=int, default=None, help="examples per prompt (default: params retrieval.k)")
    p.add_argument("--pools", default="data/pools", help="folder with gt.jsonl / hindsight.jsonl")
    p.add_argument("--gt-per-type", type=int, default=2,
                   help="when no pool files exist: expert samples per task type drawn from train")
    p.add_argument("--gt-navigation", choices=("object", "expert"), default="object",
                   help="when no pool files exist: rewrite expert walks to unseen objects as walks to the object")
    p.add_argument("--endpoint", default=None, help="'embedded' or an OpenAI-compatible base URL (default: params)")
    p.add_argument("--model", default=None, help="embedded preset or the endpoint's model (default: params)")
    p.add_argument("--params", default="params.yaml", help="params file giving the defaults")
    p.add_argument("--json", action="store_true", help="print one JSON object: {rollout: the rollout record, "
                                                        "timing: its measured seconds (schema timing)}")
    p.add_argument("-v", "--verbose", action="store_true", help="log the planner's decisions to stderr")
    p.set_defaults(func=_episode)


def _pick_task(args: argparse.Namespace) -> Any:
    from household.world.tasks import get_task, load_tasks

    if args.task_id:
        return get_task(args.task_id)
    tasks = [t for t in load_tasks(args.split) if args.task_type in (None, t.task_type)]
    if not tasks:
        raise ValueError(f"no {args.task_type or ''} task in {args.split}")
    if not 0 <= args.index < len(tasks):
        raise ValueError(f"--index {args.index} out of range: {len(tasks)} matching tasks in {args.split}")
    return tasks[args.index]


def example_pools(folder: str, gt_per_type: int, seed: int, navigation: str = "object") -> Any:
    """The pipeline's pools from `folder` (gt.jsonl, hindsight.jsonl), else a small gt pool drawn from train now."""
    from planner.retrieval.examples import ExamplePools
    from pools.jsonl import read_records

    gt_file, hind_file = Path(folder) / "gt.jsonl", Path(folder) / "hindsight.jsonl"
    if gt_file.exists():
        return ExamplePools.from_records(*(read_records(f, "sample").records for f in (gt_file, hind_file)
                                           if f.exists()))
    # No pipeline output yet: a small stratified ground-truth pool from train (expert plans, no hindsight).
    from household.world.tasks import load_tasks
    from planner.relabel.gt_samples import draw_gt_pool

    rows = [{"id": t.id, "split": t.split, "task_type": t.task_type} for t in load_tasks("train")]
    gt, critic = draw_gt_pool(rows, gt_per_type, seed, split="train", navigation=navigation)
    return ExamplePools(gt=gt, critic=critic)


def client_for(params: dict[str, Any], endpoint: str | None = None, model: str | None = None) -> Any:
    """The LLM client from params `llm:`, with the command line's --endpoint / --model sent to every role."""
    from flows.runtime.llm_stage import llm_client

    section = dict(params.get("llm") or {})
    if endpoint or model:
        section.update({k: v for k, v in (("endpoint", endpoint), ("model", model)) if v})
        # An explicit choice on the command line beats the profile's per-role pins.
        section["roles"] = {}
    return llm_client({**params, "llm": section})


def quiet_logging(verbose: bool) -> None:
    """Log to stderr (INFO with -v), without the HTTP and encoder libraries' chatter; configure the runtime."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpcore", "openai", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from flows.runtime.workspace import configure

    configure()


def _value(v: Any) -> str:
    return "  -  " if v is None else f"{v:.2f}"


def _show_step(view: Any, out: TextIO) -> None:
    from planner.prompts.parsing import format_args

    rec = view.record
    print(f"\n[{view.index + 1}] {view.observation}", file=out)
    if view.pddl_pred:
        print(f"    args   {format_args(view.pddl_pred)}", file=out)
    if len(view.candidates) > 1 or any(c.get("value") is not None for c in view.candidates):
        print("    beam   " + " | ".join(f"{c['subgoal']} ({_value(c.get('value'))})" for c in view.candidates),
              file=out)
        for r in view.rollouts:
            print(f"           {r['proposer'] or '-':10s} {_value(r['value'])}  {'; '.join(r['actions'])}", file=out)
    outcome = "ok" if rec.ok else f"FAILED: {rec.reason}" + (f" (seen {rec.repeat_fail}x before)" if rec.repeat_fail
                                                             else "")
    print(f"    -> {rec.subgoal}   {outcome}", file=out)
    out.flush()


def _summary(rollout: Any, timing: dict[str, Any], out: TextIO) -> None:
    m, llm = rollout.metrics, rollout.llm
    print(f"\n{rollout.variant} on {rollout.task_id}: success={rollout.success} gc={rollout.gc:.2f} "
          f"plw_sr={rollout.plw['sr']:.2f} plw_gc={rollout.plw['gc']:.2f} stop={m['stop_reason']}", file=out)
    print(f"sub-goals {m['subgoals']} (failed {m['failed_subgoals']}, expert {m['expert_len']}), "
          f"low-level steps {m['low_steps']}", file=out)
    if m.get("adapter_acc"):
        from planner.prompts.parsing import ARG_SHORT

        short = {v: k for k, v in ARG_SHORT.items()}
        print("adapter accuracy " + " ".join(f"{short.get(k, k)}={v:.2f}" for k, v in m["adapter_acc"].items()),
              file=out)
    per = m["per_subgoal"]
    per_s = timing["llm_seconds"] / max(m["subgoals"], 1)
    print(f"LLM: {llm['calls']} calls, {llm['prompt_tokens']}+{llm['completion_tokens']} tokens, "
          f"{timing['llm_seconds']:.1f} s; per sub-goal {per['calls']} calls, {per['tokens']} tokens, {per_s:.3f} s; "
          f"by role {llm['by_role']}; episode {timing['seconds']:.1f} s, time outside the LLM "
          f"{timing['outside_llm_share']:.1%}", file=out)


def _episode(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    quiet_logging(args.verbose)
    from flows.runtime.params import ParamsError, load_params
    from planner.config import PlannerConfig
    from planner.loop.episode import run_episode
    from planner.variants import Variant, get_variant

    try:
        params = load_params(args.params)
        variant = get_variant(args.variant, params)
    except (ParamsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.scaffold is not None:
        variant = Variant(variant.name, variant.actors, variant.critic_pool, variant.adapter, variant.search,
                          {**variant.planner, "scaffold": args.scaffold})
    overrides: dict[str, Any] = {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.max_subgoals is not None:
        overrides["max_subgoals"] = args.max_subgoals
    if args.k is not None:
        overrides["k"] = args.k
    try:
        cfg = PlannerConfig.from_params(params, variant=variant, **overrides)
        task = _pick_task(args)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.json:
        print(f"{task.id} ({task.task_type}, {task.split})\ninstruction: {task.instruction()}\n"
              f"true args: {task.args.as_dict()}", file=out)
    expert = variant.search == "expert"
    pools = example_pools(args.pools, args.gt_per_type, cfg.world.seed, args.gt_navigation) if not expert else None
    client = client_for(params, args.endpoint, args.model) if not expert else None
    from planner.retrieval.examples import ExamplePools
    from pools.timing import Timed, timing_row

    t0 = time.perf_counter()
    mark = client.usage.snapshot() if client is not None else 0
    try:
        rollout = run_episode(task, variant, pools or ExamplePools(), client, cfg,
                              on_step=None if args.json else (lambda v: _show_step(v, out)))
        usage = client.usage.summary(since=mark) if client is not None else {}
    finally:
        if client is not None:
            client.close()
    # Measured here, not in the record (a rollout is the same on every run; its time is not).
    timing = timing_row(task.id, Timed(rollout, time.perf_counter() - t0, usage))
    if args.json:
        print(json.dumps({"rollout": rollout.model_dump(), "timing": timing}), file=out)
    else:
        _summary(rollout, timing, out)
    return 0
