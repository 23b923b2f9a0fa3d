"""Conventions every ``arenahard`` command shares: ``--ci`` levels and ``--plot`` files (their
format follows the extension; see :mod:`inspect_arenahard.outputs`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from inspect_arenahard.errors import UserError, confidence_level
from inspect_arenahard.outputs import plot_formats

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
