"""`hindsight profile FILE`: turn a profile (a partial params file) into `dvc exp run -S` arguments."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

import yaml


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `profile` sub-command."""
    p = sub.add_parser("profile", help="print `-S key=value` arguments that apply a params profile",
                       description="Example: dvc exp run -n paper $(hindsight profile profiles/paper.yaml)")
    p.add_argument("file", type=Path, help="a YAML file with some params.yaml sections")
    p.set_defaults(func=_run)


def flatten(tree: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted.key, value) for every leaf of a nested mapping."""
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from flatten(value, name + ".")
        else:
            yield name, value


def _run(args: argparse.Namespace) -> int:
    try:
        tree = yaml.safe_load(args.file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        print(f"hindsight profile: {args.file}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(tree, dict):
        print(f"hindsight profile: {args.file}: expected a mapping of params sections", file=sys.stderr)
        return 2
    # Printed for `$(...)` expansion, which splits on spaces and keeps quotes literally: no quoting, no spaces.
    args = []
    for key, value in flatten(tree):
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        if any(c.isspace() for c in text):
            print(f"hindsight profile: {key}: values with spaces cannot be passed this way", file=sys.stderr)
            return 2
        args.append(f"-S {key}={text}")
    print(" ".join(args))
    return 0
