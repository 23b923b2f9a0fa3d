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
from functools import lru_cache
from typing import Iterable, Iterator, Literal, Mapping, NamedTuple

from inspect_arenahard.judging.scaleeval_verdicts import HEADING, LINE_BREAKS, LONE_NUMBER_LINE
from inspect_arenahard.judging.verdicts import BATTLE_LABEL, LABEL_SPELLINGS

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
    **dict.fromkeys(
        "\u0391\u0410\u13aa\u15c5\ua4ee", "A"
    ),  # Greek, Cyrillic, Cherokee, Canadian, Lisu
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
_SPELLING_SAMPLE = 1000
"""Disguised spans whose spellings :meth:`Canonical.spellings` reads at most (a bound on the
audit's work on a text with tens of thousands of them)."""
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
    folded = _FOLD[ord(ch)]
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

    def spellings(self, spans: Iterable[tuple[int, int]]) -> set[str]:
        """How the canonical ``(start, end)`` spans were spelled in the original: ``raw`` for a
        span written as the parser reads it, else what disguised it (:data:`SPELLINGS`)."""
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
            if len(disguised) >= _SPELLING_SAMPLE:
                break  # bounded work: the spellings of the first disguised spans stand for all

        if disguised:
            joined = "\n".join(disguised)
            if any(_changes(m) for m in _ENTITY.finditer(joined)):
                found.add("entity")
            found |= {_spelling(ch) for ch in set(_ENTITY.sub("", joined))} - {"raw"}
        return found


@lru_cache(maxsize=4096)
def _decoded(entity: str) -> str | None:
    """The character(s) an entity stands for, or None when it is not one."""
    text = html.unescape(entity)
    return None if text == entity else text


def _changes(match: re.Match[str]) -> bool:
    return _decoded(match.group(0)) is not None


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
        decoded = _decoded(entity.group(0)) if entity is not None else None
        if entity is not None and decoded is not None:
            add(decoded.translate(_FOLD), at, entity.end(), False)
            pos = entity.end()
        else:
            folded = _FOLD[ord(text[at])]
            add(folded, at, at + 1, len(folded) == 1)
            pos = at + 1
    add(text[pos:].translate(_FOLD), pos, len(text), True)
    return Canonical(
        "".join(pieces), text, starts or [0], origins or [0], ends or [0], exact or [True]
    )


# ---- recognisers on the canonical form -----------------------------------------------------


