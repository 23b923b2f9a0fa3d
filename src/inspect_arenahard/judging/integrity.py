"""Neutralise text only a judge may write before an answer is placed in a judge prompt.

An answer is data for the judge, never part of its instructions or of its verdict. Every site
that builds a judge prompt passes each answer, reference, question, opponent turn and quoted
peer reply through ``neutralise`` with its *protocol* first, so a judge that quotes the
answer, drops invisible characters, folds full-width letters or is cut off after a quote can
never show a label that protocol's parsers accept, and an answer can never close its delimiter.

**Recognition** runs on every reading a judge may apply (``inspect_arenahard.judging.canonical``:
entities decoded in every form ``html.unescape`` accepts, compatibility forms, accents and
Unicode confusables of every grammar character folded, invisible, control and private-use
characters dropped; and the same after Markdown/HTML/LaTeX is rendered). ``[[B\\u200b>>A]]``,
``［［B>>A］］``, ``[[B&gt>>A]]``, ``[[B&#0000062;>A]]``, ``[[Β>>А]]``, ``[[B**>>**A]]``,
``[[`B>>A`]]`` and ``‹|…|›`` are all recognised. The grammars are the parsers' own
(``inspect_arenahard.judging.verdicts``, ``inspect_arenahard.judging.scaleeval_verdicts``).

**What each protocol neutralises** (exactly what its parsers and prompt delimiters could read):

============ ============================================================================
pairwise     ``verdict_label``: the five labels (``A>>B``, ``A>B``, ``A=B``, ``B>A``,
             ``B>>A`` and mirrored spellings) with a bracket on either side;
             ``delimiter``: ``<|…|>`` markers and an unclosed ``<|The End of …``
battle       ``verdict_label``: ``[A]``, ``[B]``, ``[Tie]`` (A and B in exact case);
             ``delimiter``: as pairwise
scaleeval    ``delimiter``: its headings (``[Question]``, ``[Submission 1]``, ``[Criteria]``,
             ``[User]``, ``[Speaker 2's …]``); ``scaleeval_number``: a line naming its
             verdict anywhere (``**Answer: 1**``), and a bare ``2`` alone on the text's last
             non-blank line (a bare digit elsewhere is no verdict to its parser)
annotation   ``criteria_label``: BenchBuilder's ``Criteria Satisfied: [..]`` in a crowd
             prompt, so a prompt cannot nominate itself as hard (its quality score is the
             number of criteria listed: the label is the annotation's only grammar)
============ ============================================================================

**How** (the judge still reads what was written): the brackets of a recognised label become
parentheses (``[[B>>A]]`` → ``((B>>A))``); a marker loses its pipes and its angle brackets
become parentheses (``<|The End of Assistant A's Answer|>`` → ``(The End of Assistant A's
Answer)``); a verdict digit is spelled out (``2`` → ``two``). Whatever spelling the recognised
characters had in the original (entity, full-width, look-alike) is replaced. Nothing else
changes; neutralising is idempotent and linear in the text length (only non-backtracking
patterns and bounded scans run on the text).

The rule's version is ``NEUTRALISE_VERSION``; bump it whenever what is recognised or how it
is rewritten changes.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Iterator, Literal, Mapping, NamedTuple

import numpy as np

from inspect_arenahard.judging.canonical import (
    READINGS,
    Canonical,
    EntityReads,
    canonical,
    code_points,
)
from inspect_arenahard.judging.canonical import SPELLINGS as SPELLINGS
from inspect_arenahard.judging.folding import distinct_values
from inspect_arenahard.judging.scaleeval_verdicts import (
    HEADING,
    LINE_BREAKS,
    LONE_NUMBER,
    NAMED_NUMBER_LINE,
)
from inspect_arenahard.judging.verdicts import (
    BATTLE_LABEL,
    CRITERIA_LABEL_OR_OPENING,
    LABEL_SPELLINGS,
    LETTERS,
    sign_pattern,
)

NEUTRALISE_VERSION = "4"
"""Version of the neutralisation rule (1: full-width look-alikes on raw text; 2: recognition on
the canonical form, per protocol, rewritten to parentheses and spelled-out digits; 3: the
parsers' grammars, every entity form, Unicode confusables, controls and the rendered reading;
4: ScaleEval rewrites a bare digit only on a text's last non-blank line, as its parser now
reads one only there, and lines naming their verdict anywhere; look-alikes of the letters of
``Criteria Satisfied`` and of ScaleEval's verdict words are read as those letters)."""

Protocol = Literal["pairwise", "battle", "scaleeval", "annotation"]
PROTOCOLS: tuple[Protocol, ...] = ("pairwise", "battle", "scaleeval", "annotation")
KINDS: tuple[str, ...] = ("verdict_label", "delimiter", "scaleeval_number", "criteria_label")
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
    """A recognised span: its kind, canonical span and its rewrite."""

    kind: str
    start: int
    end: int
    rewrite: Rewrite


class Found(NamedTuple):
    """The spans one recogniser found, in bulk: one kind, one rewrite, and the canonical
    ``[starts[i], ends[i])`` in ascending order (texts can hold hundreds of thousands; no
    object is built per span)."""

    kind: str
    rewrite: Rewrite
    starts: np.ndarray
    ends: np.ndarray


_BRACKETS = Rewrite(re.compile(r"[\[\]]"), {"[": "(", "]": ")"})
_MARKER_REWRITE = Rewrite(re.compile(r"[<>|]"), {"<": "(", ">": ")", "|": ""})
_DIGIT_WORDS = Rewrite(re.compile(r"[012]"), {"0": "zero", "1": "one", "2": "two"})
_NONE = np.zeros(0, np.int64)


def match_spans(matches: Iterator[re.Match[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the matches, gathered without a Python step per match."""
    flat = np.fromiter(chain.from_iterable(map(re.Match.span, matches)), np.int64)
    return flat[0::2], flat[1::2]


def _found(kind: str, rewrite: Rewrite, matches: Iterator[re.Match[str]]) -> Found:
    return Found(kind, rewrite, *match_spans(matches))


_LETTERS = LETTERS
_SIGN = sign_pattern(r"\s*+")
_CORE = re.compile(rf"[{_LETTERS}]\s*+(?:{_SIGN})\s*+[{_LETTERS}]")
"""A five-point label without brackets (internal spaces allowed); ``_LABEL_ENDS`` filters
the letter pairs the parser reads."""
_LAST_CORE = re.compile(rf"[{_LETTERS}]\s*+(?:{_SIGN})\s*+")
"""The last label of a chain, read backwards up to its first letter (the signs read the same
backwards)."""
_CHAIN = re.compile(rf"({_CORE.pattern}(?:\s*+(?:{_SIGN})\s*+[{_LETTERS}])*+(?:\s*+\])*+)")
"""A maximal chain of labels sharing their letters (``A>B>A``) with the closing brackets after
it. Only a chain's first label can touch an opening bracket and only its last a closing one, so
each chain is read once, however long. It starts with a letter, so the scan passes over any
other character at C speed; one split of the text (the whole chain its one group) gives every
chain and the gap before it. Its letters are the labels' letters (no sign, space or bracket is
one), so the first label ends after the chain's second letter and the last label at its last.
The run of spaces and opening brackets before a chain is read backwards from the text before it
(a chain ends with a letter or ``]``, so that run never reaches into the chain before)."""
_RUN = "[" + "".join(c for c in map(chr, range(0x3001)) if c.isspace())
"""The characters of the run before a label: ``[`` and what ``\\s`` matches (``str.isspace``;
every such character lies below U+3001, which a test checks)."""
_IN_RUN = np.zeros(0x3002, bool)
_IN_RUN[list(map(ord, _RUN))] = True
"""Whether a code point (clipped to U+3001, in none) is a character of ``_RUN``."""
_LETTER_CODES = tuple(map(ord, _LETTERS))
_CLOSING = "]" + _RUN[1:]
"""What closes a chain after its last letter: ``]`` and what ``\\s`` matches."""
_RUN_STEPS = 8
_ARRAY_ROWS = 64
"""With more chains than this, their labels' ends are read from where the text's letters
stand and ``_RUN_STEPS`` characters of the runs before them backwards for all at once (array
steps; only the longer runs left are stripped from their gap's text); fewer chains are read
from their own and their gaps' text in one pass of string calls (array steps cost more there)."""
_LABEL_ENDS = frozenset(s[0] + s[-1] for s in LABEL_SPELLINGS)


def _letter_pairs() -> np.ndarray:
    """Whether the parser reads a label with these first and last letters (by ASCII code: the
    letters are ASCII)."""
    pairs = np.zeros((128, 128), bool)
    for ends in _LABEL_ENDS:
        pairs[ord(ends[0]), ord(ends[1])] = True
    return pairs


_PAIRS = _letter_pairs()
_MARKER = re.compile(
    r"<\s*+\|(?:[^|<>\n]{0,100}+\|\s*+>"
    r"|\s*+(?:The\s++(?:Start|End)\s++of|User\s++(?:Prompt|Question)|Round\s++\d))"
)
"""A ``<|…|>`` marker, or an unclosed one our templates open with (possessive quantifiers:
nothing is scanned twice)."""
_OTHER_BREAKS = re.compile("[" + re.escape(LINE_BREAKS.replace("\n", "")) + "]")
"""The line breaks other than ``\\n`` that ScaleEval's parser splits on (a C-speed substitution:
``str.translate`` with a table is a Python lookup per character on non-ASCII text)."""
_ASCII_OTHER_BREAKS = tuple(ch for ch in LINE_BREAKS if ch.isascii() and ch != "\n")


def _lines(text: str) -> str:
    """``text`` with the line breaks ScaleEval's parser splits on written as ``\\n``: an ASCII
    text is first searched for the few ASCII ones (a byte search each, faster than the scan)."""
    if text.isascii() and not any(ch in text for ch in _ASCII_OTHER_BREAKS):
        return text
    return _OTHER_BREAKS.sub("\n", text)


def _five_point(text: str) -> Found:
    """Five-point labels with a bracket on either side: one split of the text gives every
    chain's offsets, array operations on its code points where its labels end and the runs
    before them, and only chains of several labels take a Python step."""
    if not any(ch in text for ch in "<>="):
        return Found("verdict_label", _BRACKETS, _NONE, _NONE)
    parts = _CHAIN.split(text)  # gap, chain, …, gap
    lengths = np.fromiter(map(len, parts), np.int64, len(parts))
    bounds = lengths.cumsum()
    label_start, end = bounds[0:-1:2], bounds[1::2]
    codes = code_points(text)
    label_end, chained_end = _label_ends(parts[1::2], codes, label_start, end)
    gap_start = label_start - lengths[0:-1:2]
    start, opened = _runs_before(parts[0:-1:2], codes, gap_start, label_start)
    bracketed = opened | (end > chained_end)
    read = _PAIRS[codes[label_start], codes[label_end - 1]]  # the parser reads the letter pair
    several = chained_end > label_end  # chains of several labels
    single = bracketed & ~several & read
    starts, ends = [start[single]], [end[single]]
    for k in np.flatnonzero(bracketed & several).tolist():
        first = int(label_end[k])
        chained = text[first : int(chained_end[k])]
        if opened[k] and read[k]:
            starts.append(start[k : k + 1])
            ends.append(np.array([first], np.int64))
        backwards = _LAST_CORE.match(f"{text[first - 1]}{chained}"[::-1])
        assert backwards is not None  # a chain ends with a label
        last = first + len(chained) - 1 - backwards.end()
        if end[k] > chained_end[k] and text[last] + chained[-1] in _LABEL_ENDS:
            starts.append(np.array([last], np.int64))
            ends.append(end[k : k + 1])
    lo, hi = np.concatenate(starts), np.concatenate(ends)
    if len(starts) > 1:
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
    return Found("verdict_label", _BRACKETS, lo, hi)


def _label_ends(
    chains: list[str], codes: np.ndarray, label_start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Where each chain's first label ends and where its last does (before the closing
    brackets): after its second letter and after its last (``_ARRAY_ROWS``: of many chains,
    from where the text's letters stand; of few, from each chain's text)."""
    if len(chains) <= _ARRAY_ROWS:
        first = map(re.Match.end, map(_CORE.match, chains))  # type: ignore[arg-type]
        last = map(len, map(str.rstrip, chains, repeat(_CLOSING)))
        return (
            label_start + np.fromiter(first, np.int64, len(chains)),
            label_start + np.fromiter(last, np.int64, len(chains)),
        )
    is_letter = codes == _LETTER_CODES[0]
    for code in _LETTER_CODES[1:]:
        is_letter |= codes == code
    letters = np.flatnonzero(is_letter)
    second = np.minimum(np.searchsorted(letters, label_start) + 1, len(letters) - 1)
    return letters[second] + 1, letters[np.searchsorted(letters, end) - 1] + 1


def _runs_before(
    gaps: list[str], codes: np.ndarray, gap_start: np.ndarray, label_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Where the run of ``_RUN`` characters before each label starts (not before its gap, the
    text since the previous chain) and whether it holds a ``[`` (``_ARRAY_ROWS``)."""
    if len(gaps) <= _ARRAY_ROWS:
        kept = np.fromiter(map(len, map(str.rstrip, gaps, repeat(_RUN))), np.int64, len(gaps))
        opened = np.fromiter(map(str.rfind, gaps, repeat("[")), np.int64, len(gaps)) >= kept
        return gap_start + kept, opened
    start = label_start.copy()
    opened = np.zeros(len(start), bool)
    rows = np.flatnonzero(start > gap_start)
    for _ in range(_RUN_STEPS):
        at = start[rows] - 1
        code = codes[at]
        run = _IN_RUN[np.minimum(code, len(_IN_RUN) - 1)]
        rows, at = rows[run], at[run]
        start[rows] = at
        opened[rows] |= code[run] == ord("[")
        rows = rows[at > gap_start[rows]]
    for k in rows.tolist():
        gap = gaps[k][: start[k] - gap_start[k]]
        stripped = len(gap.rstrip(_RUN))
        opened[k] |= gap.rfind("[") >= stripped
        start[k] = gap_start[k] + stripped
    return start, opened


def _battle(text: str) -> Found:
    return _found("verdict_label", _BRACKETS, BATTLE_LABEL.finditer(text))


def _markers(text: str) -> Found:
    return _found("delimiter", _MARKER_REWRITE, _MARKER.finditer(text))


def _headings(text: str) -> Found:
    """ScaleEval's headings, scanned in the text after a line break so that a heading at a
    line's start is found from that break (``_HEADING_AFTER_BREAK``)."""
    if "[" not in text:  # every heading holds one
        return Found("delimiter", _BRACKETS, _NONE, _NONE)
    after = "\n" + text
    starts, ends = match_spans(_HEADING_AFTER_BREAK.finditer(after))
    at_break = np.fromiter(
        map(operator.eq, map(after.__getitem__, starts.tolist()), repeat("\n")), bool, len(starts)
    )
    return Found("delimiter", _BRACKETS, starts + at_break - 1, ends - 1)


_HEADING_AFTER_BREAK = re.compile(HEADING.pattern.replace("(?m:^)", "\\n", 1))
"""``HEADING`` with its line start read as the line break before it (the text is scanned with
a break before it): both branches then start with a character (``[`` or the break), so the
scan passes over any other character at C speed. A heading never starts with a break, and one
that holds a break ends after the next line's start, so reading the break finds what
``HEADING`` finds."""


def _named_numbers(lines: str) -> tuple[np.ndarray, np.ndarray]:
    """Lines of ``lines`` (``\\n``-separated) that name a ScaleEval verdict (``Answer: 2``),
    each found from the line break before it (``_NAMED_AFTER_BREAK``)."""
    if not _may_name_a_verdict(lines):
        return _NONE, _NONE
    starts, ends = match_spans(_NAMED_AFTER_BREAK.finditer("\n" + lines))
    kept = ends > starts + 1
    return starts[kept], ends[kept] - 1  # each match starts with the break before its line


_NAMED_AFTER_BREAK = re.compile(
    NAMED_NUMBER_LINE.pattern.replace("(?m)^", "(?m)\\n", 1), NAMED_NUMBER_LINE.flags
)
"""``NAMED_NUMBER_LINE`` from the line break before the line (the text is scanned with a break
before it): the scan passes over any other character at C speed. A named line holds no break,
so each match ends before the break that starts the next."""


_NAMING_LETTERS = "eEoO"
"""Every word a line can name its verdict with (``answer``, ``verdict``, ``choice``,
``decision``, ``option``) holds an ``e`` or an ``o``, and no other character matches one when
case is ignored."""


def _may_name_a_verdict(text: str) -> bool:
    """Whether ``text`` can hold a line naming a verdict (four substring searches, far faster
    than the scan on text without those letters: entities, digits, code points)."""
    return any(letter in text for letter in _NAMING_LETTERS)


def _verdict_numbers(text: str) -> Found:
    """What ScaleEval's parser could read as a verdict if a judge showed ``text``: every line
    naming its verdict, and a lone digit, named or bare, on the last non-blank line (where a
    judge that quotes the text's end and stops would show it)."""
    if not any(d in text for d in "012"):
        return Found("scaleeval_number", _DIGIT_WORDS, _NONE, _NONE)
    lines = _lines(text)
    starts, ends = _named_numbers(lines)
    end = len(lines.rstrip())  # the end of the last non-blank line
    start = lines.rfind("\n", 0, end) + 1
    if LONE_NUMBER.fullmatch(lines, start, end) and not (len(starts) and starts[-1] == start):
        starts, ends = np.append(starts, start), np.append(ends, end)
    return Found("scaleeval_number", _DIGIT_WORDS, starts, ends)


def _judge_named_numbers(text: str) -> Found:
    if not any(d in text for d in "012") or not _may_name_a_verdict(text):
        return Found("scaleeval_verdict", _DIGIT_WORDS, _NONE, _NONE)
    return Found("scaleeval_verdict", _DIGIT_WORDS, *_named_numbers(_lines(text)))


def _criteria(text: str) -> Found:
    return _found("criteria_label", _BRACKETS, CRITERIA_LABEL_OR_OPENING.finditer(text))


_RECOGNISERS = {
    "pairwise": (_five_point, _markers),
    "battle": (_battle, _markers),
    "scaleeval": (_headings, _verdict_numbers),
    "annotation": (_criteria,),
}


_JUDGE_ONLY = (
    ("verdict_label", _five_point),
    ("delimiter", _markers),
    ("battle_label", _battle),
    ("scaleeval_heading", _headings),
    ("scaleeval_verdict", _judge_named_numbers),
)


def judge_only(text: Canonical) -> Iterator[tuple[str, Found]]:
    """What a judge of any protocol writes in the canonical ``text``, per recogniser, named for
    the audit (``verdict_label`` and ``delimiter`` as pairwise, ``battle_label``,
    ``scaleeval_heading``, ``scaleeval_verdict``: a line naming its verdict, since a bare
    ``2`` ending a text is common in honest answers)."""
    for name, recognise in _JUDGE_ONLY:
        yield name, recognise(text.text)


def recognised(text: Canonical, protocol: Protocol) -> list[Found]:
    """What ``protocol``'s parsers or delimiters could read in the canonical ``text``, in bulk
    (one ``Found`` per recogniser, empty ones left out)."""
    try:
        recognisers = _RECOGNISERS[protocol]
    except KeyError:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    found = [recognise(text.text) for recognise in recognisers]
    return [spans for spans in found if len(spans.starts)]


def findings(text: Canonical, protocol: Protocol) -> list[Finding]:
    """Every span of the canonical ``text`` that ``protocol``'s parsers or delimiters could
    read, one ``Finding`` each."""
    return [
        Finding(found.kind, start, end, found.rewrite)
        for found in recognised(text, protocol)
        for start, end in zip(found.starts.tolist(), found.ends.tolist())
    ]


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


def _rewritten(text: str, found: list[Found]) -> str:
    """``text`` with every span found rewritten, where the canonical form is ``text`` itself."""
    return _mapped(Canonical(text, text, "raw"), found)


_RENDERED_ONLY = re.compile(r"[*_`~^{}$<\\]")
"""A text without these characters reads the same rendered as plain."""


def _differs(reading: str, text: str) -> bool:
    """Whether ``reading`` can recognise something in ``text`` that the plain one does not:
    only an entity can merge characters the parser reads as written, and only markup renders."""
    if reading == "raw":
        return "&" in text
    return reading == "plain" or _RENDERED_ONLY.search(text) is not None


def readings(text: str) -> Iterator[Canonical]:
    """``text`` in every reading that can differ (``inspect_arenahard.judging.canonical.READINGS``),
    its entities read once for all of them."""
    entities = EntityReads()
    for reading in READINGS:
        if _differs(reading, text):
            yield canonical(text, reading, entities)


def neutralise(text: str, protocol: Protocol = "pairwise") -> Neutralised:
    """``text`` as ``protocol``'s judge may see it (see the module docstring for the rule):
    recognised in the plain reading, then what rendering Markdown/HTML would still show."""
    counts = dict.fromkeys(KINDS, 0)
    entities = EntityReads()  # read once for every reading while no rewrite changes them
    for reading in READINGS:
        if not _differs(reading, text):
            continue  # reads as the plain reading
        canon = canonical(text, reading, entities)  # of the text as the previous reading left it
        found = recognised(canon, protocol)
        for spans in found:
            counts[spans.kind] += len(spans.starts)
        if found:
            text = _rewritten(text, found) if canon.text == text else _mapped(canon, found)
    return Neutralised(text, counts)


def _targets(canon: Canonical, found: list[Found]) -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
    """The canonical indices of the characters the spans found rewrite (ascending) and what each
    becomes (``_Replacements``): the characters of each rewrite's ``targets`` inside its spans
    (rewrites never share a target, so a character has one replacement)."""
    codes = code_points(canon.text)
    size = len(codes) + 1
    inside = np.zeros(len(codes), bool)
    into: dict[int, str] = {}
    for rewrite in {id(spans.rewrite): spans.rewrite for spans in found}.values():
        mine = [spans for spans in found if spans.rewrite is rewrite]
        lo = np.concatenate([spans.starts for spans in mine])
        hi = np.concatenate([spans.ends for spans in mine])
        depth = np.cumsum(np.bincount(lo, minlength=size) - np.bincount(hi, minlength=size))
        targets = {ord(c): r for c, r in rewrite.into.items()}
        inside |= (depth[:-1] > 0) & np.isin(codes, list(targets))
        into.update(targets)
    index = np.flatnonzero(inside)
    keys = np.array(sorted(into), np.int64)
    values = np.array([_code(into[key]) for key in keys.tolist()], np.int64)
    replaced = values[np.searchsorted(keys, codes[index])]
    longer = {int(i): into[int(codes[index[i]])] for i in np.flatnonzero(replaced == _LONGER)}
    return index, replaced, longer


_REMOVED, _LONGER = -1, -2
"""Replacements as codes: a character's code point, or ``_REMOVED`` (``""``), or ``_LONGER``
(a longer text, kept beside the codes by position)."""


def _code(replacement: str) -> int:
    if len(replacement) == 1:
        return ord(replacement)
    return _REMOVED if not replacement else _LONGER


def _mapped(canon: Canonical, found: list[Found]) -> str:
    """The original of ``canon`` with every span found rewritten where it was written.

    A rewritten character of an exact segment replaces its original; one of an entity or an
    expanding character replaces the whole of it (the segment's reading, rewritten, in its first
    cell), except an escape (``\\]``), which keeps its mark. Vectorised: the work per rewritten
    character is a few array operations, not a Python step."""
    text = canon.source
    index, into, longer = _targets(canon, found)
    starts, origins, ends, exact = canon.segments
    k = np.searchsorted(starts, index, "right") - 1
    lo = origins[k] + index - starts[k]  # the original range each replacement takes
    hi = lo + 1
    odd = np.flatnonzero(~exact[k])
    if len(odd):
        segment = k[odd]
        sizes = np.diff(np.append(starts, len(canon.text)))
        single = sizes[segment] == 1
        one, seg = odd[single], segment[single]  # one-character readings (``&gt;``, ``\\]``)
        escape = code_points(text)[ends[seg] - 1] == code_points(canon.text)[index[one]]
        lo[one] = np.where(escape, ends[seg] - 1, origins[seg])
        hi[one] = ends[seg]
        if not single.all():  # longer readings (``ﬀ``, ``⑵``): the reading, rewritten
            keep = np.ones(len(index), bool)
            many, segs = odd[~single], segment[~single]
            for k_ in distinct_values(segs).tolist():
                at = many[segs == k_].tolist()
                first = int(starts[k_])
                piece = canon.text[first : first + int(sizes[k_])]
                replace = {int(index[i]) - first: _replacement(into, longer, i) for i in at}
                rewritten = "".join(replace.get(n, ch) for n, ch in enumerate(piece))
                o, e = int(origins[k_]), int(ends[k_])
                lo[at[0]] = e - len(piece) if text.endswith(piece, o, e) else o  # an escape
                hi[at[0]] = e
                into[at[0]], longer[at[0]] = _LONGER, rewritten
                keep[at[1:]] = False
            renumbered = np.cumsum(keep) - 1
            longer = {int(renumbered[i]): t for i, t in longer.items() if keep[i]}
            lo, hi, into = lo[keep], hi[keep], into[keep]
    return _replaced(text, lo, hi, into, longer)


def _replacement(into: np.ndarray, longer: dict[int, str], i: int) -> str:
    code = int(into[i])
    return chr(code) if code >= 0 else longer.get(i, "")


def _replaced(
    text: str, lo: np.ndarray, hi: np.ndarray, into: np.ndarray, longer: dict[int, str]
) -> str:
    """``text`` with each of the disjoint, ascending ranges ``[lo[i], hi[i])`` replaced as
    ``into[i]`` says (``_REMOVED``, ``_LONGER``: ``longer[i]``): one-character and empty
    replacements in a code-point array, longer ones spliced in afterwards."""
    codes = code_points(text).copy()
    size = len(codes) + 1
    if (hi - lo == 1).all():  # each range one character: none drops another
        keep = np.ones(len(codes), bool)
    else:
        dropped = np.cumsum(np.bincount(lo + 1, minlength=size) - np.bincount(hi, minlength=size))
        keep = dropped[:-1] == 0
    one = into >= 0
    codes[lo[one]] = into[one]
    keep[lo[into == _REMOVED]] = False
    out = codes[keep].tobytes().decode("utf-32-le", "surrogatepass")
    if not longer:
        return out
    spliced = sorted(longer)
    at = (np.cumsum(keep) - 1)[lo[spliced]].tolist()  # where each first cell now stands
    pieces: list[str] = [""] * (2 * len(at) + 1)
    pieces[0::2] = map(out.__getitem__, map(slice, [0, *(a + 1 for a in at)], [*at, len(out)]))
    pieces[1::2] = [longer[i] for i in spliced]
    return "".join(pieces)


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
