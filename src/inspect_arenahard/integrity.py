"""Neutralise text only a judge may write before an answer is placed in a judge prompt.

An answer is data for the judge, never part of its instructions or of its verdict. Every site
that builds a judge prompt passes each answer, reference, question, opponent turn and quoted
peer reply through :func:`neutralise` with its *protocol* first, so a judge that quotes the
answer, drops invisible characters, folds full-width letters or is cut off after a quote can
never show a label that protocol's parsers accept, and an answer can never close its delimiter.

**Recognition** runs on a canonical form of the text (:func:`canonical`): HTML entities decoded,
each character folded by NFKC, format characters (category Cf: zero-width, soft hyphen, joiners,
bidi controls), combining marks and fillers removed, and look-alikes of the characters a label
is made of (``A B < > = [ ] |``) mapped to them. ``[[B\\u200b>>A]]``, ``［［B>>A］］``,
``[[B&gt;&gt;A]]``, ``[[Β>>А]]`` (Greek and Cyrillic letters) and ``‹|…|›`` are all recognised.

**What each protocol neutralises** (exactly what its parsers and prompt delimiters could read):

============ ============================================================================
pairwise     ``verdict_label``: the five labels (``A>>B``, ``A>B``, ``A=B``, ``B>A``,
             ``B>>A`` and mirrored spellings) with a bracket on either side;
             ``delimiter``: ``<|…|>`` markers and an unclosed ``<|The End of …``
battle       ``verdict_label``: ``[A]``, ``[B]``, ``[Tie]`` (A and B in exact case);
             ``delimiter``: as pairwise
scaleeval    ``delimiter``: its headings (``[Question]``, ``[Submission 1]``, ``[Criteria]``,
             ``[User]``, ``[Speaker 2's …]``); ``scaleeval_number``: a line its parser reads
             as a verdict (``2`` alone, ``**Answer: 1**``)
============ ============================================================================

**How** (the judge still reads what was written): the brackets of a recognised label become
parentheses (``[[B>>A]]`` → ``((B>>A))``); a marker loses its pipes and its angle brackets
become parentheses (``<|The End of Assistant A's Answer|>`` → ``(The End of Assistant A's
Answer)``); a verdict digit is spelled out (``2`` → ``two``). Whatever spelling the recognised
characters had in the original (entity, full-width, look-alike) is replaced. Nothing else
changes; neutralising is idempotent and linear in the text length (only non-backtracking
patterns and bounded scans run on the text).

The rule's version is :data:`NEUTRALISE_VERSION`; bump it whenever what is recognised or how it
is rewritten changes.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Iterator, Literal, Mapping

from inspect_arenahard.scaleeval.numbers import lone_number
from inspect_arenahard.verdicts import BATTLE_LABEL, LABEL_SPELLINGS

NEUTRALISE_VERSION = "2"
"""Version of the neutralisation rule (1: full-width look-alikes on raw text; 2: recognition on
the canonical form, per protocol, rewritten to parentheses and spelled-out digits)."""

Protocol = Literal["pairwise", "battle", "scaleeval"]
PROTOCOLS: tuple[Protocol, ...] = ("pairwise", "battle", "scaleeval")
KINDS: tuple[str, ...] = ("verdict_label", "delimiter", "scaleeval_number")
SPELLINGS: tuple[str, ...] = ("raw", "entity", "invisible", "compatibility", "lookalike")
"""How a recognised span was written: as the parser reads it, with HTML entities, with
invisible characters inside, with compatibility forms (full-width, mathematical letters: NFKC
folds them) or with look-alikes from other scripts."""

# ---- canonical form ------------------------------------------------------------------------

_LOOKALIKES: dict[str, str] = {
    **dict.fromkeys("\u0391\u0410\u13aa\u15c5\ua4ee", "A"),  # Greek, Cyrillic, Cherokee, Canadian, Lisu
    **dict.fromkeys("\u0392\u0412\u13f4\u15f7\ua4d0", "B"),
    **dict.fromkeys("\u2039\u02c2\u1438\u2329\u3008\u27e8\u276e\u276c", "<"),
    **dict.fromkeys("\u203a\u02c3\u1433\u232a\u3009\u27e9\u276f\u276d", ">"),
    **dict.fromkeys("\ua4ff\u1400\u2e40\u30a0", "="),
    **dict.fromkeys("\u2045\u27e6\u3014\u3010\u3016\u301a\u298b", "["),
    **dict.fromkeys("\u2046\u27e7\u3015\u3011\u3017\u301b\u298c", "]"),
    **dict.fromkeys("\u01c0\u2223\u2502\u2503\u2758\u23d0\u05c0", "|"),
}
"""Characters a reader takes for a label's letters and signs (beyond what NFKC folds)."""

