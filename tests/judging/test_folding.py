"""Every code point's fold and every number's character reference, worked out in array steps,
equal the one-at-a-time definitions (``fold``, ``html.unescape``) exhaustively, so a text of
characters or numbers a process has not met costs no step per character or number."""

from __future__ import annotations

import html
import unicodedata
from importlib.resources import files

import numpy as np
import pytest

from inspect_arenahard.judging import folding
from inspect_arenahard.judging.canonical import (
    _CHARACTER_REFERENCES,
    _FOLDS,
    _KEPT,
    _MARKUP,
    _numeric_references,
    canonical,
)
from inspect_arenahard.judging.folding import CODE_POINTS, DROPPED, LONGER, CodeFolds, fold

EVERY_CODE_POINT = np.arange(CODE_POINTS)


def reads(folds: CodeFolds, codes: np.ndarray) -> list[str]:
    found = folds.of(codes).tolist()
    return [
        "" if f == DROPPED else folds.longer[c] if f == LONGER else chr(f)
        for c, f in zip(codes.tolist(), found)
    ]


def test_the_shipped_table_is_for_this_unicode_version_and_lookalike_table() -> None:
    """A stale table is never used (the fold is worked out per character instead); under the
    Unicode version it was made for, it must be current."""
    header = files("inspect_arenahard.judging").joinpath(folding.TABLE).read_text().split("\n")[0]
    if header.split()[2] != unicodedata.unidata_version:
        pytest.skip(f"the table is for Unicode {header.split()[2]}")
    assert folding._shipped() is not None, (
        "folds.tsv is stale: python -m inspect_arenahard.judging.folding"
    )


def test_the_table_folds_every_code_point_as_fold_does() -> None:
    assert reads(CodeFolds(fold), EVERY_CODE_POINT) == list(map(fold, map(chr, range(CODE_POINTS))))


def test_the_rendered_table_hides_markup_and_folds_the_rest() -> None:
    rendered = reads(CodeFolds(fold, "".join(_MARKUP)), EVERY_CODE_POINT)
    expected = ["" if chr(c) in _MARKUP else fold(chr(c)) for c in range(CODE_POINTS)]
    assert rendered == expected


def test_without_a_table_for_this_python_code_points_are_folded_on_first_meeting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(folding, "_shipped", lambda: None)
    codes = np.array([*range(0, 0x3000), *range(0x3000, CODE_POINTS, 89), 0x1D400, 0xFB03])
    folds = CodeFolds(fold)
    assert reads(folds, codes) == list(map(fold, map(chr, codes.tolist())))
    assert folds.read(0xFB03) == "ffi" and folds.read(0x200B) == "" and folds.read(0xFF21) == "A"


def joined_reads(entities: list[str]) -> list[str]:
    """What ``html.unescape`` reads each entity as, in one call (no number reads as U+0001)."""
    return html.unescape("\x01".join(entities)).split("\x01")


BEYOND = [0x110001, 0x1FFFFF, 10**7, 99_999_999, 10**8, 2**32, 2**32 + 62, 10**30 + 62]


@pytest.mark.parametrize(
    "spell",
    [
        "&#{};".format,
        "&#{}".format,
        "&#x{:x};".format,
        "&#X{:X}".format,
        "&#x{:08x}".format,
    ],
)
def test_every_number_reads_as_html_unescape_reads_it(spell) -> None:  # type: ignore[no-untyped-def]
    numbers = [*range(CODE_POINTS + 1), *BEYOND]
    step = 1 if spell(1) == "&#1;" else 11  # the others: every 11th number
    entities = list(map(spell, [*numbers[::step], *BEYOND]))
    assert _numeric_references(entities, _CHARACTER_REFERENCES) == joined_reads(entities)


def test_numbers_read_folded_as_html_unescape_then_fold_read_them() -> None:
    numbers = [*range(0, 0x3000), *range(0x3000, CODE_POINTS + 1, 13), *BEYOND]
    entities = [f"&#{n};" for n in numbers]
    for reading in ("plain", "rendered"):
        folds = _FOLDS[reading]
        expected = [read.translate(folds) for read in joined_reads(entities)]
        assert _numeric_references(entities, folds.references) == expected, reading


def test_a_text_of_every_code_point_keeps_the_translation_tables_bounded() -> None:
    """The tables keep the characters that do not read as one character and at most ``_KEPT``
    others, whatever a process reads."""
    odd = int((CodeFolds(fold).of(EVERY_CODE_POINT) >= DROPPED).sum())
    every = "".join(chr(c) for c in range(CODE_POINTS) if not 0xD800 <= c < 0xE000)
    for start in range(0, len(every), 3000):  # short texts: read a character at a time
        canonical(every[start : start + 3000] + "&#62;&amp;", "plain")
    canonical(every, "rendered")
    for reading in ("plain", "rendered"):
        assert len(_FOLDS[reading]) <= odd + _KEPT + 128
