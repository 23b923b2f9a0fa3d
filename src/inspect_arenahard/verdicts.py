"""Five-point pairwise verdict labels: parsing judge text and scoring a verdict for one side.

Pure functions (no Inspect imports) shared by the judge scorer, the log reader and the
aggregator, so that a label means the same thing everywhere.
"""

from __future__ import annotations

import re
from typing import Literal

Position = Literal["A", "B"]

LABELS: tuple[str, ...] = ("A>>B", "A>B", "A=B", "B>A", "B>>A")
"""Canonical labels, best for Assistant A first."""

_MIRRORED = {"B<<A": "A>>B", "B<A": "A>B", "B=A": "A=B", "A<B": "B>A", "A<<B": "B>>A"}
_CANONICAL = {label: label for label in LABELS} | _MIRRORED
LABEL_SPELLINGS: tuple[str, ...] = tuple(_CANONICAL)
"""Every spelling the parser accepts inside its brackets (canonical and mirrored)."""
_ALTERNATION = "|".join(re.escape(k) for k in sorted(_CANONICAL, key=len, reverse=True))
_DOUBLE = re.compile(rf"\[\[\s*({_ALTERNATION})\s*\]\]")
_SINGLE = re.compile(rf"(?<!\[)\[\s*({_ALTERNATION})\s*\](?!\])")

BATTLE_LABEL = re.compile(r"\[\s*(A|B|[Tt][Ii][Ee])\s*\]")
"""An Auto-Arena battle verdict: ``[A]``, ``[B]`` (exact case: ``d[a]`` in code is no verdict)
or ``[Tie]`` (any case)."""

STRONG_WEIGHT = 3
"""Arena-Hard counts a significant (``>>``) verdict as three battles."""


def normalize_label(raw: str) -> str | None:
    """Canonical form of a label or a mirrored spelling (``A<B`` → ``B>A``); None if unknown."""
    return _CANONICAL.get(raw.replace(" ", ""))


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
    found = {_CANONICAL[m.replace(" ", "")] for m in _DOUBLE.findall(text)}
    if not found and allow_single_brackets:
        found = {_CANONICAL[m.replace(" ", "")] for m in _SINGLE.findall(text)}
    return found


def outcome_for(label: str, position: Position) -> tuple[float, bool]:
    """(points, strong) of the side sitting at ``position``: win 1, tie 0.5, loss 0."""
    canonical = normalize_label(label)
    if canonical is None:
        raise ValueError(f"unknown verdict label {label!r}; expected one of {', '.join(LABELS)}")
    if canonical == "A=B":
        return 0.5, False
    winner = canonical[0]
    strong = ">>" in canonical
    return (1.0 if winner == position else 0.0), strong


def weighted_points(
    label: str, position: Position, strong_weight: float = STRONG_WEIGHT
) -> tuple[float, float]:
    """(points × weight, weight) of one game for the side at ``position``.

    Summing both over games and dividing gives Arena-Hard's battle win-rate, where a strong
    verdict counts ``strong_weight`` times.
    """
    points, strong = outcome_for(label, position)
    weight = strong_weight if strong else 1.0
    return points * weight, weight
