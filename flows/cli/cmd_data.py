"""`hindsight data check|import-alfred`: where ALFRED's data is read from, and building it from ALFRED's download
(the content hashes DVC tracks: the stage `data`, flows/stages/data_sources.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `data` sub-command."""
    data = subparsers.add_parser("data", help="ALFRED's data: where it is read from, importing ALFRED's download",
                                 description="The data directory is $HINDSIGHT_DATA, else params.yaml "
                                             "data.dir (default ../shared/alfred, relative to the project).")
    sub = data.add_subparsers(dest="data_command", metavar="ACTION")
    check = sub.add_parser("check", help="say where the data is read from; exit 2 (one line) when it is missing")
    check.set_defaults(func=_check)
    imp = sub.add_parser("import-alfred", help="build the compact files from ALFRED's json_2.1.0 download",
                         description="Reads json_2.1.0/{train,valid_seen,valid_unseen}/*/trial_*/traj_data.json "
                                     "(PATH is json_2.1.0 or a folder above it) and writes "
                                     "alfred_compact_{train.json.gz,valid_seen.json,valid_unseen.json}.")
    imp.add_argument("path", type=Path, help="ALFRED's json_2.1.0 folder (or the folder holding it)")
    imp.add_argument("--out", type=Path, default=None, help="where to write them (default: the data directory)")
    imp.set_defaults(func=_import)
    data.set_defaults(func=lambda args: (data.print_help(), 2)[1])


def _check(args: argparse.Namespace) -> int:
    from household.world.resources import HOW_TO_PROVIDE, data_dir, data_source, missing_data

    missing = missing_data()
    if missing:
        print(f"hindsight data: ALFRED data not found: {', '.join(str(p) for p in missing)} (the data directory is "
              f"{data_source()}); {HOW_TO_PROVIDE}", file=sys.stderr)
        return 2
    print(f"ALFRED data: {data_dir()} (the data directory is {data_source()})")
    return 0


def _import(args: argparse.Namespace) -> int:
    from household.world.alfred_import import import_alfred
    from household.world.resources import data_dir

    out = args.out or data_dir()
    try:
        counts = import_alfred(args.path, out)
    except (FileNotFoundError, ValueError) as exc:
        print(f"hindsight data import-alfred: {exc}", file=sys.stderr)
        return 2
    for split, n in counts.items():
        print(f"{split}: {n} trajectories")
    print(f"written to {out}")
    return 0
