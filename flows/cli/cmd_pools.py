"""`hindsight pools diff`: compare two versions of a pool through DVC."""
from __future__ import annotations

import argparse
import json
import sys

from flows.runtime.workspace import project_dir

POOL_SCHEMAS = {"gt": "sample", "hindsight": "sample"}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `pools` sub-command."""
    pools = sub.add_parser("pools", help="inspect and compare pool versions")
    psub = pools.add_subparsers(dest="pools_command", metavar="ACTION", required=True)
    diff = psub.add_parser(
        "diff",
        help="compare two versions of a pool by sample id",
        description="REV is a git revision or a DVC experiment name (`dvc exp run -n NAME`); "
        "the default compares HEAD with the workspace. Old versions are read through DVC "
        "(local cache, then the configured remote).",
    )
    diff.add_argument("rev_a", nargs="?", default="HEAD", help="old version (default HEAD)")
    diff.add_argument("rev_b", nargs="?", default="workspace", help="new version (default: the workspace)")
    diff.add_argument("--pool", default="hindsight", choices=sorted(POOL_SCHEMAS), help="which pool (default hindsight)")
    diff.add_argument("--json", action="store_true", help="print one JSON object")
    diff.set_defaults(func=_diff)


def _diff(args: argparse.Namespace) -> int:
    from pools.diff import diff_pools
    from pools.jsonl import RecordError
    from pools.versions import VersionError, load_pool

    repo = project_dir()
    schema = POOL_SCHEMAS[args.pool]
    try:
        recs_a, man_a = load_pool(repo, args.pool, args.rev_a, schema)
        recs_b, man_b = load_pool(repo, args.pool, args.rev_b, schema)
    except (VersionError, RecordError) as exc:
        print(f"hindsight pools diff: {exc}", file=sys.stderr)
        return 2
    result = diff_pools(args.pool, args.rev_a, recs_a, man_a, args.rev_b, recs_b, man_b)
    print(json.dumps(result.to_json(), indent=2) if args.json else result.to_text())
    return 0
