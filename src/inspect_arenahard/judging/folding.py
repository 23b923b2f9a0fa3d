"""How the plain reading folds a character: ``fold``, one character at a time, and
``CodeFolds``, every code point at once as one array, so that a text of many characters a
process has not met yet is folded in array steps (folding a character on its first meeting
costs about a microsecond: a million new characters would cost a second).

``folds.tsv`` lists the code points whose fold is not themselves, as ranges,
for one Unicode version and one look-alike table (its header names both). Where the running
Python's Unicode version or the look-alike table differs, the array is filled a character at a
time on first meeting instead. Regenerate the table after changing ``fold`` or
``confusables.tsv``:

```bash
python -m inspect_arenahard.judging.folding
```
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Callable

import numpy as np


def _load_lookalikes() -> dict[str, str]:
    """The shipped table (``confusables.tsv``: its header names the sources)."""
    table: dict[str, str] = {}
    text = files("inspect_arenahard.judging").joinpath("confusables.tsv").read_text("utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            code, reads_as, _ = line.split("\t")
            table[chr(int(code[2:], 16))] = reads_as
    return table


LOOKALIKES: dict[str, str] = _load_lookalikes()
"""Characters a reader takes for a character of a judge's grammar (labels, signs, brackets,
delimiter bars, verdict digits, the letters of ``Tie``), beyond what NFKC folds."""

_DROPPED_CATEGORIES = frozenset({"Cf", "Cc", "Co", "Cs", "Mn", "Me"})
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u034f")


def _dropped(ch: str) -> bool:
    return ch in _FILLERS or (unicodedata.category(ch) in _DROPPED_CATEGORIES and not ch.isspace())


def fold(ch: str) -> str:
    """One character of the plain reading: look-alike mapped, invisible removed, accents
    folded, compatibility forms folded (NFKD, marks removed, NFC)."""
    if ch in LOOKALIKES:
        return LOOKALIKES[ch]
    if ch.isascii() and (ch.isprintable() or ch.isspace()):
        return ch
    if _dropped(ch):
        return ""
    parts = "".join(
        LOOKALIKES.get(c, c) for c in unicodedata.normalize("NFKD", ch) if not _dropped(c)
    )
    return unicodedata.normalize("NFC", parts)


CODE_POINTS = 0x110000
DROPPED = CODE_POINTS
"""In ``CodeFolds.of``: the fold is empty."""
LONGER = CODE_POINTS + 1
"""In ``CodeFolds.of``: the fold is longer than one character (``CodeFolds.longer``)."""
_UNKNOWN = CODE_POINTS + 2

TABLE = "folds.tsv"


def _lookalikes_digest() -> str:
    text = files("inspect_arenahard.judging").joinpath("confusables.tsv").read_bytes()
    return hashlib.sha256(text).hexdigest()[:16]


def _header() -> str:
    return f"# unicode {unicodedata.unidata_version} confusables {_lookalikes_digest()}"


def distinct_values(values: np.ndarray, ascending: bool = False) -> np.ndarray:
    """The distinct values of ``values``, ascending (``ascending``: already so, not sorted
    again): ``np.unique`` without the import of ``numpy.ma`` on its first call, which a
    process's first text would pay."""
    ordered = values if ascending else np.sort(values)
    kept = np.ones(len(ordered), bool)
    np.not_equal(ordered[1:], ordered[:-1], out=kept[1:])
    return ordered[kept]


