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

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Iterator, Literal, Mapping, NamedTuple

from inspect_arenahard.judging.canonical import READINGS, Canonical, canonical
from inspect_arenahard.judging.canonical import SPELLINGS as SPELLINGS
from inspect_arenahard.judging.scaleeval_verdicts import (
    HEADING,
    LINE_BREAKS,
    LONE_NUMBER,
    NAMED_NUMBER_LINE,
)
from inspect_arenahard.judging.verdicts import (
    BATTLE_LABEL,
    CRITERIA_LABEL,
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
    """A recognised span: its kind, canonical span and its rewrite (a tuple: texts can hold
    tens of thousands)."""

    kind: str
    start: int
    end: int
    rewrite: Rewrite


_BRACKETS = Rewrite(re.compile(r"[\[\]]"), {"[": "(", "]": ")"})
_MARKER_REWRITE = Rewrite(re.compile(r"[<>|]"), {"<": "(", ">": ")", "|": ""})
_DIGIT_WORDS = Rewrite(re.compile(r"[012]"), {"0": "zero", "1": "one", "2": "two"})


_LETTERS = LETTERS
_SIGN = sign_pattern(r"\s*+")
_CORE = re.compile(rf"[{_LETTERS}]\s*+(?:{_SIGN})\s*+[{_LETTERS}]")
"""A five-point label without brackets (internal spaces allowed); ``_LABEL_ENDS`` filters
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


def _named_numbers(lines: str) -> Iterator[Finding]:
    """Lines of ``lines`` (``\\n``-separated) that name a ScaleEval verdict (``Answer: 2``)."""
    for match in NAMED_NUMBER_LINE.finditer(lines):
        if match.end() > match.start():
            yield Finding("scaleeval_number", match.start(), match.end(), _DIGIT_WORDS)


def _verdict_numbers(text: str) -> Iterator[Finding]:
    """What ScaleEval's parser could read as a verdict if a judge showed ``text``: every line
    naming its verdict, and a lone digit, named or bare, on the last non-blank line (where a
    judge that quotes the text's end and stops would show it)."""
    if not any(d in text for d in "012"):
        return
    lines = text.translate(_LINE_BREAKS)  # the line breaks ScaleEval's parser splits on
    named = list(_named_numbers(lines))
    yield from named
    end = len(lines.rstrip())  # the end of the last non-blank line
    start = lines.rfind("\n", 0, end) + 1
    if LONE_NUMBER.fullmatch(lines, start, end) and not (named and named[-1].start == start):
        yield Finding("scaleeval_number", start, end, _DIGIT_WORDS)


def _judge_named_numbers(text: str) -> Iterator[Finding]:
    if any(d in text for d in "012"):
        yield from _named_numbers(text.translate(_LINE_BREAKS))


def _criteria(text: str) -> Iterator[Finding]:
    for match in CRITERIA_LABEL.finditer(text):
        yield Finding("criteria_label", match.start(), match.end(), _BRACKETS)


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


def judge_only(text: Canonical) -> Iterator[tuple[str, Finding]]:
    """Every span of the canonical ``text`` that a judge of any protocol writes, named for the
    audit (``verdict_label`` and ``delimiter`` as pairwise, ``battle_label``,
    ``scaleeval_heading``, ``scaleeval_verdict``: a line naming its verdict, since a bare
    ``2`` ending a text is common in honest answers)."""
    for name, recognise in _JUDGE_ONLY:
        for f in recognise(text.text):
            yield name, f


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


_RENDERED_ONLY = re.compile(r"[*_`~^{}$<\\]")
"""A text without these characters reads the same rendered as plain."""


def _differs(reading: str, text: str) -> bool:
    """Whether ``reading`` can recognise something in ``text`` that the plain one does not:
    only an entity can merge characters the parser reads as written, and only markup renders."""
    if reading == "raw":
        return "&" in text
    return reading == "plain" or _RENDERED_ONLY.search(text) is not None


def readings(text: str) -> Iterator[Canonical]:
    """``text`` in every reading that can differ (``inspect_arenahard.judging.canonical.READINGS``)."""
    for reading in READINGS:
        if _differs(reading, text):
            yield canonical(text, reading)


def neutralise(text: str, protocol: Protocol = "pairwise") -> Neutralised:
    """``text`` as ``protocol``'s judge may see it (see the module docstring for the rule):
    recognised in the plain reading, then what rendering Markdown/HTML would still show."""
    counts = dict.fromkeys(KINDS, 0)
    for reading in READINGS:
        if not _differs(reading, text):
            continue  # reads as the plain reading
        canon = canonical(text, reading)  # of the text as the previous reading left it
        found = findings(canon, protocol)
        for f in found:
            counts[f.kind] += 1
        if found:
            text = _rewritten(text, found) if canon.text == text else _mapped(canon, found)
    return Neutralised(text, counts)


def _mapped(canon: Canonical, found: list[Finding]) -> str:
    """The original of ``canon`` with every finding rewritten where it was written."""
    text = canon.source
    chars = list(text)  # the original, one cell per character
    odd: dict[int, dict[int, str]] = {}  # segment → {canonical index: replacement}
    starts, origins, exact = canon.starts, canon.origins, canon.exact
    for f in found:
        into = f.rewrite.into
        k = bisect_right(starts, f.start) - 1
        for m in f.rewrite.targets.finditer(canon.text, f.start, f.end):
            i = m.start()
            while k + 1 < len(starts) and starts[k + 1] <= i:
                k += 1
            if exact[k]:
                chars[origins[k] + i - starts[k]] = into[m.group()]
            else:
                odd.setdefault(k, {})[i] = into[m.group()]
    for k, replace in odd.items():
        # an entity or an expanding character: its canonical text, rewritten, in its first cell
        end = starts[k + 1] if k + 1 < len(starts) else len(canon.text)
        piece = canon.text[starts[k] : end]
        rewritten = "".join(replace.get(starts[k] + n, ch) for n, ch in enumerate(piece))
        if text.endswith(piece, origins[k], canon.ends[k]):  # an escape (``\\]``): keep its mark
            cells = [rewritten, *[""] * (len(piece) - 1)]
            chars[canon.ends[k] - len(piece) : canon.ends[k]] = cells
        else:
            chars[origins[k]] = rewritten
            chars[origins[k] + 1 : canon.ends[k]] = [""] * (canon.ends[k] - origins[k] - 1)
    return "".join(chars)


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
