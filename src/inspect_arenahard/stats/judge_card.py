"""A judge's report card against human labels: is this pairwise judge good enough?

Input: one ``CardItem`` per judged human-labelled pair (both positions, as the
``arenahard_judgecard`` task asks). Per judge: accuracy against the human majority (each game
that parsed scores 1 when its preferred side, or tie, is the majority's; an item counts the mean
of its games) with an interval clustered on items, the human–human ceiling where a set has
several annotators (each annotator against the majority of the others, the same scoring),
position consistency, tie rate, the share of decisive verdicts for the longer answer, and the
accuracy of always choosing the longer answer on the same items — the baseline a judge must beat.
Tie rate and length preference are shares of games (their intervals treat games as the units);
the others are shares of items. Pure numpy/scipy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from inspect_arenahard.stats.verdict_points import Position, weighted_points

CARD = "card"
"""Score metadata key of a report-card item (``item``, ``source``, ``gold``, ``annotations``,
``length_1``, ``length_2``)."""


def verdict_for_submissions(label: str | None, submission_1_position: Position) -> str | None:
    """A game's label as ``"1"``, ``"2"`` or ``"0"`` (tie) about the stored submissions."""
    if label is None:
        return None
    points, _ = weighted_points(label, submission_1_position, 1)
    return "1" if points == 1 else "2" if points == 0 else "0"


@dataclass(frozen=True)
class CardItem:
    """One human-labelled pair as a judge judged it: verdicts are ``"1"`` (submission 1 better),
    ``"2"`` or ``"0"`` (tie), already mapped back from the position shown; None: unparsed."""

    judge: str
    item: str
    source: str
    gold: str | None
    """The human majority (None: the annotators had none)."""
    annotations: tuple[str, ...]
    verdicts: tuple[str | None, ...]
    """One per game (game 1 showed submission 2 first, game 2 submission 1 first)."""
    length_1: int
    length_2: int

    @property
    def longer(self) -> str:
        """``"1"`` or ``"2"``: the longer submission (``"0"`` when equally long)."""
        return (
            "1" if self.length_1 > self.length_2 else "2" if self.length_2 > self.length_1 else "0"
        )


@dataclass(frozen=True)
class ItemShare:
    """A mean of per-item values in [0, 1] with its interval and the units (items, or games)
    behind it (a count share of games with a prompt-clustered interval is
    ``inspect_arenahard.stats.shares.Share``)."""

    value: float | None
    lower: float | None
    upper: float | None
    n: int


def item_share(per_item: Sequence[float], ci: float = 0.95) -> ItemShare:
    """The mean of per-item values in [0, 1] with a normal interval from their spread (the items
    are the independent units), clipped to [0, 1]."""
    values = np.asarray(per_item, dtype=float)
    if not len(values):
        return ItemShare(None, None, None, 0)
    mean = float(values.mean())
    se = float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0
    half = float(norm.ppf(0.5 + ci / 2)) * se
    return ItemShare(mean, max(0.0, mean - half), min(1.0, mean + half), len(values))


def _human_ceiling(items: Sequence[CardItem], ci: float) -> ItemShare:
    """Each annotator against the majority of the others (items with ≥ 3 labels and a majority
    among the others), averaged per item."""
    per_item = []
    for item in items:
        votes = item.annotations
        if len(votes) < 3:
            continue
        scores = []
        for k, vote in enumerate(votes):
            others = Counter(votes[:k] + votes[k + 1 :]).most_common()
            if len(others) == 1 or others[0][1] > others[1][1]:
                scores.append(float(vote == others[0][0]))
        if scores:
            per_item.append(float(np.mean(scores)))
    return item_share(per_item, ci)


@dataclass(frozen=True)
class JudgeCard:
    """One judge's card on one set of items."""

    judge: str
    items: int
    """Items with a human majority and at least one parsed game."""
    unparsed_games: int
    accuracy: ItemShare
    human_ceiling: ItemShare
    position_consistency: ItemShare
    tie_rate: ItemShare
    longer_preference: ItemShare
    """ItemShare of the judge's decisive verdicts that chose the longer submission."""
    always_longer: ItemShare
    """Accuracy of always choosing the longer submission, on the same items."""


def judge_cards(items: Sequence[CardItem], ci: float = 0.95) -> list[JudgeCard]:
    """A card per judge, judges in name order."""
    by_judge: dict[str, list[CardItem]] = {}
    for item in items:
        by_judge.setdefault(item.judge, []).append(item)
    cards = []
    for judge in sorted(by_judge):
        mine = by_judge[judge]
        scored = [i for i in mine if i.gold is not None and any(v is not None for v in i.verdicts)]
        accuracy = [np.mean([v == i.gold for v in i.verdicts if v is not None]) for i in scored]
        both = [i for i in mine if len(i.verdicts) == 2 and None not in i.verdicts]
        parsed = [v for i in mine for v in i.verdicts if v is not None]
        decisive = [(v, i.longer) for i in mine for v in i.verdicts if v in ("1", "2")]
        cards.append(
            JudgeCard(
                judge=judge,
                items=len(scored),
                unparsed_games=sum(v is None for i in mine for v in i.verdicts),
                accuracy=item_share([float(a) for a in accuracy], ci),
                human_ceiling=_human_ceiling(scored, ci),
                position_consistency=item_share(
                    [float(i.verdicts[0] == i.verdicts[1]) for i in both], ci
                ),
                tie_rate=item_share([float(v == "0") for v in parsed], ci),
                longer_preference=item_share(
                    [float(v == longer) for v, longer in decisive if longer != "0"], ci
                ),
                always_longer=item_share([float(i.longer == i.gold) for i in scored], ci),
            )
        )
    return cards
