"""`hindsight report`: write the run's results as one self-contained HTML page (what the `report` stage runs)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `report` sub-command."""
    p = sub.add_parser(
        "report", help="write an HTML report of the evaluation (variants, comparisons, pools, every episode)",
        description="Write one self-contained HTML page (inline CSS and SVG; opens without a network) from the "
        "workspace's outputs: the variants with 95%% intervals, the paired comparisons, SR per task type, the "
        "pools' composition and verified share, and every evaluated episode step by step.")
    p.add_argument("--out", default=None, help="where to write the page (default report/index.html)")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    from flows.runtime.params import ParamsError
    from flows.runtime.workspace import project_dir
    from flows.stages.report import OUT, write_report
    from pools.jsonl import RecordError

    root = project_dir()
    out = Path(args.out) if args.out else root / OUT
    try:
        data = write_report(root, out)
    except (ParamsError, RecordError) as exc:
        print(f"hindsight report: {exc}", file=sys.stderr)
        return 2
    for note in data.notes:
        print(f"hindsight report: note: {note}", file=sys.stderr)
    print(f"wrote {out} ({len(data.variants)} variants, {sum(len(v.rollouts) for v in data.variants)} episodes, "
          f"{len(data.comparisons)} comparisons)")
    return 0