class CodeFolds:
    """The fold of every code point: ``of(codes)`` gives the code of each one's fold where that
    is one character, else ``DROPPED`` or ``LONGER``; read from the shipped table on first use
    (a few milliseconds), else worked out by ``fold`` for each code point on first meeting."""

    def __init__(self, fold: Callable[[str], str], hidden: str = "") -> None:
        self._fold = fold
        self._hidden = hidden
        """Characters read as nothing whatever ``fold`` says (the rendered reading's markup)."""
        self._codes: np.ndarray | None = None
        self.longer: dict[int, str] = {}
        """The folds longer than one character met so far (all of them from the table)."""

    def of(self, codes: np.ndarray) -> np.ndarray:
        """The fold code of each of ``codes`` (``DROPPED``, ``LONGER``), in array steps."""
        table = self._table()
        found = table[codes]
        unknown = found == _UNKNOWN
        if unknown.any():
            self._learn(distinct_values(codes[unknown]).astype(np.int64))
            found = table[codes]
        return found

    def read(self, code: int) -> str:
        """The fold of one code point."""
        found = int(self._table()[code])
        if found == _UNKNOWN:
            self._learn(np.array([code]))
            found = int(self._table()[code])
        return "" if found == DROPPED else self.longer[code] if found == LONGER else chr(found)

    def _table(self) -> np.ndarray:
        if self._codes is None:
            shipped = _shipped()
            if shipped is None:
                self._codes = np.full(CODE_POINTS, _UNKNOWN, np.uint32)
            else:  # shared where nothing is hidden (read-only: every code point is known)
                self._codes = shipped[0].copy() if self._hidden else shipped[0]
                self.longer.update(shipped[1])
            if self._hidden:
                self._codes[[ord(c) for c in self._hidden]] = DROPPED
        return self._codes

    def _learn(self, codes: np.ndarray) -> None:
        """Fold ``codes`` one at a time (the table is for another Unicode version)."""
        assert self._codes is not None
        for code in codes.tolist():
            read = self._fold(chr(code))
            self._codes[code] = DROPPED if not read else ord(read) if len(read) == 1 else LONGER
            if len(read) > 1:
                self.longer[code] = read


@lru_cache(maxsize=1)
def _shipped() -> tuple[np.ndarray, dict[int, str]] | None:
    """The shipped table as (the fold code of every code point, the longer folds), or None
    where it was made for another Unicode version or look-alike table."""
    text = files("inspect_arenahard.judging").joinpath(TABLE).read_text("ascii")
    header, _, body = text.partition("\n")
    if header != _header():
        return None
    rows = [line.split("\t") for line in body.splitlines() if line and not line.startswith("#")]
    codes = np.arange(CODE_POINTS, dtype=np.uint32)
    longer: dict[int, str] = {}
    spans: list[tuple[int, int, int]] = []  # first, last, distance (DROPPED: read as nothing)
    for first, last, value in rows:
        start, end = int(first, 16), int(last, 16)
        if not value or value[0] in "+-":
            spans.append((start, end, int(value) if value else DROPPED))
        else:
            codes[start] = LONGER
            longer[start] = "".join(chr(int(c, 16)) for c in value.split())
    firsts, lasts, distances = np.array(spans, np.int64).reshape(-1, 3).T
    sizes = lasts - firsts + 1
    at = np.repeat(firsts - (sizes.cumsum() - sizes), sizes) + np.arange(sizes.sum())
    distance = np.repeat(distances, sizes)
    codes[at] = np.where(distance == DROPPED, DROPPED, at + distance)
    codes.flags.writeable = False
    return codes, longer


def table_text(fold: Callable[[str], str]) -> str:
    """``folds.tsv`` for the running Python: ranges of code points whose folds are empty (no
    third field) or one character at a constant distance (``+N``/``-N``), and single code
    points whose folds are longer (their codes)."""
    rows: list[list[int | str]] = []  # first, last, value
    for code in range(CODE_POINTS):
        read = fold(chr(code))
        if read == chr(code):
            continue
        value = "" if not read else f"{ord(read) - code:+d}" if len(read) == 1 else None
        if value is None:
            rows.append([code, code, " ".join(f"{ord(c):04X}" for c in read)])
        elif rows and rows[-1][1] == code - 1 and rows[-1][2] == value:
            rows[-1][1] = code
        else:
            rows.append([code, code, value])
    lines = [
        _header(),
        "# The code points whose fold is not themselves (first, last, what they fold to: nothing,",
        "# a code point at a distance, or code points), made by",
        "# python -m inspect_arenahard.judging.folding",
        "# Sources: this Python's unicodedata (decompositions and categories of the Unicode version",
        "# above) and confusables.tsv beside this file (its header names its sources).",
        "# Unicode data licence: https://www.unicode.org/license.txt",
        *(f"{first:04X}\t{last:04X}\t{value}" for first, last, value in rows),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Write ``folds.tsv`` for the running Python."""
    path = Path(__file__).with_name(TABLE)
    path.write_text(table_text(fold), "ascii")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
