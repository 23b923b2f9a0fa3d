"""Reading a verdict label out of a judge's text: pairwise labels, and Auto-Arena battle labels.

Pure functions (no Inspect imports) used by the judge scorer and the importer; what a label is
worth is ``inspect_arenahard.stats.verdict_points``. The grammar is written once, here:
``LETTERS``, ``sign_pattern``, the brackets and the whitespace class ``\\s`` build both
the parser's patterns and what ``inspect_arenahard.judging.integrity`` recognises (the same
labels, also with spaces between their characters), so the two cannot disagree.
"""

from __future__ import annotations

import re

from inspect_arenahard.stats.verdict_points import SPELLINGS

LABEL_SPELLINGS: tuple[str, ...] = tuple(SPELLINGS)
"""Every spelling the parser accepts inside its brackets (canonical and mirrored)."""
LETTERS = "".join(sorted({s[0] for s in SPELLINGS} | {s[-1] for s in SPELLINGS}))
"""The letters a label compares."""
_SIGNS = sorted({s[1:-1] for s in SPELLINGS}, key=len, reverse=True)


def sign_pattern(space: str = "") -> str:
    """The comparison signs as an alternation, ``space`` allowed between their characters."""
    return "|".join(space.join(map(re.escape, sign)) for sign in _SIGNS)


_ALTERNATION = "|".join(re.escape(k) for k in sorted(SPELLINGS, key=len, reverse=True))
_DOUBLE = re.compile(rf"\[\[\s*+({_ALTERNATION})\s*+\]\]")
_SINGLE = re.compile(rf"(?<!\[)\[\s*+({_ALTERNATION})\s*+\](?!\])")

_CRITERIA_OPENING = r"criteria\s++satisfied\s*+\**+\s*+:\s*+\**+\s*+\["
CRITERIA_LABEL = re.compile(_CRITERIA_OPENING + r"([^\[\]]*+)\]", re.IGNORECASE)
"""BenchBuilder's annotation verdict: ``Criteria Satisfied: [1, 2, 4]`` (bold allowed); read by
``inspect_arenahard.curate.annotate.parse_criteria`` and neutralised in crowd prompts. It is
the annotation's only grammar: a prompt's quality score is the number of criteria in its list,
so a crowd prompt forges a score only by writing this label."""
CRITERIA_LABEL_OR_OPENING = re.compile(_CRITERIA_OPENING + r"(?:[^\[\]]*+\])?", re.IGNORECASE)
"""A whole ``CRITERIA_LABEL``, or its opening where the list does not close before another
bracket: what the neutraliser rewrites. Its opening bracket rewritten, no label can close over
it later (``Criteria Satisfied: [`` before a label inside would otherwise take that label's
rewritten list as its own). Each list is scanned once, up to the next bracket."""

BATTLE_LABEL = re.compile(r"\[\s*+(A|B|[Tt][Ii][Ee])\s*+\]")
"""An Auto-Arena battle verdict: ``[A]``, ``[B]`` (exact case: ``d[a]`` in code is no verdict)
or ``[Tie]`` (any case)."""


def parse_verdict(text: str, allow_single_brackets: bool = False) -> str | None:
    """The one verdict label in a judge's output, or None.

    Output with no label, or with two *different* labels (after mirroring), is unparsed: a
    judge that changes its mind mid-text has not given a verdict. Single brackets (``[A>B]``)
    are a fallback used only when no double-bracket label is present.
    """
    found = verdict_labels(text, allow_single_brackets)
    return found.pop() if len(found) == 1 else None


def verdict_labels(text: str, allow_single_brackets: bool = False) -> set[str]:
    """Every label (canonical) the parser reads in ``text``: double brackets, else (when
    allowed) single ones."""
    found = {SPELLINGS[m.replace(" ", "")] for m in _DOUBLE.findall(text)}
    if not found and allow_single_brackets:
        found = {SPELLINGS[m.replace(" ", "")] for m in _SINGLE.findall(text)}
    return found
