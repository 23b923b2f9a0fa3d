"""Verdict label parsing and per-side points."""

from __future__ import annotations

import pytest

from inspect_arenahard.judging.verdicts import parse_verdict
from inspect_arenahard.stats.verdict_points import (
    LABELS,
    normalize_label,
    outcome_for,
    weighted_points,
)


@pytest.mark.parametrize("label", LABELS)
def test_each_label_parses(label: str) -> None:
    assert parse_verdict(f"Long reasoning.\n\nMy final verdict is: [[{label}]]") == label


@pytest.mark.parametrize(
    ("mirrored", "canonical"),
    [("B<<A", "A>>B"), ("B<A", "A>B"), ("B=A", "A=B"), ("A<B", "B>A"), ("A<<B", "B>>A")],
)
def test_mirrored_spellings(mirrored: str, canonical: str) -> None:
    assert parse_verdict(f"verdict [[{mirrored}]]") == canonical
    assert normalize_label(mirrored) == canonical


def test_repeated_same_label_is_fine_but_two_labels_are_unparsed() -> None:
    assert parse_verdict("[[A>B]] so, again, [[B<A]]") == "A>B"
    assert parse_verdict("[[A>B]] no wait [[A>>B]]") is None
    assert parse_verdict("no label at all") is None
    assert parse_verdict("[[C>D]]") is None


def test_single_brackets_only_as_fallback() -> None:
    assert parse_verdict("final: [A>B]") is None
    assert parse_verdict("final: [A>B]", allow_single_brackets=True) == "A>B"
    assert parse_verdict("[B>A] but final [[A>B]]", allow_single_brackets=True) == "A>B"
    assert parse_verdict("[[A>B]]", allow_single_brackets=True) == "A>B"


def test_points() -> None:
    assert outcome_for("A>>B", "A") == (1.0, True)
    assert outcome_for("A>>B", "B") == (0.0, True)
    assert outcome_for("B=A", "B") == (0.5, False)
    assert weighted_points("B>>A", "B") == (3.0, 3)
    assert weighted_points("B>>A", "B", strong_weight=1) == (1.0, 1)
    with pytest.raises(ValueError, match="unknown verdict label"):
        outcome_for("A>>>B", "A")
