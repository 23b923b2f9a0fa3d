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
pass over the text: one pattern splits it where the reading does not copy a character (runs of
dropped or expanding characters, tags, LaTeX), with bounded or possessive patterns; entities are
found by the same split and read from a table of the distinct tokens (numbers worked out by
array passes, names once per distinct head) that the readings of one text share
(``EntityReads``: each reading folds the shared reads), non-ASCII text is folded in one array
pass (every code point's fold at once: ``folding.CodeFolds``), the reading is gathered from
the folded text and the tokens' reads by array passes, and a comment's end is found by a single
search of the whole text. The map is built with array operations, and only when it is asked
for (most texts are only searched).
"""

from __future__ import annotations

import html
import operator
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from html.entities import html5
from itertools import accumulate, compress, pairwise
from typing import Callable, Iterable, Iterator, Literal, NamedTuple, Sequence

import numpy as np

from inspect_arenahard.judging.folding import (
    CODE_POINTS,
    DROPPED,
    LONGER,
    CodeFolds,
    distinct_values,
    fold,
)
from inspect_arenahard.judging.folding import LOOKALIKES as LOOKALIKES

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


_MARKUP = frozenset("*_`~^{}$")
"""Characters a rendering reader does not see (emphasis, code, math)."""


class _CharacterReferences:
    """What ``html.unescape`` reads a numeric entity as, by its number, folded by ``folds``
    where given, in array steps (a text of distinct numeric entities costs no call per
    number): the read is a pure function of the number."""

    def __init__(self, folds: _FoldTable | None = None) -> None:
        self.folds = folds

    def reads(self, numbers: np.ndarray) -> list[str]:
        """The read of each of ``numbers`` (``_BEYOND_UNICODE`` for any beyond Unicode)."""
        codes = _REFERENCE_CODES[np.searchsorted(_REFERENCE_KEYS, numbers, "right") - 1]
        codes = np.where(codes == _RELATIVE, numbers, codes).astype(np.uint32)
        if self.folds is None:
            return _strings(codes, numbers, {})
        read = codes < CODE_POINTS
        folded = np.full(len(codes), DROPPED, np.uint32)
        folded[read] = self.folds.codes.of(codes[read])
        return _strings(folded, codes, self.folds.codes.longer)


def _reference_table() -> tuple[np.ndarray, np.ndarray]:
    """``html.unescape``'s numeric references as steps: from each key on, numbers read as the
    code beside it (``_RELATIVE``: as themselves; ``DROPPED``: as nothing) up to the next key.
    The numbers it reads otherwise than as themselves are those its tables of invalid
    references and code points hold, the surrogates and those beyond Unicode."""
    special = {**dict.fromkeys(html._invalid_codepoints), **html._invalid_charrefs}  # type: ignore[attr-defined]
    steps = {0: _RELATIVE, 0xD800: 0xFFFD, 0xE000: _RELATIVE, _BEYOND_UNICODE: 0xFFFD}
    for number in sorted(special):
        read = html.unescape(f"&#{number};")
        steps[number] = ord(read) if read else DROPPED
        steps.setdefault(number + 1, _RELATIVE)
    keys = sorted(steps)
    return np.array(keys, np.int64), np.array([steps[k] for k in keys], np.int64)


def _strings(codes: np.ndarray, sources: np.ndarray, longer: dict[int, str]) -> list[str]:
    """The strings ``codes`` stand for: a character, nothing (``DROPPED``) or the fold of the
    code in ``sources`` beside it (``LONGER``), the characters decoded in one step."""
    one = codes < CODE_POINTS
    out = list(
        np.where(one, codes, 0x20).astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    )
    if not one.all():
        for k in np.flatnonzero(~one).tolist():
            out[k] = "" if codes[k] == DROPPED else longer[int(sources[k])]
    return out


class _FoldTable(dict[int, str]):
    """``str.translate`` table of each character's fold (``codes``: every code point's, as an
    array). It keeps the characters that do not read as one character (bounded: some 150,000
    code points) and others up to ``_KEPT`` entries (memory stays bounded)."""

    def __init__(self, rendered: bool) -> None:
        super().__init__()
        self.rendered = rendered
        self.codes = CodeFolds(fold, "".join(_MARKUP) if rendered else "")
        self.references = _CharacterReferences(self)
        """Numeric entities' reads, folded."""

    def __missing__(self, code: int) -> str:
        if code < 0x80:
            ch = chr(code)
            value = "" if self.rendered and ch in _MARKUP else fold(ch)
        else:
            value = self.codes.read(code)
        if len(value) != 1 or len(self) < _KEPT:
            self[code] = value
        return value

    def learn(self, codes: np.ndarray) -> None:
        """Keep the folds of ``codes`` (which do not read as one character), in array steps."""
        self.update(zip(codes.tolist(), _strings(self.codes.of(codes), codes, self.codes.longer)))


_KEPT = 1 << 16


class _OddTable(dict[int, str]):
    """Marks (``\\x00``) the characters that may start an entity (``&``) or whose fold is not
    exactly one character (it keeps those, and others up to ``_KEPT`` entries)."""

    def __init__(self, folds: _FoldTable, starts: str) -> None:
        super().__init__()
        self.folds, self.starts = folds, starts

    def __missing__(self, code: int) -> str:
        odd = chr(code) in self.starts or len(self.folds[code]) != 1
        value = "\x00" if odd else "\x01"
        if odd or len(self) < _KEPT:
            self[code] = value
        return value


_CHARACTER_REFERENCES = _CharacterReferences()
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
    r"\\(?:[!-/:-@\[-`{-~]"
    r"|(?:text|textbf|textit|texttt|textrm|textsf|mathrm|mathbf|mathit|mathsf|mathtt"
    r"|operatorname|boxed|mbox|emph|left|right|big|Big)(?![A-Za-z])"
    r"|(?:gt|lt|vert|lvert|rvert|mid|lbrack|rbrack|langle|rangle)(?![A-Za-z]))"
)
"""A LaTeX escape (a sign after a backslash, tried first: no command starts with one) or a
command a renderer hides or reads as a sign."""
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


_BEYOND_UNICODE = 0x110000
"""Every number from here on reads as U+FFFD."""


