"""How a judge may read a text: the canonical readings that recognition runs on.

A language model does not read an answer byte for byte. It decodes HTML entities (also without
their semicolon, also with leading zeros), takes full-width, mathematical, small-capital and
other-script look-alikes for the letters and signs they resemble, ignores invisible, control and
private-use characters, folds accents, and often reads Markdown or HTML as rendered. Three
readings cover this:

``plain``
    every character folded by ``fold`` (entities decoded; NFKD with combining marks removed,
    then NFC; look-alikes from ``LOOKALIKES`` mapped; characters of categories Cf, Cc (other
    than whitespace), Co, Cs, Mn and Me and Hangul fillers removed);
``raw``
    the text as written (what the parsers read; it differs from ``plain`` only where an entity
    decodes over characters that follow it, as ``&#x3eCriteria`` does);
``rendered``
    the plain reading after Markdown and HTML are rendered: emphasis, code and math marks
    (``* _ ` ~ ^ { } $``) and backslash escapes removed, HTML tags and comments removed, LaTeX
    text commands (``\\text``, ``\\mathrm`` …) removed and ``\\gt``/``\\lt``/``\\vert`` read as
    signs.

``canonical`` returns a reading with a map from its characters back to the original, so a
recognised span is rewritten where it was written, whatever its spelling. Each reading is one
pass over the text; multi-character tokens (entities, tags, comments) are matched with bounded
or possessive patterns, and a comment's end is found by a single search of the whole text.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from heapq import merge
from html.entities import html5
from importlib.resources import files
from typing import Iterable, Literal

Reading = Literal["raw", "plain", "rendered"]
READINGS: tuple[Reading, ...] = ("plain", "raw", "rendered")
"""In the order recognition applies them: a later reading adds only what the earlier missed."""
SPELLINGS: tuple[str, ...] = (
    "raw",
    "entity",
    "invisible",
    "compatibility",
    "lookalike",
    "markup",
)
"""How a recognised span was written: as the parser reads it, with HTML entities, with
invisible (format, control, private-use) characters or marks inside, with compatibility forms
(full-width, mathematical letters: NFKC folds them), with look-alikes from other scripts, or
with Markdown/HTML/LaTeX markup that a rendering reader does not see."""


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
_MARKUP = frozenset("*_`~^{}$")
"""Characters a rendering reader does not see (emphasis, code, math)."""


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


class _FoldTable(dict[int, str]):
    """``str.translate`` table computing each character's fold once."""

    def __init__(self, rendered: bool) -> None:
        super().__init__()
        self.rendered = rendered

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        value = self[code] = "" if self.rendered and ch in _MARKUP else fold(ch)
        return value


class _OddTable(dict[int, str]):
    """Marks (``\\x00``) the characters that may start an entity (``&``) or whose fold is not
    exactly one character."""

    def __init__(self, folds: _FoldTable, starts: str) -> None:
        super().__init__()
        self.folds, self.starts = folds, starts

    def __missing__(self, code: int) -> str:
        odd = chr(code) in self.starts or len(self.folds[code]) != 1
        value = self[code] = "\x00" if odd else "\x01"
        return value


_FOLDS = {"plain": _FoldTable(False), "rendered": _FoldTable(True)}
_ODD = {"plain": _OddTable(_FOLDS["plain"], "&"), "rendered": _OddTable(_FOLDS["rendered"], "&")}
ENTITY = re.compile(r"&(?:#[0-9]++;?|#[xX][0-9a-fA-F]++;?|[^\t\n\f <&#;]{1,32}+;?)")
"""What Python's ``html.unescape`` looks at: numeric entities (any number of digits, the
semicolon optional) and names of up to 32 characters (those HTML5 allows without a semicolon
are decoded without it)."""
_TAG = re.compile(
    r"</?(?:a|abbr|b|big|cite|code|del|dfn|em|font|i|ins|kbd|mark|q|s|samp|small|span|strike"
    r"|strong|sub|sup|tt|u|var)\b[^<>\[\]\n]{0,200}+>",
    re.IGNORECASE,
)
"""An inline HTML tag (a tag never holds a bracket, so it can never hide part of a label)."""
_LATEX = re.compile(
    r"\\(?:(?:text|textbf|textit|texttt|textrm|textsf|mathrm|mathbf|mathit|mathsf|mathtt"
    r"|operatorname|boxed|mbox|emph|left|right|big|Big)(?![A-Za-z])"
    r"|(?:gt|lt|vert|lvert|rvert|mid|lbrack|rbrack|langle|rangle)(?![A-Za-z])"
    r"|[!-/:-@\[-`{-~])"
)
_RENDER_TOKEN = re.compile(rf"<!--|(?i:{_TAG.pattern})|{_LATEX.pattern}")
"""Where a rendered reading hides or rewrites text (one scan of the whole text)."""
_LATEX_SIGNS = {
    "\\gt": ">",
    "\\lt": "<",
    "\\vert": "|",
    "\\lvert": "|",
    "\\rvert": "|",
    "\\mid": "|",
    "\\lbrack": "[",
    "\\rbrack": "]",
    "\\langle": "<",
    "\\rangle": ">",
}


@lru_cache(maxsize=4096)
def _decoded(entity: str) -> tuple[str, int] | None:
    """(what ``html.unescape`` makes of the entity at the start of ``entity``, how many of its
    characters that reads), or None when it reads none. A name without its semicolon is read
    as the longest HTML5 name it starts with (``&gtA`` is ``>`` then ``A``)."""
    if entity.startswith("&#"):
        hexadecimal = entity[2:3] in "xX"
        digits = entity[3 if hexadecimal else 2 :].rstrip(";").lstrip("0") or "0"
        if len(digits) > 8:  # beyond Unicode (html.unescape reads U+FFFD)
            return "\ufffd", len(entity)
        text = html.unescape(f"&#{'x' if hexadecimal else ''}{digits};")
        return text, len(entity)
    name = entity[1:]
    if name in html5:
        return html5[name], len(entity)
    for size in range(len(name) - 1, 1, -1):
        if name[:size] in html5:
            return html5[name[:size]], size + 1
    return None


