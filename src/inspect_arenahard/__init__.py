"""Arena-Hard-Auto, BenchBuilder and judge meta-evaluation for Inspect AI.

Exports resolve lazily so that the pure statistics modules (``inspect_arenahard.stats``) import
without pulling in Inspect.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

__version__ = "0.1.0"

LAUNCH_DIR = Path.cwd()
"""The directory the command was started in. Inspect loads this plugin at start-up, before it
changes into a task file's folder, so relative task arguments resolve against what the user typed."""

_EXPORTS = {
    "arenahard": "inspect_arenahard.task",
    "pairwise_judge": "inspect_arenahard.judges",
    "answer_with_baseline": "inspect_arenahard.solve",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'inspect_arenahard' has no attribute {name!r}")