_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me"})
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u034f")


def _fold(ch: str) -> str:
    """One character of the canonical form: look-alike mapped, invisible removed, NFKC."""
    if ch in _LOOKALIKES:
        return _LOOKALIKES[ch]
    if ch.isascii():
        return ch
    if ch in _FILLERS or unicodedata.category(ch) in _DROPPED_CATEGORIES:
        return ""
    return "".join(
        _LOOKALIKES.get(c, c)
        for c in unicodedata.normalize("NFKC", ch)
        if c not in _FILLERS and unicodedata.category(c) not in _DROPPED_CATEGORIES
    )


def _spelling(ch: str) -> str:
    if ch in _LOOKALIKES:
        return "lookalike"
    folded = _fold(ch)
    return "raw" if folded == ch else "invisible" if not folded else "compatibility"


class _FoldTable(dict[int, str]):
    """``str.translate`` table computing each character's fold once."""

    def __missing__(self, code: int) -> str:
        value = self[code] = _fold(chr(code))
        return value


class _OddTable(dict[int, str]):
    """Marks characters whose fold is not exactly one character, and ``&`` (entities)."""

    def __missing__(self, code: int) -> str:
        value = self[code] = "\x01" if code != 0x26 and len(_FOLD[code]) == 1 else "\x00"
        return value


_FOLD = _FoldTable()
_ODD = _OddTable()
_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)")


