"""`hindsight pools diff`: compare two versions of a pool through DVC."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

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
    probe = probe_figures(repo, args.rev_a, args.rev_b)
    if args.json:
        print(json.dumps({**result.to_json(), "probe": probe}, indent=2))
    else:
        print(result.to_text())
        print(probe["text"])
    return 0


def probe_figures(repo: Any, rev_a: str, rev_b: str) -> dict[str, Any]:
    """What the probe said of each version (data/probe/picks.jsonl there): each configuration's figures, and
    Actor_hind of B vs of A paired on the states both answered; a note where a version has no probe."""
    from flows.runtime.params import ParamsError, load_params
    from flows.stages.comparisons import bootstrap
    from pools.jsonl import RecordError
    from pools.probe_metrics import config_text, paired, paired_text, summary
    from pools.versions import VersionError, load_records

    try:
        samples, seed = bootstrap(load_params())
    except ParamsError:
        samples, seed = 10000, 0
    out: dict[str, Any] = {"versions": {}, "actor_hind": None}
    lines = ["", "probe (data/probe/picks.jsonl):"]
    picks: dict[str, list[dict[str, Any]]] = {}
    for rev in (rev_a, rev_b):
        try:
            picks[rev] = load_records(repo, "data/probe/picks.jsonl", rev, "probe_pick")
        except (VersionError, RecordError) as exc:
            lines.append(f"  {rev}: no probe ({exc})")
            continue
        figures = {c: summary(c, [p for p in picks[rev] if p["config"] == c], samples, seed)
                   for c in sorted({p["config"] for p in picks[rev]})}
        out["versions"][rev] = figures
        lines += [f"  {rev}: {config_text(f)}" for f in figures.values()]
    hind = {rev: [p for p in rows if p["config"] == "actor_hind"] for rev, rows in picks.items()}
    if len(hind) == 2 and all(hind.values()):
        out["actor_hind"] = paired(f"actor_hind@{rev_b}", hind[rev_b], f"actor_hind@{rev_a}", hind[rev_a], samples,
                                   seed)
        lines += ["  " + line for line in paired_text(out["actor_hind"]).splitlines()]
    out["text"] = "\n".join(lines)
    return out
