"""Values as codes of their names: ``np.unique(values.astype(str), return_inverse=True)`` (the
distinct names sorted, each value's index among them), by one dict pass over the values and a
sort of the distinct names only. Prompts, judges and clusters are grouped this way wherever a
statistic groups by name, so the groups, and every sum over them, come out in one order."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from functools import cached_property
from typing import Any

import numpy as np


def name_codes(values: Iterable[Hashable]) -> tuple[list[str], np.ndarray]:
    """(the distinct names (``str`` of the values) sorted, each value's index among them)."""
    names = list(map(str, values))
    distinct = sorted(dict.fromkeys(names))
    index = {name: k for k, name in enumerate(distinct)}
    return distinct, np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))


class SortedNameCodes:
    """Values a reader can code as ``name_codes`` codes them, each row's index among the sorted
    names of the values it read, faster than ``name_codes`` (a battle file's question ids, hashed
    and sorted by pyarrow off the GIL, where sorting a million Python strings takes a second).
    The codes are made on first use, so a ranking that never groups by them pays nothing; rows
    taken out leave gaps in them, which ``cluster_index`` closes."""

    def __init__(self, make: Callable[[], np.ndarray]) -> None:
        self._make = make

    @cached_property
    def codes(self) -> np.ndarray:
        """Each row's index among the sorted names."""
        return self._make()

    def __getitem__(self, rows: Any) -> SortedNameCodes:
        return SortedNameCodes(lambda: self.codes[rows])

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (or copied) as the codes themselves
        return _given, (self.codes,)


def _given(codes: np.ndarray) -> SortedNameCodes:
    return SortedNameCodes(lambda: codes)


def cluster_index(clusters: Iterable[Hashable] | SortedNameCodes) -> np.ndarray:
    """Each value's index among the sorted names (``name_codes``) of the values present."""
    if isinstance(clusters, SortedNameCodes):
        codes = clusters.codes
        if not len(codes):
            return np.zeros(0, dtype=np.int64)
        present = np.zeros(int(codes.max()) + 1, dtype=np.int64)
        present[codes] = 1
        return (np.cumsum(present) - 1)[codes]
    return name_codes(clusters)[1]
