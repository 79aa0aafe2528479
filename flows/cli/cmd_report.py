"""`hindsight report`: write the run's results as one self-contained HTML page (what the `report` stage runs)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

READS = ("data/eval/", "data/pools/")  # the DVC outputs the page is made from (the metrics are in git)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `report` sub-command."""
    p = sub.add_parser(
        "report", help="write an HTML report of the evaluation (variants, comparisons, pools, every episode)",
        description="Write one self-contained HTML page (inline CSS and SVG; opens without a network) from the "
        "workspace's outputs: the variants with 95%% intervals, the paired comparisons, SR per task type, the "
        "pools' composition and verified share, and every evaluated episode step by step. On a fresh clone, run "
        "`dvc pull` first: where dvc.lock records evaluation or pool files the workspace lacks, it names them and "
        "writes nothing.")
    p.add_argument("--out", default=None, help="where to write the page (default report/index.html)")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    from flows.runtime.params import ParamsError
    from flows.runtime.workspace import project_dir
    from flows.stages.report import OUT, write_report
    from pools.jsonl import RecordError
    from pools.versions import absent_message, missing_outputs

    root = project_dir()
    out = Path(args.out) if args.out else root / OUT
    missing = missing_outputs(root, READS)
    if missing:
        more = f" (and {len(missing) - 1} more: {', '.join(missing[1:4])}{', ...' if len(missing) > 4 else ''})" \
            if len(missing) > 1 else ""
        print(f"hindsight report: {absent_message(root, missing[0], 'nothing written')}{more}", file=sys.stderr)
        return 2
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