def _numeric_references(
    entities: list[str], reads: _CharacterReferences, lengths: np.ndarray | None = None
) -> list[str]:
    """What each numeric entity (``&#62``, ``&#x3e;``; ``lengths``: theirs, where worked out)
    reads as (``reads``: by number), in bulk: each number is worked out from the codes of its
    last eight digits, gathered as one row per entity (a number with a significant digit
    before those is beyond Unicode: U+FFFD), so the work is a few small arrays per entity."""
    codes = np.frombuffer("".join(entities).encode("ascii"), np.uint8)
    if lengths is None:
        lengths = np.fromiter(map(len, entities), np.int64, len(entities))
    ends = lengths.cumsum()
    starts = ends - lengths
    hexadecimal = (codes[starts + 2] | 0x20) == ord("x")
    first = starts + 2 + hexadecimal  # the digits: [first, last)
    last = ends - (codes[ends - 1] == ord(";"))
    window = last[:, None] + _WINDOW  # the last eight places, the highest first
    digits = _DIGIT_VALUE[codes[np.maximum(window, 0)]]
    digits[window < first[:, None]] = 0
    digits *= _PLACES[hexadecimal.view(np.uint8)]
    numbers = digits.sum(axis=1, dtype=np.int64)
    longer = np.flatnonzero(last - first > len(_WINDOW))
    if len(longer):  # a significant digit before the window: beyond Unicode
        significant = np.concatenate([[0], np.cumsum(_DIGIT_VALUE[codes] > 0)])
        beyond = significant[last[longer] + _WINDOW[0]] > significant[first[longer]]
        numbers[longer[beyond]] = _BEYOND_UNICODE
    return reads.reads(np.minimum(numbers, _BEYOND_UNICODE))


_RELATIVE = -1
_REFERENCE_KEYS, _REFERENCE_CODES = _reference_table()
_WINDOW = np.arange(-8, 0)
"""The places a number below ``_BEYOND_UNICODE`` may use, from its last digit."""
_PLACES = np.array(
    [[10**k for k in range(7, -1, -1)], [16**k for k in range(7, -1, -1)]], np.uint32
)
"""The value of each place of ``_WINDOW``, decimal then hexadecimal (eight hexadecimal digits
sum to at most ``2**32 - 1``)."""
_DIGIT_VALUE = np.array(
    [int(c, 16) if c in "0123456789abcdefABCDEF" else 0 for c in map(chr, range(256))], np.uint32
)


@lru_cache(maxsize=4096)
def _decoded(entity: str) -> tuple[str, int] | None:
    """(what ``html.unescape`` makes of the entity at the start of ``entity``, how many of its
    characters that reads), or None when it reads none. A name without its semicolon is read
    as the longest HTML5 name it starts with (``&gtA`` is ``>`` then ``A``)."""
    consumed, reads = _entity_table([entity], None)
    return (reads[0], int(consumed[0])) if consumed[0] else None


class Segments(NamedTuple):
    """A reading's map as arrays: segment ``i`` covers canonical ``[starts[i], starts[i+1])``
    and original ``[origins[i], ends[i])``; an ``exact`` segment maps character for character."""

    starts: np.ndarray
    origins: np.ndarray
    ends: np.ndarray
    exact: np.ndarray


