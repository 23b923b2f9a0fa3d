"""Files the commands write: figures in the format their extension names, JSON in one layout
stamped with the versions that wrote it, and the ``wrote <path>`` line that announces every file
written."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from inspect_arenahard.errors import UserError

GENERATED_BY = "generated_by"
"""The key under which every JSON output records ``versions``."""


@cache
def versions() -> dict[str, str]:
    """This package's and Inspect's versions, so a file or page says which code computed it.

    Both are read from the installed metadata, not by importing the packages: the statistics
    commands run without loading Inspect, and this module imports nothing above it.
    """
    return {name: _installed_version(name) for name in ("inspect_arenahard", "inspect_ai")}


def _installed_version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version  # (its import: 15 ms)

    try:
        return version(distribution)
    except PackageNotFoundError:  # pragma: no cover - both are installed with the package
        return "not installed"


def stamped(payload: Any) -> Any:
    """``payload`` with ``versions`` under ``generated_by``: a mapping gets the key, a list
    of records gets it in every record (as table-wide fields such as ``style_control`` are), so
    readers of either layout keep working."""
    stamp = {GENERATED_BY: versions()}
    if isinstance(payload, dict):
        return {**payload, **stamp}
    if isinstance(payload, list) and all(isinstance(r, dict) for r in payload):
        return [{**r, **stamp} for r in payload]
    raise TypeError(f"cannot stamp a JSON output of type {type(payload).__name__}")


def plot_formats() -> dict[str, str]:
    """File extensions matplotlib can write without extra software, with their descriptions."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    formats = dict(FigureCanvasAgg.get_supported_filetypes())
    formats.pop("pgf", None)  # needs a LaTeX installation
    return formats


def save_figure(fig: Any, path: str | Path, dpi: int = 120) -> None:
    """Save a matplotlib figure in the format its extension names, then say so."""
    path = Path(path)
    extension = path.suffix.lower().lstrip(".")
    if extension not in plot_formats():  # callers from Python skip the argparse check
        raise UserError(f"{path}: unsupported plot format {path.suffix or '(no extension)'}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(str(path), format=extension, dpi=dpi)
    wrote(path)


def wrote(path: str | Path, what: str = "") -> None:
    """Announce a written file on stdout: ``wrote <path>`` (``wrote <what> to <path>``)."""
    print(f"wrote {what} to {path}" if what else f"wrote {path}")


def jsonable(value: Any) -> Any:
    """``value`` as strict JSON can hold it: NaN and infinities become null (a missing figure),
    tuples lists and keys strings, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def json_text(payload: Any) -> str:
    """The layout of every JSON the commands print or write: indented, UTF-8 text as is, strict
    (no NaN), and values JSON has no type for (paths, dates) as their text."""
    return json.dumps(jsonable(payload), indent=2, ensure_ascii=False, allow_nan=False, default=str)


def write_json(path: str | Path, payload: Any, what: str = "") -> None:
    """Write ``payload`` (a mapping or a list of records) as JSON (``json_text``), stamped
    with the versions that wrote it (``stamped``), then say so."""
    Path(path).write_text(json_text(stamped(payload)) + "\n", encoding="utf-8")
    wrote(path, what)
