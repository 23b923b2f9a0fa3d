"""Values as codes of their names: ``np.unique(values.astype(str), return_inverse=True)`` (the
distinct names sorted, each value's index among them), by one dict pass over the values and a
sort of the distinct names only. Prompts, judges and clusters are grouped this way wherever a
statistic groups by name, so the groups, and every sum over them, come out in one order."""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np


def name_codes(values: Iterable[Hashable]) -> tuple[list[str], np.ndarray]:
    """(the distinct names (``str`` of the values) sorted, each value's index among them)."""
    names = list(map(str, values))
    distinct = sorted(dict.fromkeys(names))
    index = {name: k for k, name in enumerate(distinct)}
    return distinct, np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))


def cluster_index(clusters: Iterable[Hashable]) -> np.ndarray:
    """Each value's index among the sorted names (``name_codes``)."""
    return name_codes(clusters)[1]