@dataclass(frozen=True)
class Canonical:
    """A reading of a text and the map from its characters back to the original.

    Segments ``i`` cover canonical ``[starts[i], starts[i+1])`` and original
    ``[origins[i], ends[i])``; an ``exact`` segment maps character for character. The map is
    built from ``cuts`` when first asked for (most texts are only searched, never mapped).
    """

    text: str
    source: str
    reading: Reading = "plain"
    cuts: Callable[[], tuple[Sequence[int] | np.ndarray, ...]] | None = field(
        default=None, repr=False, compare=False
    )
    """Gives (firsts, lasts, sizes): the original spans ``[firsts[i], lasts[i])`` the reading
    does not copy character for character, in order, read as ``sizes[i]`` characters; every
    other character is read as exactly one character (None: none)."""

    @cached_property
    def segments(self) -> Segments:
        """The map as arrays (one vectorised pass over ``cuts``, with as few temporary arrays as
        it needs: a text with a cut every few characters has hundreds of thousands)."""
        firsts, lasts, sizes = self.cuts() if self.cuts is not None else ((), (), ())
        n = len(firsts)
        # segments: copied stretch 0, cut 1, copied stretch 1, …, copied stretch n
        ends = np.empty(2 * n + 1, np.int64)
        ends[0:-1:2], ends[1::2], ends[-1] = firsts, lasts, len(self.source)
        origins = np.empty(2 * n + 1, np.int64)
        origins[0], origins[1:] = 0, ends[:-1]
        size = ends - origins
        size[1::2] = sizes
        exact = np.ones(2 * n + 1, bool)
        exact[1::2] = False
        keep = size > 0
        starts = np.cumsum(size)
        starts -= size
        if keep.all():
            return Segments(starts, origins, ends, exact)
        if not keep.any():
            zero = np.zeros(1, np.int64)
            return Segments(zero, zero, zero, np.ones(1, bool))
        return Segments(starts[keep], origins[keep], ends[keep], exact[keep])

    @cached_property
    def _lists(self) -> tuple[list[int], list[int], list[int], list[bool]]:
        starts, origins, ends, exact = self.segments
        return starts.tolist(), origins.tolist(), ends.tolist(), exact.tolist()

    @property
    def starts(self) -> list[int]:
        """Where each segment starts in the reading."""
        return self._lists[0]

    @property
    def origins(self) -> list[int]:
        """Where each segment starts in the original."""
        return self._lists[1]

    @property
    def ends(self) -> list[int]:
        """Where each segment ends in the original."""
        return self._lists[2]

    @property
    def exact(self) -> list[bool]:
        """Whether each segment maps character for character."""
        return self._lists[3]

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

    def spans(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``span`` of many canonical ``[starts[i], ends[i])`` at once (arrays of the original
        starts and ends)."""
        return self._origins(starts)[0], self._origins(ends - 1)[1]

    def _origins(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``origin`` of many canonical characters at once."""
        starts, origins, ends, exact = self.segments
        k = np.searchsorted(starts, index, "right") - 1
        exactly = exact[k]
        at = origins[k] + index - starts[k]
        return np.where(exactly, at, origins[k]), np.where(exactly, at + 1, ends[k])

    def spellings(
        self, spans: Iterable[tuple[int, int]] | np.ndarray, sample: int = 1000
    ) -> set[str]:
        """How the canonical ``(start, end)`` spans (pairs, or an array of them) were spelled in
        the original: ``raw`` for a span written as the parser reads it, else what disguised it
        (``SPELLINGS``); the first ``sample`` disguised spans stand for all (bounded work)."""
        if self.text == self.source:
            return {"raw"}
        found: set[str] = set()
        disguised: list[str] = []
        pairs = np.array(spans if isinstance(spans, np.ndarray) else list(spans), np.int64)
        pairs = pairs.reshape(-1, 2)
        # vectorised, stopping after the sample: a first chunk of ``sample`` spans (enough where
        # most are disguised), then chunks of ``4 * sample``
        bounds = [0, *range(sample, len(pairs), 4 * sample), len(pairs)]
        for chunk, after in pairwise(bounds):
            first, last = pairs[chunk:after].T
            lo, hi = self.spans(first, last)
            written = list(map(self.source.__getitem__, map(slice, lo.tolist(), hi.tolist())))
            read = map(self.text.__getitem__, map(slice, first.tolist(), last.tolist()))
            same = list(map(str.__eq__, written, read))
            other = [k for k, s in enumerate(same) if not s][: sample - len(disguised)]
            if len(disguised) + len(other) >= sample:  # the spans after the sample's last: unread
                same = same[: other[-1] + 1]
            if any(same):
                found.add("raw")
            disguised += [written[k] for k in other]
            if len(disguised) >= sample:
                break
        if disguised:
            joined = "\n".join(disguised)
            if any(_decoded(m.group(0)) is not None for m in ENTITY.finditer(joined)):
                found.add("entity")
            rest = ENTITY.sub("", joined)
            if self.reading == "rendered" and (
                _TAG.search(rest)
                or "<!--" in rest
                or "\\" in rest  # a backslash escape or LaTeX command, read away
                or any(ch in _MARKUP for ch in rest)
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


def canonical(
    text: str, reading: Reading = "plain", entities: EntityReads | None = None
) -> Canonical:
    """``text`` as read in ``reading`` (module docstring), with the map back to the original;
    ``entities``: what the readings of this text before it found its entities read as."""
    if reading == "raw":
        return Canonical(text, text, reading)
    if reading == "rendered" and _escapes_and_markup_only(text):
        return _rendered_ascii(text)
    folds = _FOLDS[reading]
    closable = reading == "rendered" and "<!--" in text and "-->" in text
    codes = code_points(text) if len(text) >= LONG_TEXT and not text.isascii() else None
    if (
        codes is not None and not closable and 4 * np.count_nonzero(codes > 0x7F) >= len(codes)
    ):  # many runs of dropped or expanding characters: every character folded by arrays
        return _folded_around_tokens(text, codes, reading, folds, entities or EntityReads())
    odd = _odd_characters(text, reading, codes)  # few: split them out
    if not closable and "&" not in text:
        # a token reads the same wherever it stands: one split, a read per distinct token
        parts = _split(text, reading, odd)
        tokens = parts[1::2]
        if not text.isascii():  # an ASCII character outside the tokens reads as itself
            ends = list(accumulate(map(len, parts)))
            gaps = map(slice, [0, *ends[1::2]], ends[0::2])
            parts[0::2] = map(_one_to_one(text, folds).__getitem__, gaps)
        parts[1::2] = map(_Reads(folds).__getitem__, tokens)
        return Canonical("".join(parts), text, reading, partial(_split_cuts, tokens, parts))
    if not closable:
        apart = _beside_ampersand(text, odd, folds)
        reads = entities or EntityReads()
        return _tokens_and_entities(text, reading, odd, folds, reads, apart, codes)
    # one token after another: a comment hides what follows up to its end
    firsts, lasts, pieces = _events(text, reading, _scanner(reading, odd, closable, True))
    read = text if text.isascii() else _one_to_one(text, folds)
    copied = list(map(read.__getitem__, map(slice, [0, *lasts], [*firsts, len(text)])))
    joined: list[str] = [""] * (2 * len(pieces) + 1)
    joined[0::2], joined[1::2] = copied, pieces
    sizes = list(map(len, pieces))
    return Canonical("".join(joined), text, reading, lambda: (firsts, lasts, sizes))


def _tokens_and_entities(
    text: str,
    reading: Reading,
    odd: str,
    folds: _FoldTable,
    entities: EntityReads,
    apart: bool = False,
    codes: np.ndarray | None = None,
) -> Canonical:
    """The reading of a text where every token (a run of dropped or expanding characters, a
    tag, a LaTeX command) and every entity reads the same wherever it stands: one split finds
    them all, and what each shows is worked out once per distinct token and looked up by its
    number, so a token every few characters costs no Python step of its own. An entity
    candidate is split at its first character that no HTML5 name holds (what decodes and what
    it consumes do not change; a token may start there). Where ``apart``, a run beside an
    ``&`` is cut character by character (``_apart_beside_ampersand``); ``codes``: the text's
    code points, where already worked out."""
    parts = _token_scanner(reading, odd).split(text)
    if apart:
        parts = _apart_beside_ampersand(parts)
    ids, consumed, size, shown, offsets, shows, lengths = _split_reads(parts, folds, entities)
    origins = lengths.cumsum() - lengths
    # the reading gathered from one pool: the text folded one for one, then every show
    pool = np.concatenate([_one_to_one_codes(text, folds, codes), code_points(shows)])
    starts = np.empty(len(parts), np.int64)
    starts[0::2] = origins[0::2]
    starts[1::2] = offsets[ids] + len(text)
    sizes = lengths.copy()
    sizes[1::2] = shown[ids]
    reading_text = _gathered(pool, starts, sizes)
    chosen = np.flatnonzero(consumed[ids] > 0)
    firsts = origins[1::2][chosen]
    chosen_ids = ids[chosen]

    def cuts() -> tuple[np.ndarray, ...]:
        return firsts, firsts + consumed[chosen_ids], size[chosen_ids]

    return Canonical(reading_text, text, reading, cuts)


def _gathered(pool: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> str:
    """The code points ``pool[starts[i]:starts[i] + sizes[i]]`` one after another, as text:
    one gather, by 32-bit positions where they fit (half the memory to fill and read)."""
    total = int(sizes.sum())
    index = np.int32 if max(len(pool), total) < 2**31 else np.int64
    at = np.repeat((starts - (sizes.cumsum() - sizes)).astype(index), sizes)
    at += np.arange(total, dtype=index)
    return pool[at].astype("<u4", copy=False).tobytes().decode("utf-32-le", "surrogatepass")


class _SplitReads(NamedTuple):
    """What the tokens of a split (copied text and tokens, alternating) read as."""

    ids: np.ndarray
    """Each token's number among the distinct tokens, in order of first appearance."""
    consumed: np.ndarray
    """By number: how many characters the token's read consumes (0: an entity candidate that
    does not decode)."""
    size: np.ndarray
    """By number: how long the read is."""
    shown: np.ndarray
    """By number: how long its show (``_TokenReads``) is."""
    offsets: np.ndarray
    """By number: where its show starts in ``shows``."""
    shows: str
    """Every show, joined."""
    lengths: np.ndarray
    """The length of each part as written."""


def _split_reads(parts: list[str], folds: _FoldTable, entities: EntityReads) -> _SplitReads:
    """The reads of the tokens of ``parts``, worked out once per distinct token and looked up
    by its number (a token every few characters costs no Python step of its own)."""
    number: dict[str, int] = {}  # each distinct token's number, in order of first appearance
    ids = np.fromiter(
        [number.setdefault(token, len(number)) for token in parts[1::2]], np.int64, len(parts) // 2
    )
    distinct = list(number)
    written = np.fromiter(map(len, distinct), np.int64, len(distinct))
    consumed, size, shown, offsets, shows = _token_reads(distinct, written, folds, entities)
    lengths = np.empty(len(parts), np.int64)  # copied stretch, token, copied stretch, …
    lengths[0::2] = np.fromiter(map(len, parts[0::2]), np.int64, len(ids) + 1)
    lengths[1::2] = written[ids]
    return _SplitReads(ids, consumed, size, shown, offsets, shows, lengths)


def _folded_around_tokens(
    text: str, codes: np.ndarray, reading: Reading, folds: _FoldTable, entities: EntityReads
) -> Canonical:
    """The reading of a text with no comment to close (``codes``: its code points), read as
    ``_tokens_and_entities`` reads it where ``apart``, with only the entity candidates, tags
    and LaTeX commands split out (read once per distinct token) and every other character
    read as its fold in array steps: a text of many distinct runs of dropped or expanding
    characters costs no step per run. A run's character never starts nor ends inside such a
    token, so the runs are the maximal stretches of those characters between the tokens (cut
    whole); a run that an ``&`` outside a token touches is cut character by character."""
    parts = _entities_tags_and_latex(reading).split(text)
    ids, consumed, read_size, shown, offsets, shows, lengths = _split_reads(parts, folds, entities)
    origins = lengths.cumsum() - lengths
    token_at = origins[1::2]
    n = len(codes)
    inside = np.repeat(np.arange(len(parts)) % 2 == 1, lengths)  # in a token
    reads = folds.codes.of(codes)
    one = reads < CODE_POINTS
    size = np.where(one & ~inside, 1, 0)
    longer_at = np.flatnonzero((reads == LONGER) & ~inside)
    longer = [folds.codes.longer[code] for code in codes[longer_at].tolist()]
    size[longer_at] = np.fromiter(map(len, longer), np.int64, len(longer))
    size[token_at] = shown[ids]
    # the reading gathered from one pool: one-character folds, longer folds, token shows
    start = np.arange(n)
    start[longer_at] = n + size[longer_at].cumsum() - size[longer_at]
    start[token_at] = n + len("".join(longer)) + offsets[ids]
    pool = np.concatenate(
        [np.where(one, reads, 0), code_points("".join(longer)), code_points(shows)]
    )
    reading_text = _gathered(pool, start, size)

    def cuts() -> tuple[np.ndarray, ...]:
        cut = ~one & ~inside
        edges = np.flatnonzero(np.diff(np.concatenate([[0], cut.view(np.int8), [0]])))
        firsts, lasts = edges[0::2], edges[1::2]
        ampersand = codes == ord("&")
        before = firsts > 0
        before[before] = ampersand[firsts[before] - 1] & ~inside[firsts[before] - 1]
        touched = before | np.append(ampersand, False)[lasts]
        total = np.concatenate([[0], size.cumsum()])
        last = np.zeros(n + 1, np.int64)  # where each cut starting here ends, and its size
        cut_size = np.zeros(n + 1, np.int64)
        whole = ~touched
        last[firsts[whole]] = lasts[whole]
        cut_size[firsts[whole]] = total[lasts[whole]] - total[firsts[whole]]
        run = np.zeros(n + 1, np.int8)  # the characters of the touched runs, one cut each
        np.add.at(run, firsts[touched], 1)
        np.add.at(run, lasts[touched], -1)
        apart = np.flatnonzero(np.cumsum(run)[:n])
        last[apart], cut_size[apart] = apart + 1, size[apart]
        read = np.flatnonzero(consumed[ids] > 0)
        last[token_at[read]] = token_at[read] + consumed[ids[read]]
        cut_size[token_at[read]] = read_size[ids[read]]
        at = np.flatnonzero(last)
        return at, last[at], cut_size[at]

    return Canonical(reading_text, text, reading, cuts)


@lru_cache(maxsize=2)
def _entities_tags_and_latex(reading: Reading) -> re.Pattern[str]:
    """The token scanner's pattern without runs: entity candidates and, for the rendered
    reading, tags and LaTeX commands (no comments: none can close)."""
    if reading == "plain":
        return re.compile(f"(&{_ENTITY_NAME})")
    latex = _LATEX.pattern.removeprefix("\\\\")
    return re.compile(f"([&<\\\\](?:(?<=&){_ENTITY_NAME}|(?<=<){_TAG_START}|(?<=\\\\){latex}))")


def _apart_beside_ampersand(parts: list[str]) -> list[str]:
    """``parts`` (copied text and tokens, alternating) with each run of dropped or expanding
    characters that an ``&`` touches cut into its characters: a reader meets that ``&`` first
    and reads on from it a character at a time (``_events``). Only the ``&`` at the end of
    such a stretch can decode (a name or number never holds a run's character), so the
    entity candidates and the other tokens stay as split; an ``&`` that a LaTeX escape
    (``\\&``) consumed touches nothing."""
    gaps, tokens = parts[0::2], parts[1::2]
    after = [*tokens[1:], ""]
    touched = [
        k
        for k, (token, before, gap, following) in enumerate(zip(tokens, gaps, gaps[1:], after))
        if len(token) > 1
        and token[0] not in "&<\\"
        and (before[-1:] == "&" or gap[:1] == "&" or (not gap and following[:1] == "&"))
    ]
    if not touched:
        return parts
    out: list[str] = []
    done = 0
    for k in touched:
        out += parts[done : 2 * k + 1]
        characters = [""] * (2 * len(tokens[k]) - 1)
        characters[0::2] = tokens[k]
        out += characters
        done = 2 * k + 2
    out += parts[done:]
    return out


_ENTITY_NAME = r"(?:#[0-9]++;?|#[xX][0-9a-fA-F]++;?|[0-9A-Za-z]{1,32}+;?)"
"""What follows the ``&`` of an entity candidate: ``ENTITY`` with a name cut at its first
character no HTML5 name holds."""


@lru_cache(maxsize=256)
def _token_scanner(reading: Reading, odd: str) -> _Scanner:
    """``_scanner(reading, odd, False, False)`` that also finds entity candidates (an ``&``
    starts no other token, and no character of a candidate starts one)."""
    return _scanner(reading, odd, False, False, entities=True)


def _token_reads(
    tokens: list[str], written: np.ndarray, folds: _FoldTable, entities: EntityReads
) -> _TokenReads:
    """What each distinct token (``written``: their lengths) reads as: the entity candidates
    read together (``_entity_reads``), every other token by its own read, their shows joined
    with the candidates' first (no table of objects: a text of distinct candidates and one
    tag has as many candidates as tokens)."""
    entity = _characters_at(tokens, written, 0) == ord("&")
    if entity.all():
        consumed, size, shows, shown = _entity_reads(tokens, written, folds, entities)
        return _TokenReads(consumed, size, shown, shown.cumsum() - shown, "".join(shows))
    is_entity = entity.tolist()
    candidates = list(compress(tokens, is_entity))
    reads = list(map(_Reads(folds).__getitem__, compress(tokens, map(operator.not_, is_entity))))
    read_size = np.fromiter(map(len, reads), np.int64, len(reads))
    order = np.concatenate([np.flatnonzero(entity), np.flatnonzero(~entity)])
    consumed, size, shown = written.copy(), np.empty_like(written), np.empty_like(written)
    candidate_shows: list[str] = []
    if candidates:
        taken, read, candidate_shows, showing = _entity_reads(
            candidates, written[entity], folds, entities
        )
        consumed[entity], size[entity], shown[entity] = taken, read, showing
    size[~entity] = shown[~entity] = read_size
    offsets = np.empty_like(written)  # shows joined: the candidates' first, then the others'
    offsets[order] = shown[order].cumsum() - shown[order]
    return _TokenReads(consumed, size, shown, offsets, "".join(candidate_shows + reads))


def _characters_at(tokens: list[str], lengths: np.ndarray, place: int) -> np.ndarray:
    """The code of each token's character at ``place`` (``lengths``: the tokens', each longer
    than ``place``), from the codes of the tokens joined (no step per token)."""
    return code_points("".join(tokens))[lengths.cumsum() - lengths + place]


class _TokenReads(NamedTuple):
    """What the distinct tokens of a split read as, by number."""

    consumed: np.ndarray
    """How many characters the token's read consumes (0: an entity candidate that does not
    decode)."""
    size: np.ndarray
    """How long the read is."""
    shown: np.ndarray
    """How long its show is (what the reading shows in its place: for an entity candidate, its
    read and what it leaves unread, or the candidate as written)."""
    offsets: np.ndarray
    """Where its show starts in ``shows``."""
    shows: str
    """Every show, joined."""


def _entity_reads(
    candidates: list[str], written: np.ndarray, folds: _FoldTable, entities: EntityReads
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Of each distinct entity candidate (``written``: their lengths): how many characters its
    read consumes (0: it does not decode), how long the read is, what it shows and how long
    that is (``_EntityTable``)."""
    table = entities.table(candidates, folds, written)
    return table.consumed, table.size, table.shows, table.shown


class _EntityTable(NamedTuple):
    """What each distinct entity candidate of a text reads as in one reading."""

    candidates: list[str]
    folds: _FoldTable
    consumed: np.ndarray
    reads: list[str]
    size: np.ndarray
    """How long each read is."""
    shows: list[str]
    """What the reading shows for each candidate (ASCII: its characters as written): its read
    and what the read leaves unread, or the candidate as written where it does not decode."""
    shown: np.ndarray
    """How long each show is."""

    @staticmethod
    def of(
        candidates: list[str],
        folds: _FoldTable,
        consumed: np.ndarray,
        reads: list[str],
        lengths: np.ndarray,
    ) -> _EntityTable:
        """The table of ``candidates`` (``lengths``: theirs) from what their reads consume and
        the reads."""
        size = np.fromiter(map(len, reads), np.int64, len(reads))
        if (consumed == lengths).all():  # every candidate read whole (numeric ones always are)
            return _EntityTable(candidates, folds, consumed, reads, size, reads, size)
        took = consumed.tolist()
        shows = [r + w[c:] if c else w for r, w, c in zip(reads, candidates, took)]
        shown = np.where(consumed > 0, size + lengths - consumed, lengths)
        return _EntityTable(candidates, folds, consumed, reads, size, shows, shown)


class EntityReads:
    """What the entity candidates of a text read as, kept from one of its readings for the
    next: the readings of one text find the same candidates (but where a tag or a LaTeX
    escape holds one), so a later reading compares their lists instead of reading every
    candidate again, and the rendered reading takes the plain reading's reads but those
    holding a markup character (``_FoldTable``: the two folds differ only there). One per
    text, for its readings in one thread."""

    def __init__(self) -> None:
        self._last: _EntityTable | None = None

    def table(self, candidates: list[str], folds: _FoldTable, lengths: np.ndarray) -> _EntityTable:
        """``_entity_table`` of the distinct ``candidates`` (``lengths``: theirs) folded by
        ``folds`` (kept, with the list, until the next call: the caller leaves the list as it
        is)."""
        last = self._last
        if last is not None and last.candidates == candidates:
            if last.folds is folds:
                return last
            if last.folds is _FOLDS["plain"] and folds is _FOLDS["rendered"]:
                reads = _rendered_reads(last.reads, candidates)
                if reads is last.reads:  # no read holds a markup character: the same shows
                    self._last = table = last._replace(folds=folds)
                else:
                    table = _EntityTable.of(candidates, folds, last.consumed, reads, lengths)
                    self._last = table
                return table
        consumed, reads = _entity_table(candidates, folds, lengths)
        self._last = table = _EntityTable.of(candidates, folds, consumed, reads, lengths)
        return table


def _rendered_reads(plain: list[str], candidates: list[str]) -> list[str]:
    """The rendered reading's reads of the ``candidates`` from the plain reading's: the same
    but where one holds a markup character, read again (the plain fold keeps a markup
    character as itself, and the rendered fold differs from it only on those, which it drops:
    a plain read without one is the rendered read)."""
    joined = "".join(plain)
    if _MARKUP_CHARACTER.search(joined) is None:
        return plain
    ends = np.fromiter(map(len, plain), np.int64, len(plain)).cumsum()
    marked = np.flatnonzero(np.isin(code_points(joined), _MARKUP_CODES))
    holding = np.searchsorted(ends, marked, "right")  # ascending: the read holding each one
    again = distinct_values(holding, ascending=True).tolist()
    reads = list(plain)
    _, fresh = _entity_table([candidates[k] for k in again], _FOLDS["rendered"])
    for k, read in zip(again, fresh):
        reads[k] = read
    return reads


_MARKUP_CHARACTER = re.compile(f"[{re.escape(''.join(sorted(_MARKUP)))}]")
_MARKUP_CODES = np.array(sorted(map(ord, _MARKUP)), np.uint32)


def _entity_table(
    entities: list[str], folds: _FoldTable | None, lengths: np.ndarray | None = None
) -> tuple[np.ndarray, list[str]]:
    """Of each entity candidate (``lengths``: theirs, where worked out): how many characters
    its read consumes (0: it does not decode) and what it reads as, folded by ``folds`` where
    given (``""`` where it does not decode), in bulk (a text of distinct entities,
    ``&#1&#2…``, costs no call per entity)."""
    if lengths is None:
        lengths = np.fromiter(map(len, entities), np.int64, len(entities))
    numeric = _characters_at(entities, lengths, 1) == ord("#")
    if numeric.all():
        return lengths, _numeric_references(entities, _references(folds), lengths)
    if not numeric.any():
        return _named_table(entities, folds)
    consumed = lengths.copy()  # numeric candidates are read whole
    reads = np.empty(len(entities), object)
    numbers = list(compress(entities, numeric.tolist()))
    reads[numeric] = _numeric_references(numbers, _references(folds), lengths[numeric])
    named = ~numeric
    consumed[named], reads[named] = _named_table(list(compress(entities, named.tolist())), folds)
    return consumed, reads.tolist()


def _references(folds: _FoldTable | None) -> _CharacterReferences:
    return _CHARACTER_REFERENCES if folds is None else folds.references


def _named_table(entities: list[str], folds: _FoldTable | None) -> tuple[np.ndarray, list[str]]:
    """``_entity_table`` of named candidates."""
    took, keys = _named_references(entities)
    names = {key: html5[key] for key in set(keys) if key} | {"": ""}
    if folds is not None:
        names = {key: read.translate(folds) for key, read in names.items()}
    return took, list(map(names.__getitem__, keys))


_BARE_NAMES = frozenset(name for name in html5 if not name.endswith(";"))
"""The HTML5 names allowed without their semicolon: the only names a candidate's proper prefix
can be (it never holds a semicolon)."""
_LONGEST_BARE_NAME = max(map(len, _BARE_NAMES))


class _BarePrefixes(dict[str, tuple[int, str]]):
    """The longest bare name a name not in HTML5 starts with, by the name's head
    (``_bare_head``: all that decides it): (how many characters its read consumes, the name;
    ``(0, "")`` for none)."""

    def __missing__(self, head: str) -> tuple[int, str]:
        value = (0, "")
        for size in range(min(len(head) - 1, _LONGEST_BARE_NAME), 1, -1):
            if head[:size] in _BARE_NAMES:  # a proper prefix: the name goes on after it
                value = (size + 1, head[:size])
                break
        self[head] = value
        return value


_SHORT_HEAD = 4
"""A name whose first four characters start no bare name of four or more is decided by them
(a proper prefix of it that is a bare name has at most three characters)."""
_LONG_STARTS = frozenset(name[:_SHORT_HEAD] for name in _BARE_NAMES if len(name) >= _SHORT_HEAD)
"""The first four characters of the bare names of four characters or more."""


def _named_references(entities: list[str]) -> tuple[np.ndarray, list[str]]:
    """Of each named entity candidate (``&gt``, ``&notit;``): how many characters its read
    consumes (0: none) and the HTML5 name read (``""`` where none): the whole name, else the
    longest name it starts with (``&gtA`` reads ``&gt``), in bulk: a name not in HTML5 is read
    once per distinct head (its first four characters where no longer bare name starts so,
    else its first ``_LONGEST_BARE_NAME + 1``), so ``&amp1&amp2…`` costs ten reads."""
    names = [entity[1:] for entity in entities]
    took = [len(e) if known else 0 for e, known in zip(entities, map(html5.__contains__, names))]
    keys = [name if t else "" for name, t in zip(names, took)]
    unread = [k for k, (t, e) in enumerate(zip(took, entities)) if not t and len(e) > 3]
    heads = [names[k][:_SHORT_HEAD] for k in unread]
    for k in compress(range(len(heads)), map(_LONG_STARTS.__contains__, heads)):
        heads[k] = names[unread[k]][: _LONGEST_BARE_NAME + 1]
    for k, (consumed, key) in zip(unread, map(_BarePrefixes().__getitem__, heads)):
        took[k], keys[k] = consumed, key
    return np.array(took, np.int64), keys


def _one_to_one(text: str, folds: _FoldTable) -> str:
    """``text`` with every character the reading reads as one character replaced by it (the
    others, which the reading cuts out, kept): one array pass and a read per distinct character,
    where ``str.translate`` looks each character up."""
    return _one_to_one_codes(text, folds).tobytes().decode("utf-32-le", "surrogatepass")


def _one_to_one_codes(text: str, folds: _FoldTable, codes: np.ndarray | None = None) -> np.ndarray:
    """The code points of ``_one_to_one(text, folds)`` (``codes``: those of ``text``, where
    already worked out)."""
    codes = code_points(text) if codes is None else codes
    wide = np.flatnonzero(codes > 0x7F)
    if not len(wide):
        return codes
    reads = folds.codes.of(codes[wide])
    one = reads < CODE_POINTS
    out = codes.copy()
    out[wide[one]] = reads[one]
    return out


def _split_cuts(tokens: list[str], parts: list[str]) -> tuple[np.ndarray, ...]:
    """The cuts of a split (``parts``: copied text and token reads, alternating), as arrays."""
    n = len(tokens)
    written = np.empty(2 * n, np.int64)  # copied stretch, token, copied stretch, token, …
    written[0::2] = np.fromiter(map(len, parts[0:-1:2]), np.int64, n)
    written[1::2] = np.fromiter(map(len, tokens), np.int64, n)
    bounds = np.cumsum(written)
    return bounds[0::2], bounds[1::2], np.fromiter(map(len, parts[1::2]), np.int64, n)


def _beside_ampersand(text: str, odd: str, folds: _FoldTable) -> bool:
    """Whether an ``&`` touches two characters the reading drops or expands, one of which
    expands: only there does reading a run a character at a time (as a run holding an ``&``
    is read) give another map than reading it whole."""
    if not (folds.codes.of(code_points(odd)) == LONGER).any():
        return False  # runs of dropped characters read as nothing either way
    return _touching(odd).search(text)


@lru_cache(maxsize=256)
def _touching(odd: str) -> _Scanner:
    narrow, astral = _narrowed(odd)
    run = f"[{re.escape(narrow)}]"
    return _Scanner(re.compile(f"{run}{{2}}&|&{run}{{2}}"), astral)


class _Scanner:
    """A pattern over a text whose odd characters beyond the Basic Multilingual Plane
    (``astral``: sorted codes) all stand as the first of them: the regular-expression engine
    tries a class's characters beyond that plane one by one at every character of a text (a
    text of thousands of distinct ones would cost seconds per megabyte), while those in it
    are one bitmap. Nothing but the class tells such characters apart, so the stand-in text
    has the same tokens at the same places; what they hold is read from the text itself."""

    def __init__(self, pattern: re.Pattern[str], astral: np.ndarray) -> None:
        self.pattern, self.astral = pattern, astral

    def _stand_in(self, text: str) -> str:
        if len(self.astral) < 2 or text.isascii():
            return text
        codes = code_points(text)
        wide = np.flatnonzero(codes > 0xFFFF)
        found = np.minimum(np.searchsorted(self.astral, codes[wide]), len(self.astral) - 1)
        hit = wide[self.astral[found] == codes[wide]]
        if not len(hit):
            return text
        codes = codes.copy()
        codes[hit] = self.astral[0]
        return codes.tobytes().decode("utf-32-le", "surrogatepass")

    def split(self, text: str) -> list[str]:
        """``re.Pattern.split`` (tokens kept)."""
        stand_in = self._stand_in(text)
        parts = self.pattern.split(stand_in)
        if stand_in is text:
            return parts
        bounds = [0, *accumulate(map(len, parts))]
        return list(map(text.__getitem__, map(slice, bounds[:-1], bounds[1:])))

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer`` over the stand-in text: the matches' spans are the tokens'
        in ``text`` (what a token holds is read from ``text`` at its span)."""
        return self.pattern.finditer(self._stand_in(text))

    def search(self, text: str) -> bool:
        """Whether the pattern occurs in ``text``."""
        return self.pattern.search(self._stand_in(text)) is not None


def _narrowed(odd: str) -> tuple[str, np.ndarray]:
    """``odd`` with only the first of its characters beyond the Basic Multilingual Plane, and
    the codes of all those (``_Scanner``)."""
    if odd.isascii() or max(odd) <= "\uffff":
        return odd, np.zeros(0, np.uint32)
    astral = np.sort(code_points("".join(c for c in odd if c > "\uffff")))
    return "".join(c for c in odd if c <= "\uffff") + chr(astral[0]), astral


def _odd_characters(text: str, reading: Reading, codes: np.ndarray | None = None) -> str:
    """The characters of ``text`` (``&`` aside) that the ``reading`` drops or expands
    (``codes``: its code points, where already worked out)."""
    odd = _ASCII_ODD[reading]
    if text.isascii():
        return odd
    marks = _ODD[reading]
    if len(text) < LONG_TEXT:
        return odd + "".join(sorted(c for c in set(text) if c > "\x7f" and marks[ord(c)] == "\x00"))
    wide = code_points(text) if codes is None else codes
    wide = wide[wide > 0x7F]
    distinct = distinct_values(wide[_FOLDS[reading].codes.of(wide) >= DROPPED]).astype(np.int64)
    _FOLDS[reading].learn(distinct)  # str.translate finds them without a call each
    distinct = distinct.tolist()
    return odd + "".join(map(chr, distinct))


_ASCII_ODD = {
    r: "".join(c for c in map(chr, range(128)) if c != "&" and _ODD[r][ord(c)] == "\x00")
    for r in ("plain", "rendered")
}
_TAG_START = (
    "(?=[/A-Za-z\u0130\u0131\u017f\u212a])(?i:/?(?:" + _TAG.pattern.split("(?:", 1)[1] + ")"
)
"""``_TAG`` after its ``<``, first checking for a character a tag name can start with (one that
matches a name's letter, case ignored), so a run of ``<`` is scanned at C speed."""


@lru_cache(maxsize=256)
def _scanner(
    reading: Reading, odd: str, comments: bool, ampersand: bool, entities: bool = False
) -> _Scanner:
    """One pattern for every place ``reading`` does not copy a character: a run of dropped or
    expanding characters (with ``&`` where ``ampersand``), for the rendered reading a tag,
    LaTeX command or (where one can close) a comment opening, and where ``entities`` an entity
    candidate. Tokens start with ``<``, ``\\`` or ``&``, never a run's character, so scanning
    them together finds what scanning each alone finds. The pattern starts with the class of
    every token's first character and then goes on by that character (checked behind it), so
    the scan passes over any other character at C speed."""
    narrow, astral = _narrowed(odd)
    chars = f"{re.escape(narrow)}{'&' if ampersand else ''}"
    if reading == "plain" and not entities:
        return _Scanner(re.compile(f"([{chars}]++)"), astral)
    entity = f"(?<=&){_ENTITY_NAME}|" if entities else ""
    if reading == "plain":
        return _Scanner(re.compile(f"([&{chars}](?:{entity}(?<=[{chars}])[{chars}]*+))"), astral)
    opening = f"(?:!--|{_TAG_START})" if comments else _TAG_START
    latex = _LATEX.pattern.removeprefix("\\\\")
    first = f"<\\\\{'&' if entities else ''}{chars}"
    return _Scanner(
        re.compile(
            f"([{first}](?:{entity}(?<=<){opening}|(?<=\\\\){latex}|(?<=[{chars}])[{chars}]*+))"
        ),
        astral,
    )


def _split(text: str, reading: Reading, odd: str) -> list[str]:
    """``_scanner(reading, odd, False, False).split(text)``: copied stretches and tokens,
    alternating. The plain reading's tokens are the maximal runs of ``odd`` characters: in a
    long text, found from its codes in a few array passes (a regular expression tests the
    character class at every character, at about twice the cost)."""
    if reading != "plain" or len(text) < LONG_TEXT:
        return _scanner(reading, odd, False, False).split(text)
    return _runs_split(text, odd)


LONG_TEXT = 4096
"""Texts from this length are read by array operations (below, the regular expressions and
per-character steps are faster)."""


def code_points(text: str) -> np.ndarray:
    """The code points of ``text`` (lone surrogates included), one array pass."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _runs_split(text: str, odd: str) -> list[str]:
    """``text`` split at the maximal runs of ``odd`` characters (kept), from its codes."""
    codes = code_points(text)
    marked = np.zeros(0x110000, bool)  # by code point
    marked[np.fromiter(map(ord, odd), np.int64, len(odd))] = True
    inside = np.concatenate([[False], marked[codes], [False]])
    edges = np.flatnonzero(inside[1:] != inside[:-1])  # a run starts, ends, starts, …
    bounds = [0, *edges.tolist(), len(text)]
    return list(map(text.__getitem__, map(slice, bounds[:-1], bounds[1:])))


class _Reads(dict[str, str]):
    """What each distinct token reads as (a run folded, a tag hidden, a LaTeX sign read)."""

    def __init__(self, folds: _FoldTable) -> None:
        super().__init__()
        self.folds = folds

    def __missing__(self, token: str) -> str:
        value = self[token] = _read(token).translate(self.folds)
        return value


def _read(token: str) -> str:
    """What a rendering reader shows for a tag, comment or LaTeX command, else the token."""
    if token[0] == "<":
        return ""
    if token[0] == "\\":
        return _LATEX_SIGNS.get(token, token[1:] if len(token) == 2 else "")
    return token


def _events(
    text: str, reading: Reading, scanner: _Scanner
) -> tuple[list[int], list[int], list[str]]:
    """(starts, ends, reads) of the original spans the reading does not copy, in order: the
    general case, where an entity reads over the characters after its ``&`` and a comment
    hides everything up to its end."""
    folds = _FOLDS[reading]
    firsts: list[int] = []
    lasts: list[int] = []
    pieces: list[str] = []
    pos = 0
    closes: list[int] | None = None  # where comments end, found once
    for match in scanner.finditer(text):
        first, last = match.span()
        if last <= pos:
            continue
        token = text[first:last]
        head = token[0]
        if head == "<" or head == "\\":
            if first < pos:
                continue
            if token == "<!--":
                if closes is None:
                    closes = [m.start() for m in re.finditer("-->", text)]
                k = bisect_left(closes, first + 4)
                if k == len(closes):
                    continue  # never closed: shown as written
                last = closes[k] + 3
            firsts.append(first)
            lasts.append(last)
            pieces.append(_read(token).translate(folds))
            pos = last
            continue
        if first < pos:  # a run a comment ends inside
            first, token = pos, text[pos:last]
        if "&" not in token:  # dropped or expanding characters only: one span for the run
            firsts.append(first)
            lasts.append(last)
            pieces.append(text[first:last].translate(folds))
            pos = last
            continue
        for at in range(first, last):
            if at < pos:  # inside an entity already read
                continue
            if text[at] == "&":
                entity = ENTITY.match(text, at)
                decoded = _decoded(entity.group(0)) if entity is not None else None
                if decoded is None:
                    pos = at + 1  # read as written
                    continue
                firsts.append(at)
                lasts.append(at + decoded[1])
                pieces.append(decoded[0].translate(folds))
                pos = at + decoded[1]
            else:
                firsts.append(at)
                lasts.append(at + 1)
                pieces.append(folds[ord(text[at])])
                pos = at + 1
    return firsts, lasts, pieces


def _escapes_and_markup_only(text: str) -> bool:
    """Whether the rendered reading of ``text`` cuts only backslash escapes (``\\[``) and runs
    of markup or control characters: ASCII with no ``&`` (entities), no ``<`` (tags, comments)
    and no backslash before a letter (a LaTeX command may start there)."""
    return (
        _ASCII_CUTS_READ_AS_NOTHING
        and text.isascii()
        and "&" not in text
        and "<" not in text
        and ("\\" not in text or _BACKSLASH_LETTER.search(text) is None)
    )


_BACKSLASH_LETTER = re.compile(r"\\[A-Za-z]")


def _ascii_table(value: Callable[[str], int]) -> np.ndarray:
    return np.array([value(chr(code)) for code in range(128)], np.int64)


_ESCAPED = _ascii_table(lambda ch: _LATEX.fullmatch("\\" + ch) is not None)
"""Whether a backslash before this character starts an escape."""
_ESCAPE_READ = _ascii_table(
    lambda ch: ord(read) if len(read := _read("\\" + ch).translate(_FOLDS["rendered"])) else -1
)
"""What an escape of this character reads as (a code, or -1 for nothing)."""
_CUT = _ascii_table(lambda ch: ch in _ASCII_ODD["rendered"]).astype(bool)
"""The characters the rendered reading cuts out (each reads as nothing, which
``_escapes_and_markup_only`` checks once)."""
_ASCII_CUTS_READ_AS_NOTHING = all(_FOLDS["rendered"][ord(c)] == "" for c in _ASCII_ODD["rendered"])


def _rendered_ascii(text: str) -> Canonical:
    """The rendered reading of a text ``_escapes_and_markup_only`` accepts, from array
    operations on its bytes (what the split path reads, token for token: a character after an
    escaping backslash is consumed, and a maximal run of markup or control characters not so
    consumed reads as nothing), so that a token every few characters costs no Python step."""
    codes = np.frombuffer(text.encode("ascii"), np.uint8)
    n = len(codes)
    backslash = np.flatnonzero(codes == 92)
    escapes = backslash[:0]
    if len(backslash):  # pairs from the start of each run of backslashes; an odd last escapes
        new_run = np.ones(len(backslash), bool)  # the character after it if that is escapable
        new_run[1:] = np.diff(backslash) > 1
        run_start = backslash[new_run][np.cumsum(new_run) - 1]
        paired = (backslash - run_start) % 2 == 0
        after = np.minimum(backslash + 1, n - 1)
        escapes = backslash[paired & (backslash + 1 < n) & _ESCAPED[codes[after]].astype(bool)]
    read = _ESCAPE_READ[codes[escapes + 1]]
    consumed = np.zeros(n + 1, bool)
    consumed[escapes] = consumed[escapes + 1] = True
    cut = np.append(_CUT[codes], False) & ~consumed
    edges = np.diff(cut.view(np.int8), prepend=np.int8(0))
    run_starts, run_ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    keep = ~(consumed | cut)[:n]
    shown = codes.copy()
    one = escapes[read >= 0] + 1
    shown[one] = read[read >= 0]
    keep[one] = True
    reading = shown[keep].tobytes().decode("ascii")

    def cuts() -> tuple[np.ndarray, ...]:
        if not len(run_starts):  # escapes only (or nothing)
            return escapes, escapes + 2, (read >= 0).astype(np.int64)
        if not len(escapes):
            return run_starts, run_ends, np.zeros(len(run_starts), np.int64)
        last = np.zeros(n + 1, np.int64)  # both, in order of where they start
        size = np.zeros(n + 1, np.int64)
        last[escapes], size[escapes] = escapes + 2, read >= 0
        last[run_starts] = run_ends
        firsts = np.flatnonzero(last)
        return firsts, last[firsts], size[firsts]

    return Canonical(reading, text, "rendered", cuts)
