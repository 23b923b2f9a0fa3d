"""Values as codes of their names: ``np.unique(values.astype(str), return_inverse=True)`` (the
distinct names sorted, each value's index among them), by one dict pass over the values and a
sort of the distinct names only. Prompts, judges and clusters are grouped this way wherever a
statistic groups by name, so the groups, and every sum over them, come out in one order."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np


def name_codes(values: Iterable[Hashable]) -> tuple[list[str], np.ndarray]:
    """(the distinct names (``str`` of the values) sorted, each value's index among them)."""
    names = list(map(str, values))
    distinct = sorted(dict.fromkeys(names))
    index = {name: k for k, name in enumerate(distinct)}
    return distinct, np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))


@dataclass(frozen=True)
class SortedNameCodes:
    """Values a reader has already coded as ``name_codes`` codes them: each row's index among
    the sorted names of the values it read (a battle file's question ids, hashed and sorted by
    pyarrow off the GIL, where sorting a million Python strings takes a second). Rows taken
    out leave gaps in the codes: ``cluster_index`` closes them."""

    codes: np.ndarray

    def __getitem__(self, rows: Any) -> SortedNameCodes:
        return SortedNameCodes(self.codes[rows])

    def __len__(self) -> int:
        return len(self.codes)


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
