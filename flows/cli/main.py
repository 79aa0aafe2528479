"""The `hindsight` command line: one entry point, one sub-command module per concern."""
from __future__ import annotations

import argparse
import importlib
import sys

# Each module defines `register(subparsers)` adding its sub-command with `set_defaults(func=...)`. Every command
# builds this parser, so each module imports at its top only what the parser needs; its handler imports what it runs.
# Measured with python -X importtime on 2 cores: the parser ~0.1 s; the handlers' imports together ~4 s (Prefect
# ~2 s through the stages, the planner ~0.2 s, pools.diff ~0.2 s, household ~0.1 s), which `--help` and a quick
# `hindsight timing` would otherwise pay.
COMMAND_MODULES = (
    "flows.cli.cmd_world",
    "flows.cli.cmd_data",
    "flows.cli.cmd_llm",
    "flows.cli.cmd_episode",
    "flows.cli.cmd_relabel",
    "flows.cli.cmd_stage",
    "flows.cli.cmd_pools",
    "flows.cli.cmd_compare",
    "flows.cli.cmd_report",
    "flows.cli.cmd_profile",
    "flows.cli.cmd_timing",
    "flows.cli.cmd_deviations",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every available sub-command."""
    parser = argparse.ArgumentParser(
        prog="hindsight",
        description="Build, version and evaluate the example pools of the Hindsight Planner on ALFRED.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from flows.runtime.shutdown import Terminated, exit_code, sigterm_as_interrupt
    from household.world.resources import DataMissing

    # SIGTERM unwinds like Ctrl-C: `finally` and atexit stop every server this process started.
    try:
        with sigterm_as_interrupt():
            return int(args.func(args) or 0)
    except DataMissing as exc:  # one line: the path looked at and how to provide the data
        print(f"hindsight: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"hindsight: {'terminated' if isinstance(exc, Terminated) else 'interrupted'}", file=sys.stderr)
        return exit_code(exc)


if __name__ == "__main__":
    sys.exit(main())
