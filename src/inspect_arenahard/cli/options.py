"""Conventions every ``arenahard`` command shares: ``--ci`` levels, output and ``--plot`` files
(their format follows the extension; see :mod:`inspect_arenahard.files.outputs`), the options that
turn games into a ranking, and the cost options."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inspect_arenahard.errors import UserError, confidence_level
from inspect_arenahard.files.outputs import plot_formats
from inspect_arenahard.stats.leaderboard import METHODS, UNPARSED_RULES
from inspect_arenahard.stats.quality import DEFAULT_CI
from inspect_arenahard.stats.style_control import ANCHORS, parse_features

CI_HELP = "confidence level of the intervals: 0.95 or 95 both mean 95%% (default 0.95)"
PLOT_HELP = "write a plot here; the format follows the extension (png, pdf, svg, jpg, eps, …)"


def confidence(text: str) -> float:
    """argparse type for ``--ci``: 0.95 and 95 both mean a 95% interval."""
    try:
        return confidence_level(text)
    except UserError as ex:
        raise argparse.ArgumentTypeError(str(ex).removeprefix("--ci=")) from None


def output_file(text: str) -> Path:
    """argparse type for a file to write: refused up front when it could not be written, so a
    long computation never ends in an error about its output."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    parent = path.parent
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: folder {parent} does not exist")
    return path


def plot_file(text: str) -> Path:
    """argparse type for ``--plot``: refuses an extension matplotlib cannot write, before any work."""
    path = output_file(text)
    extension = path.suffix.lower().lstrip(".")
    formats = plot_formats()
    if extension not in formats:
        raise argparse.ArgumentTypeError(
            f"{text!r}: unsupported plot format {path.suffix or '(no extension)'}; use one of .{', .'.join(sorted(formats))}"
        )
    return path


def add_ci_argument(parser: argparse.ArgumentParser) -> None:
    """``--ci``: the confidence level of every interval the command reports."""
    parser.add_argument("--ci", type=confidence, default=DEFAULT_CI, help=CI_HELP)


def add_ranking_arguments(parser: argparse.ArgumentParser, scope: str = "") -> None:
    """--judge, --category, --method, --unparsed, --style-control, --style-anchor, --rounds, --seed:
    how games become a ranking. Rules default to the official ones of the logs' Arena-Hard version.

    Shared by the commands that rank models from logs; ``scope`` prefixes the help texts.
    """
    add = parser.add_argument
    add(
        "--judge",
        action="append",
        metavar="MODEL",
        help=f"{scope}use only this judge (repeat to pool several; default: all pooled)",
    )
    add("--category", help=f"{scope}use only this question category")
    add(
        "--method",
        choices=METHODS,
        help=f"{scope}bt: Bradley–Terry win-rate (official v0.1); mean: mean battle score (official v2.0); default: the version's",
    )
    add(
        "--unparsed",
        choices=UNPARSED_RULES,
        help=f"{scope}game: drop only an unparsed game (official v0.1); pair: drop both games of its judgment (official v2.0); default: the version's",
    )
    add(
        "--style-control",
        metavar="FEATURES",
        help=f"{scope}comma-separated: length, markdown (= header,list,bold), header, list, bold",
    )
    add(
        "--style-anchor",
        choices=ANCHORS,
        help=f"{scope}style-controlled score at the pool's mean style difference (official, default) or at equal style (equal: does not move with the pool)",
    )
    add("--rounds", type=int, default=100, help=f"{scope}bootstrap rounds (default 100)")
    add(
        "--seed",
        type=int,
        default=0,
        help=f"{scope}bootstrap seed (default 0: the same games give the same table)",
    )


def ranking_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``stats.leaderboard.leaderboard(s)`` that
    :func:`add_ranking_arguments` sets (``--judge`` and ``--category`` select battles instead)."""
    return dict(
        method=args.method,
        style=parse_features(args.style_control) if args.style_control else (),
        rounds=args.rounds,
        seed=args.seed,
        ci=args.ci,
        unparsed=args.unparsed,
        style_anchor=args.style_anchor,
    )


def add_cost_arguments(parser: argparse.ArgumentParser) -> None:
    """--cost and --prices: calls, tokens and dollars per role from the logs' model events."""
    parser.add_argument(
        "--cost",
        action="store_true",
        help="add cost columns (calls, tokens, $ per role; cached calls apart) to the table, JSON and CSV",
    )
    parser.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="price table for calls Inspect recorded no cost for: YAML/JSON {model: {input: $/M, output: $/M}} (default: built-in list prices)",
    )
