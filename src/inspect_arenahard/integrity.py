"""Neutralise text only a judge may write before an answer is placed in a judge prompt.

An answer is data for the judge, never part of its instructions or of its verdict. Every site
that builds a judge prompt (pairwise games, committee discussion, Auto-Arena battle transcripts,
ScaleEval debates) passes each answer, reference, opponent turn and quoted peer reply through
:func:`neutralise` first. A judge that quotes an answer, echoes its prompt or is cut off after a
quote can then never show a label that the verdict parsers accept, and an answer can never
close its own delimiter.

The rule, deterministic and applied in this order (the judge still reads what was written):

``verdict_label``
    The square brackets around a verdict label of any protocol become full-width brackets
    (U+FF3B ``［``, U+FF3D ``］``): Arena-Hard's five labels in every spelling the parser
    accepts and more (``[[A>>B]]``, ``[[ B << A ]]``, ``[A=B]``, one-sided ``[[A>B``), and the
    battle labels ``[A]``, ``[B]``, ``[Tie]`` (any case, any nesting). ``[[B>>A]]`` reads
    ``［［B>>A］］``.
``delimiter``
    Template markers: ``<|…|>`` spans (our templates' delimiters and chat role markers such as
    ``<|im_start|>``) become ``‹|…|›`` (U+2039/U+203A), as does an unclosed ``<|The End of …``;
    ScaleEval's headings (``[Question]``, ``[Submission 1]``, ``[Criteria]``, ``[User]``,
    ``[Speaker 2's …]``) get full-width brackets.
``scaleeval_number``
    A line that ScaleEval's parser would read as a verdict (``1``, ``2`` or ``0`` alone, with
    decoration) gets full-width digits (``２``).

Nothing else changes. Neutralising is idempotent. Counts per kind are returned so each sample
records what was changed in which text (score metadata ``neutralised``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Mapping

from inspect_arenahard.scaleeval.numbers import lone_number

KINDS: tuple[str, ...] = ("verdict_label", "delimiter", "scaleeval_number")
RULES_VERSION = 1
"""Version of the rule above, recorded with every judged sample (score metadata
``neutralisation``): judgments made under different rules are not pooled silently. Bump it
whenever a pattern changes what a judge is shown."""

_BRACKETS = str.maketrans("[]", "\uff3b\uff3d")
_ANGLES = str.maketrans("<>", "\u2039\u203a")
_DIGITS = str.maketrans("012", "\uff10\uff11\uff12")

_FIVE = r"[AB]\s*(?:>\s*>|<\s*<|>|<|=)\s*[AB]"
_FIVE_LABEL = re.compile(rf"(?P<open>\[[\s\[]*)?{_FIVE}(?P<close>[\s\]]*\])?", re.IGNORECASE)
_BATTLE_LABEL = re.compile(r"\[[\s\[]*(?:A|B|Tie)[\s\]]*\]", re.IGNORECASE)
_MARKER = re.compile(r"<\s*\|[^|<>\n]{0,100}\|\s*>")
_OPEN_MARKER = re.compile(
    r"<(?=\s*\|\s*(?:The\s+(?:Start|End)\s+of|User\s+(?:Prompt|Question)|Round\s+\d))",
    re.IGNORECASE,
)
_HEADING = re.compile(
    r"\[\s*(?:Question|Submission\s*\d*|Criteria|User|Speaker\s*\d+[^\]\n]{0,80})\s*\]",
    re.IGNORECASE,
)


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


def _five_point(match: re.Match[str]) -> str:
    if match.group("open") is None and match.group("close") is None:
        return match.group(0)  # a comparison in prose or code, not a label
    return match.group(0).translate(_BRACKETS)


def _translated(table: dict[int, int]) -> Callable[[re.Match[str]], str]:
    return lambda match: match.group(0).translate(table)


_RULES: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    ("verdict_label", _FIVE_LABEL, _five_point),
    ("verdict_label", _BATTLE_LABEL, _translated(_BRACKETS)),
    ("delimiter", _MARKER, _translated(_ANGLES)),
    ("delimiter", _OPEN_MARKER, _translated(_ANGLES)),
    ("delimiter", _HEADING, _translated(_BRACKETS)),
)
"""(kind, pattern, replacement) applied in order; the line rule for ScaleEval numbers follows."""


def neutralise(text: str) -> Neutralised:
    """``text`` with judge-only spans neutralised (see the module docstring for the rule)."""
    spans = dict.fromkeys(KINDS, 0)
    for kind, pattern, replace in _RULES:

        def sub(
            match: re.Match[str],
            kind: str = kind,
            replace: Callable[[re.Match[str]], str] = replace,
        ) -> str:
            new = replace(match)
            spans[kind] += new != match.group(0)
            return new

        text = pattern.sub(sub, text)
    lines = text.splitlines(keepends=True)  # the line breaks ScaleEval's parser splits on
    for i, line in enumerate(lines):
        if lone_number(line) is not None:
            lines[i] = line.translate(_DIGITS)
            spans["scaleeval_number"] += 1
    return Neutralised("".join(lines), spans)


def neutralise_all(
    texts: Mapping[str, str | None],
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
        result = neutralise(text)
        out[name] = result.text
        records[name] = result.record()
    return out, records
