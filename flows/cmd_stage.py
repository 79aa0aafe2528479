"""`hindsight stage NAME`: run one pipeline stage (what each dvc.yaml `cmd` calls)."""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

STAGES = ("tasks", "gt_pool", "collect", "reflect", "complete", "critic", "pool", "evaluate", "compare", "report")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `stage` sub-command."""
    p = sub.add_parser("stage", help="run one pipeline stage (as `dvc repro` does)")
    p.add_argument("name", choices=STAGES, help="stage name")
    p.add_argument("item", nargs="?", help="foreach item (evaluate: the planner variant; compare: A_vs_B)")
    p.add_argument("--on-bad-record", choices=("fail", "quarantine"), default=None,
                   help="what to do with input rows that break their schema (default: params.yaml, else fail)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from flows.params import ParamsError
    from flows.stage import StageFailed
    from pools.journal import StageBusy
    from pools.jsonl import RecordError

    module = importlib.import_module(f"flows.{args.name}")
    try:
        module.main(item=args.item, on_bad_record=args.on_bad_record)
    except (ParamsError, RecordError, StageBusy, StageFailed) as exc:
        logging.getLogger("hindsight").error("%s", exc)
        print(f"hindsight stage {args.name}: {exc}", file=sys.stderr)
        return 1
    return 0