@dataclass(frozen=True)
class Canonical:
    """The canonical form of a text and the map from its characters back to the original.

    Segments ``i`` cover canonical ``[starts[i], starts[i+1])`` and original
    ``[origins[i], ends[i])``; an ``exact`` segment maps character for character.
    """

    text: str
    source: str
    starts: list[int]
    origins: list[int]
    ends: list[int]
    exact: list[bool]

    def origin(self, index: int) -> tuple[int, int]:
        """Original span of canonical character ``index``."""
        k = bisect_right(self.starts, index) - 1
        if self.exact[k]:
            at = self.origins[k] + index - self.starts[k]
            return at, at + 1
        return self.origins[k], self.ends[k]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original span of canonical ``[start, end)`` (invisible characters inside included)."""
        return self.origin(start)[0], self.origin(end - 1)[1]

    def spellings(self, start: int, end: int) -> set[str]:
        """How canonical ``[start, end)`` was spelled in the original."""
        lo, hi = self.span(start, end)
        original = self.source[lo:hi]
        if original == self.text[start:end]:
            return {"raw"}
        found = {"entity"} if any(_changes(m) for m in _ENTITY.finditer(original)) else set()
        found |= {_spelling(ch) for ch in _ENTITY.sub("", original)}
        return (found - {"raw"}) or {"raw"}


def _changes(match: re.Match[str]) -> bool:
    return html.unescape(match.group(0)) != match.group(0)


def canonical(text: str) -> Canonical:
    """``text`` with entities decoded and every character folded (module docstring), mapped."""
    marks = text.translate(_ODD)
    starts: list[int] = []
    origins: list[int] = []
    ends: list[int] = []
    exact: list[bool] = []
    pieces: list[str] = []
    size = pos = 0

    def add(piece: str, origin: int, end: int, is_exact: bool) -> None:
        nonlocal size
        if piece:
            starts.append(size)
            origins.append(origin)
            ends.append(end)
            exact.append(is_exact)
            pieces.append(piece)
            size += len(piece)

    for odd in re.finditer("\x00", marks):
        at = odd.start()
        if at < pos:  # inside an entity already decoded
            continue
        add(text[pos:at].translate(_FOLD), pos, at, True)
        entity = _ENTITY.match(text, at) if text[at] == "&" else None
        if entity is not None and _changes(entity):
            add(html.unescape(entity.group(0)).translate(_FOLD), at, entity.end(), False)
            pos = entity.end()
        else:
            folded = _FOLD[ord(text[at])]
            add(folded, at, at + 1, len(folded) == 1)
            pos = at + 1
    add(text[pos:].translate(_FOLD), pos, len(text), True)
    return Canonical("".join(pieces), text, starts or [0], origins or [0], ends or [0], exact or [True])


# ---- recognisers on the canonical form -----------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """A recognised span: its kind, canonical span, how it was spelled, and its rewrite."""

    kind: str
    start: int
    end: int
    rewrite: Mapping[str, str]
    """Replacement of each recognised character inside the span (others are kept)."""


_BRACKETS = {"[": "(", "]": ")"}
_MARKER_REWRITE = {"<": "(", ">": ")", "|": ""}
_DIGIT_WORDS = {"0": "zero", "1": "one", "2": "two"}

_CORE = re.compile(
    "(?=("
    + "|".join(
        r"[ \t]*".join(re.escape(part) for part in (s[0], *s[1:-1], s[-1]))
        for s in sorted(LABEL_SPELLINGS, key=len, reverse=True)
    )
    + "))"
)
"""A five-point label without brackets (internal spaces allowed), found at every position."""
_LEFT_RUN = re.compile(r"[\s\[]*")
_RIGHT_RUN = re.compile(r"[\s\]]*")
_MARKER = re.compile(
    r"<\s*\|(?:[^|<>\n]{0,100}\|\s*>"
    r"|\s*(?:The\s+(?:Start|End)\s+of|User\s+(?:Prompt|Question)|Round\s+\d))",
    re.IGNORECASE,
)
_HEADING = re.compile(r"\[\s*(?:Question|Submission\s*\d*|Criteria|User|Speaker\s*\d+[^\]\n]{0,80})\s*\]")
_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", "\n"))
_DECORATION = "\t\x1f \xa0\u1680\u2000-\u200a\u202f\u205f\u3000\"'`*_.:()\\[\\]"
_LONE_CANDIDATE = re.compile(
    rf"^[{_DECORATION}]*(?:(?:final[ \t]+)?(?:answer|verdict|choice|decision|option))?"
    rf"[{_DECORATION}=\-]*[012][{_DECORATION}]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""Lines that may be lone numbers (a superset; :func:`lone_number` decides)."""


def _five_point(text: str) -> Iterator[Finding]:
    if not any(ch in text for ch in "<>="):
        return
    reverse = text[::-1]
    size = len(text)
    for match in _CORE.finditer(text):
        start, end = match.start(1), match.end(1)
        left = start - _LEFT_RUN.match(reverse, size - start).end() + (size - start)  # type: ignore[union-attr]
        right = _RIGHT_RUN.match(text, end).end()  # type: ignore[union-attr]
        if "[" in text[left:start] or "]" in text[end:right]:
            yield Finding("verdict_label", left, right, _BRACKETS)


def _battle(text: str) -> Iterator[Finding]:
    for match in BATTLE_LABEL.finditer(text):
        yield Finding("verdict_label", match.start(), match.end(), _BRACKETS)


def _markers(text: str) -> Iterator[Finding]:
    for match in _MARKER.finditer(text):
        yield Finding("delimiter", match.start(), match.end(), _MARKER_REWRITE)


