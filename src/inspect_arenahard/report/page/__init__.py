"""The shareable report: one static HTML page from judge logs (``arenahard report LOGS --html OUT/``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspect_arenahard.report.page.sections import Options


def write_report(logs: Sequence[str], out: str | Path, options: Options | None = None) -> Path:
    """Build the report from ``logs`` and write ``OUT/index.html``; returns its path."""
    from inspect_arenahard.report.page import render, sections

    return render.write(sections.build(logs, options or Options()), out)


__all__ = ["Options", "write_report"]
