"""numpy's submodules that the commands never use, executed only if something reads from them.

Loading scipy (1.17) copies numpy's namespace, and the copy touches every lazily loaded numpy
submodule, among them ``f2py`` (the Fortran wrapper generator, which loads a character-set
detector) and ``testing``: 0.1–0.2 s of CPU at the start of every command that ranks, while
the reader's thread beside it parses a million battles. The console script registers these as
lazy modules (the standard library's ``importlib.util.LazyLoader``): whoever imports one gets
its module object at once, and its code runs the first time an attribute is read from it, so a
use anywhere still finds the whole module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["UNUSED_MODULES", "UnusedModules", "defer_unused_modules"]

UNUSED_MODULES = frozenset({"numpy.f2py", "numpy.testing"})
"""Modules loaded only as a side effect of loading scipy; none of the commands reads from them
(``numpy.ma`` is not one: ``numpy.unique`` asks it whether an array is masked)."""


class UnusedModules(importlib.abc.MetaPathFinder):
    """Finds ``UNUSED_MODULES`` where the import system would, with a loader that defers
    executing them until an attribute is read."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The module's own spec with its loader made lazy; None for any other module."""
        if fullname not in UNUSED_MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


def defer_unused_modules() -> None:
    """Install ``UnusedModules`` first on the import path (once per process). Modules already
    loaded stay as they are."""
    if not any(isinstance(finder, UnusedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, UnusedModules())