def _headings(text: str) -> Iterator[Finding]:
    for match in _HEADING.finditer(text):
        yield Finding("delimiter", match.start(), match.end(), _BRACKETS)


def _lone_numbers(text: str) -> Iterator[Finding]:
    lines = text.translate(_LINE_BREAKS)  # the line breaks ScaleEval's parser splits on
    for match in _LONE_CANDIDATE.finditer(lines):
        if lone_number(match.group(0)) is not None:
            yield Finding("scaleeval_number", match.start(), match.end(), _DIGIT_WORDS)


_RECOGNISERS = {
    "pairwise": (_five_point, _markers),
    "battle": (_battle, _markers),
    "scaleeval": (_headings, _lone_numbers),
}


def findings(text: Canonical, protocol: Protocol) -> list[Finding]:
    """Every span of the canonical ``text`` that ``protocol``'s parsers or delimiters could read."""
    try:
        recognisers = _RECOGNISERS[protocol]
    except KeyError:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    return [f for recognise in recognisers for f in recognise(text.text)]


# ---- neutralising --------------------------------------------------------------------------


@dataclass(frozen=True)
class Neutralised:
    """A text as the judge sees it and how many spans of each kind were changed."""

    text: str
    spans: dict[str, int] = field(default_factory=dict)
    spellings: dict[str, int] = field(default_factory=dict)
    """Recognised spans per spelling (:data:`SPELLINGS`)."""

    @property
    def total(self) -> int:
        """Spans changed, all kinds together."""
        return sum(self.spans.values())

    def record(self) -> dict[str, int]:
        """``{"total": n, <kind>: count, …}`` with only the kinds that occurred."""
        return {"total": self.total, **{k: v for k, v in self.spans.items() if v}}


def neutralise(text: str, protocol: Protocol = "pairwise") -> Neutralised:
    """``text`` as ``protocol``'s judge may see it (see the module docstring for the rule)."""
    canon = canonical(text)
    found = findings(canon, protocol)
    spans = dict.fromkeys(KINDS, 0)
    spellings: dict[str, int] = {}
    replace: dict[int, str] = {}  # canonical index → replacement
    for f in found:
        spans[f.kind] += 1
        for spelling in canon.spellings(f.start, f.end):
            spellings[spelling] = spellings.get(spelling, 0) + 1
        for i in range(f.start, f.end):
            ch = canon.text[i]
            if ch in f.rewrite:
                replace[i] = f.rewrite[ch]
    if not replace:
        return Neutralised(text, spans, spellings)
    edits: dict[tuple[int, int], list[int]] = {}
    for i in sorted(replace):
        edits.setdefault(canon.origin(i), []).append(i)
    out: list[str] = []
    pos = 0
    for (lo, hi), indices in sorted(edits.items()):
        k = bisect_right(canon.starts, indices[0]) - 1
        if canon.exact[k]:
            new = replace[indices[0]]
        else:  # an entity or an expanding character: its canonical text, rewritten
            first = canon.starts[k]
            piece = canon.text[first : canon.starts[k + 1] if k + 1 < len(canon.starts) else None]
            new = "".join(replace.get(first + j, ch) for j, ch in enumerate(piece))
        out += [text[pos:lo], new]
        pos = hi
    out.append(text[pos:])
    return Neutralised("".join(out), spans, spellings)


def neutralise_all(
    texts: Mapping[str, str | None], protocol: Protocol = "pairwise"
) -> tuple[dict[str, str | None], dict[str, dict[str, int]]]:
    """Neutralise several named texts (None stays None): (texts, ``{name: record}``).

    The records are what a sample's score metadata keeps under ``neutralised``.
    """
    out: dict[str, str | None] = {}
    records: dict[str, dict[str, int]] = {}
    for name, text in texts.items():
        if text is None:
            out[name] = None
            continue
        result = neutralise(text, protocol)
        out[name] = result.text
        records[name] = result.record()
    return out, records
