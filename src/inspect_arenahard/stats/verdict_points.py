"""Five-point pairwise verdict labels and the points a verdict gives each side.

The scoring half of a verdict (parsing judge text is ``inspect_arenahard.judging.verdicts``): what a
label means, in one place, for the judge scorer, the log reader and every statistic, so that a
label is worth the same everywhere.
"""

from __future__ import annotations

from typing import Literal

Position = Literal["A", "B"]

LABELS: tuple[str, ...] = ("A>>B", "A>B", "A=B", "B>A", "B>>A")
"""Canonical labels, best for Assistant A first."""

_MIRRORED = {"B<<A": "A>>B", "B<A": "A>B", "B=A": "A=B", "A<B": "B>A", "A<<B": "B>>A"}
SPELLINGS: dict[str, str] = {label: label for label in LABELS} | _MIRRORED
"""Every accepted spelling of a label (canonical and mirrored, ``A<B`` = ``B>A``) → canonical."""

STRONG_WEIGHT = 3
"""Arena-Hard counts a significant (``>>``) verdict as three battles."""


def check_strong_weight(value: object, name: str = "strong_weight") -> int:
    """``value`` as a strong weight, or one ``ValueError`` naming ``name``: a whole number of
    battles, at least 1 (a strong verdict stands for that many repeated battles, as in battle
    files; 1 counts it as an ordinary win). ``3.0`` and ``"3"`` (a ``-T`` value) are 3."""
    if type(value) is int and value >= 1:
        return value
    number: object = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = value
    if (
        isinstance(number, bool)
        or not isinstance(number, (int, float))
        or not float(number).is_integer()
        or number < 1
    ):
        raise ValueError(f"{name}={value!r} must be a whole number of battles, at least 1")
    return int(number)


def normalize_label(raw: str) -> str | None:
    """Canonical form of a label or a mirrored spelling (``A<B`` → ``B>A``); None if unknown."""
    canonical = SPELLINGS.get(raw)  # the spelling almost every game has: no copy made
    return canonical if canonical is not None else SPELLINGS.get(raw.replace(" ", ""))


def _outcome(canonical: str, position: str) -> tuple[float, bool]:
    if canonical == "A=B":
        return 0.5, False
    return (1.0 if canonical[0] == position else 0.0), ">>" in canonical


_OUTCOMES: dict[tuple[str, str], tuple[float, bool]] = {
    (spelling, position): _outcome(canonical, position)
    for spelling, canonical in SPELLINGS.items()
    for position in ("A", "B")
}
"""Every (spelling, position)'s outcome, computed once: rankings look up one per game."""


def outcome_for(label: str, position: Position) -> tuple[float, bool]:
    """(points, strong) of the side sitting at ``position``: win 1, tie 0.5, loss 0."""
    known = _OUTCOMES.get((label, position))
    if known is not None:
        return known
    canonical = normalize_label(label)
    if canonical is None:
        raise ValueError(f"unknown verdict label {label!r}; expected one of {', '.join(LABELS)}")
    return _outcome(canonical, position)


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