@dataclass(frozen=True)
class Rewrite:
    """Which characters of a recognised span change, and into what."""

    targets: re.Pattern[str]
    into: Mapping[str, str]

    table: dict[int, str] = field(init=False, repr=False, compare=False)
    """``into`` as a ``str.translate`` table."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", str.maketrans(dict(self.into)))


class Finding(NamedTuple):
    """A recognised span: its kind, canonical span and its rewrite (a tuple: texts can hold
    tens of thousands)."""

    kind: str
    start: int
    end: int
    rewrite: Rewrite


_BRACKETS = Rewrite(re.compile(r"[\[\]]"), {"[": "(", "]": ")"})
_MARKER_REWRITE = Rewrite(re.compile(r"[<>|]"), {"<": "(", ">": ")", "|": ""})
_DIGIT_WORDS = Rewrite(re.compile(r"[012]"), {"0": "zero", "1": "one", "2": "two"})


_LETTERS = "".join(sorted({ch for s in LABEL_SPELLINGS for ch in (s[0], s[-1])}))
_SIGN = "|".join(
    r"\s*+".join(map(re.escape, sign))
    for sign in sorted({s[1:-1] for s in LABEL_SPELLINGS}, key=len, reverse=True)
)
_CORE = re.compile(rf"[{_LETTERS}]\s*+(?:{_SIGN})\s*+[{_LETTERS}]")
"""A five-point label without brackets (internal spaces allowed); :data:`_LABEL_ENDS` filters
the letter pairs the parser reads."""
_LAST_CORE = re.compile(rf"[{_LETTERS}]\s*+(?:{_SIGN})\s*+")
"""The last label of a chain, read backwards up to its first letter (the signs read the same
backwards)."""
_LABEL = re.compile(
    rf"(?<![\s\[])([\s\[]*+)({_CORE.pattern})((?:\s*+(?:{_SIGN})\s*+[{_LETTERS}])*+)((?:\s*+\])*+)"
)
"""A maximal chain of labels sharing their letters (``A>B>A``), with the run of spaces and
opening brackets before it and the closing brackets after it. Only a chain's first label can
touch an opening bracket and only its last a closing one, so each chain is read once, however
long; a run is scanned from its start only (the look-behind), so a run of brackets costs
nothing either."""
_LABEL_ENDS = frozenset((s[0], s[-1]) for s in LABEL_SPELLINGS)
_MARKER = re.compile(
    r"<\s*+\|(?:[^|<>\n]{0,100}+\|\s*+>"
    r"|\s*+(?:The\s++(?:Start|End)\s++of|User\s++(?:Prompt|Question)|Round\s++\d))"
)
"""A ``<|…|>`` marker, or an unclosed one our templates open with (possessive quantifiers:
nothing is scanned twice)."""
_LINE_BREAKS = str.maketrans(dict.fromkeys(LINE_BREAKS, "\n"))


def _five_point(text: str) -> Iterator[Finding]:
    if not any(ch in text for ch in "<>="):
        return
    for match in _LABEL.finditer(text):
        before, label, chained, after = match.groups()
        opened = "[" in before
        if not opened and not after:
            continue
        if not chained:  # one label
            if (label[0], label[-1]) in _LABEL_ENDS:
                yield Finding("verdict_label", match.start(), match.end(), _BRACKETS)
            continue
        first = match.start() + len(before) + len(label)
        if opened and (label[0], label[-1]) in _LABEL_ENDS:
            yield Finding("verdict_label", match.start(), first, _BRACKETS)
        backwards = _LAST_CORE.match(f"{label[-1]}{chained}"[::-1])
        assert backwards is not None  # a chain ends with a label
        last = first + len(chained) - 1 - backwards.end()
        if after and (text[last], chained[-1]) in _LABEL_ENDS:
            yield Finding("verdict_label", last, match.end(), _BRACKETS)


def _battle(text: str) -> Iterator[Finding]:
    for match in BATTLE_LABEL.finditer(text):
        yield Finding("verdict_label", match.start(), match.end(), _BRACKETS)


def _markers(text: str) -> Iterator[Finding]:
    for match in _MARKER.finditer(text):
        yield Finding("delimiter", match.start(), match.end(), _MARKER_REWRITE)


def _headings(text: str) -> Iterator[Finding]:
    for match in HEADING.finditer(text):
        yield Finding("delimiter", match.start(), match.end(), _BRACKETS)


def _lone_numbers(text: str) -> Iterator[Finding]:
    if not any(d in text for d in "012"):
        return
    lines = text.translate(_LINE_BREAKS)  # the line breaks ScaleEval's parser splits on
    for match in LONE_NUMBER_LINE.finditer(lines):
        if match.end() > match.start():
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

    @property
    def total(self) -> int:
        """Spans changed, all kinds together."""
        return sum(self.spans.values())

    def record(self) -> dict[str, int]:
        """``{"total": n, <kind>: count, …}`` with only the kinds that occurred."""
        return {"total": self.total, **{k: v for k, v in self.spans.items() if v}}


def _counts(found: list[Finding]) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for f in found:
        counts[f.kind] += 1
    return counts


def _rewritten(text: str, found: list[Finding]) -> str:
    """``text`` with every finding rewritten, where the canonical form is ``text`` itself."""
    found = sorted(found, key=lambda f: f.start) if len(found) > 1 else found
    pieces: list[str] = []
    pos = 0
    for f in found:
        if f.start < pos:  # findings overlap (a label inside a marker): rewrite cell by cell
            chars = list(text)
            for g in found:
                into = g.rewrite.into
                chars[g.start : g.end] = [into.get(ch, ch) for ch in chars[g.start : g.end]]
            return "".join(chars)
        pieces.append(text[pos : f.start])
        pieces.append(text[f.start : f.end].translate(f.rewrite.table))
        pos = f.end
    pieces.append(text[pos:])
    return "".join(pieces)


def neutralise(text: str, protocol: Protocol = "pairwise") -> Neutralised:
    """``text`` as ``protocol``'s judge may see it (see the module docstring for the rule)."""
    canon = canonical(text)
    spans = dict.fromkeys(KINDS, 0)
    found = findings(canon, protocol)
    if found and canon.text == text:  # every character maps to itself: rewrite in place
        return Neutralised(_rewritten(text, found), _counts(found))
    chars: list[str] = []  # the original, one cell per character, once something changes
    odd: dict[int, dict[int, str]] = {}  # segment → {canonical index: replacement}
    starts, origins, exact = canon.starts, canon.origins, canon.exact
    for f in found:
        spans[f.kind] += 1
        into = f.rewrite.into
        k = bisect_right(starts, f.start) - 1
        for m in f.rewrite.targets.finditer(canon.text, f.start, f.end):
            i = m.start()
            while k + 1 < len(starts) and starts[k + 1] <= i:
                k += 1
            if not chars:
                chars = list(text)
            if exact[k]:
                chars[origins[k] + i - starts[k]] = into[m.group()]
            else:
                odd.setdefault(k, {})[i] = into[m.group()]
    if not chars:
        return Neutralised(text, spans)
    for k, replace in odd.items():
        # an entity or an expanding character: its canonical text, rewritten, in its first cell
        end = starts[k + 1] if k + 1 < len(starts) else len(canon.text)
        piece = canon.text[starts[k] : end]
        chars[origins[k]] = "".join(replace.get(starts[k] + n, ch) for n, ch in enumerate(piece))
        chars[origins[k] + 1 : canon.ends[k]] = [""] * (canon.ends[k] - origins[k] - 1)
    return Neutralised("".join(chars), spans)


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