@dataclass(frozen=True)
class Canonical:
    """A reading of a text and the map from its characters back to the original.

    Segments ``i`` cover canonical ``[starts[i], starts[i+1])`` and original
    ``[origins[i], ends[i])``; an ``exact`` segment maps character for character.
    """

    text: str
    source: str
    starts: list[int]
    origins: list[int]
    ends: list[int]
    exact: list[bool]
    reading: Reading = "plain"

    def origin(self, index: int) -> tuple[int, int]:
        """Original span of canonical character ``index``."""
        k = bisect_right(self.starts, index) - 1
        if self.exact[k]:
            at = self.origins[k] + index - self.starts[k]
            return at, at + 1
        return self.origins[k], self.ends[k]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original span of canonical ``[start, end)`` (dropped characters inside included)."""
        return self.origin(start)[0], self.origin(end - 1)[1]

    def spellings(self, spans: Iterable[tuple[int, int]], sample: int = 1000) -> set[str]:
        """How the canonical ``(start, end)`` spans were spelled in the original: ``raw`` for a
        span written as the parser reads it, else what disguised it (``SPELLINGS``); the
        first ``sample`` disguised spans stand for all (bounded work)."""
        if self.text == self.source:
            return {"raw"}
        found: set[str] = set()
        disguised: list[str] = []
        for start, end in spans:
            lo, hi = self.span(start, end)
            if self.source[lo:hi] == self.text[start:end]:
                found.add("raw")
            else:
                disguised.append(self.source[lo:hi])
            if len(disguised) >= sample:
                break
        if disguised:
            joined = "\n".join(disguised)
            if any(_decoded(m.group(0)) is not None for m in ENTITY.finditer(joined)):
                found.add("entity")
            rest = ENTITY.sub("", joined)
            if self.reading == "rendered" and (
                _TAG.search(rest) or "<!--" in rest or any(ch in _MARKUP for ch in rest)
            ):
                found.add("markup")
            found |= {_spelling(ch) for ch in set(_TAG.sub("", rest))} - {"raw"}
        return found


def _spelling(ch: str) -> str:
    if ch in LOOKALIKES:
        return "lookalike"
    folded = fold(ch)
    if folded == ch:
        return "raw"
    return "invisible" if not folded or unicodedata.category(ch) == "Mn" else "compatibility"


def canonical(text: str, reading: Reading = "plain") -> Canonical:
    """``text`` as read in ``reading`` (module docstring), with the map back to the original."""
    if reading == "raw":
        return Canonical(text, text, [0], [0], [len(text)], [True], reading)
    folds, marks = _FOLDS[reading], text.translate(_ODD[reading])
    starts: list[int] = []
    origins: list[int] = []
    ends: list[int] = []
    exact: list[bool] = []
    pieces: list[str] = []
    size = pos = 0
    closes: list[int] | None = None  # where comments end, found once

    def add(piece: str, origin: int, end: int, is_exact: bool) -> None:
        nonlocal size
        if piece:
            starts.append(size)
            origins.append(origin)
            ends.append(end)
            exact.append(is_exact and len(piece) == end - origin)
            pieces.append(piece)
            size += len(piece)

    runs = ((m.start(), m.end(), None) for m in re.finditer("\x00+", marks))
    events: Iterable[tuple[int, int, re.Match[str] | None]] = runs
    if reading == "rendered":
        tokens = ((m.start(), m.end(), m) for m in _RENDER_TOKEN.finditer(text))
        events = merge(runs, tokens, key=lambda event: event[0])
    for first, last, markup in events:
        if markup is not None:  # a tag, comment or LaTeX command a renderer does not show
            if first < pos:
                continue
            word = markup.group(0)
            if word == "<!--":
                if closes is None:
                    closes = [m.start() for m in re.finditer("-->", text)]
                k = bisect_left(closes, first + 4)
                if k == len(closes):
                    continue  # never closed: shown as written
                last = closes[k] + 3
            read = _LATEX_SIGNS.get(word, word[1:] if word[:1] == "\\" and len(word) == 2 else "")
            add(text[pos:first].translate(folds), pos, first, True)
            add(read.translate(folds), first, last, False)
            pos = last
            continue
        if last <= pos:
            continue
        first = max(first, pos)
        if "&" not in text[first:last]:
            # dropped or expanding characters only: one segment for the whole run
            add(text[pos:first].translate(folds), pos, first, True)
            add(text[first:last].translate(folds), first, last, False)
            pos = last
            continue
        for at in range(first, last):
            if at < pos:  # inside an entity already read
                continue
            add(text[pos:at].translate(folds), pos, at, True)
            entity = ENTITY.match(text, at) if text[at] == "&" else None
            decoded = _decoded(entity.group(0)) if entity is not None else None
            if decoded is not None:
                add(decoded[0].translate(folds), at, at + decoded[1], False)
                pos = at + decoded[1]
            else:
                folded = folds[ord(text[at])]
                add(folded, at, at + 1, len(folded) == 1)
                pos = at + 1
    add(text[pos:].translate(folds), pos, len(text), True)
    return Canonical(
        "".join(pieces),
        text,
        starts or [0],
        origins or [0],
        ends or [0],
        exact or [True],
        reading,
    )
