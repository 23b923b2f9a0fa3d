"""Conventions every ``arenahard`` command shares: ``--ci`` levels, output and ``--plot`` files
(their format follows the extension; see ``inspect_arenahard.files.outputs``), the options that
turn games into a ranking, and the cost options."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_arenahard.errors import UserError, confidence_level
from inspect_arenahard.files.outputs import plot_formats
from inspect_arenahard.stats.rank_options import DEFAULT_CI, RankingOptions
from inspect_arenahard.typed_options import add_options, from_args

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


def add_ranking_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of every ``RankingOptions`` field (generated from the dataclass) and ``--ci``:
    how games become a ranking, declared once for every command that ranks."""
    add_options(parser, RankingOptions, skip=("ci",))
    add_ci_argument(parser)


def ranking_options(args: argparse.Namespace, **fixed: Any) -> RankingOptions:
    """The ``RankingOptions`` of parsed flags (``fixed`` overrides fields a command sets itself);
    a bad combination is a ``UserError``."""
    try:
        return replace(from_args(RankingOptions, args), **fixed)
    except ValueError as ex:
        raise UserError(str(ex)) from None


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
