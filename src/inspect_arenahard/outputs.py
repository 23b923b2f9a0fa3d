"""Files the commands write: figures in the format their extension names, and the
``wrote <path>`` line that announces every file written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_arenahard.errors import UserError


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
