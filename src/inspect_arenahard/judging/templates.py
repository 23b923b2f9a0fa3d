"""Access to the prompt templates and judge configurations shipped as data in ``scorers/``.

The files live in the repository's top-level ``scorers/`` folder and are copied into the wheel
as ``inspect_arenahard/scorers``; an editable install reads them from the checkout.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml


def data_dir(name: str) -> Path:
    """The shipped data folder ``name`` (``scorers`` or ``tasks``), installed or in a checkout."""
    package = Path(__file__).resolve().parents[1]
    installed = package / name
    if installed.is_dir():
        return installed
    checkout = package.parents[1] / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"inspect_arenahard data folder '{name}' not found (looked in {installed} and {checkout})"
    )


@lru_cache(maxsize=None)
def template(name: str) -> str:
    """Text of ``scorers/templates/<name>.txt`` with its ``#`` header lines removed.

    Template files start with comment lines citing the paper they transcribe; everything after
    the first non-comment line is the template, kept byte-for-byte.
    """
    path = data_dir("scorers") / "templates" / f"{name}.txt"
    if not path.is_file():
        raise FileNotFoundError(f"prompt template '{name}' not found at {path}")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        start += 1
    return "".join(lines[start:]).strip("\n")


@lru_cache(maxsize=None)
def config(name: str) -> dict[str, Any]:
    """Parsed ``scorers/configs/<name>.yaml`` (hub pin, committee labels, domains, criteria; the
    benchmark versions are read typed by the task's version config)."""
    path = data_dir("scorers") / "configs" / f"{name}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"judge configuration '{name}' not found at {path}")
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return loaded
