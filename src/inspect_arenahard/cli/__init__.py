"""The ``arenahard`` console script: one subcommand module per stage.

Each module in ``SUBCOMMANDS`` exposes ``register(subparsers)``, adding its parser and setting
``func`` (called with the parsed arguments, returns an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

SUBCOMMANDS: list[str] = ["leaderboard", "metrics", "curate", "metaeval", "importing", "tournament", "audit", "reporting"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arenahard",
        description="Arena-Hard-Auto for Inspect AI: curate benchmarks, aggregate judge logs "
        "into leaderboards, and measure benchmark and judge quality. "
        "Evaluations themselves run with `inspect eval arenahard`.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        importlib.import_module(f"inspect_arenahard.cli.{module}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (FileNotFoundError, ValueError) as ex:
        print(f"arenahard {args.command}: error: {ex}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
