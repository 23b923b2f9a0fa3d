"""Tournament ratings: the Bradley–Terry fit of ``inspect_arenahard.stats``, shown as Elo.

Swiss rounds leave the battle graph disconnected early on (after round 1 it is n/2 separate
pairs), where Bradley–Terry strengths are undefined. The prior supplies the missing links: each
pair of neighbours in the prior order gets ``prior_ties`` tied pseudo-battles (judge ``prior``).
They connect the graph and shrink neighbours slightly toward each other without favouring
either; real battles soon outweigh them (40 per pairing in the paper). With ``prior_ties=0``
the fit uses battles only and needs a connected graph.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence

from inspect_arenahard.stats.estimates import CIMethod
from inspect_arenahard.stats.ranking import RankingOptions, rank

PRIOR_JUDGE = "prior"
ELO_BASE = 1000.0
ELO_SCALE = 400.0


def elo(percent: float, base: float = ELO_BASE, scale: float = ELO_SCALE) -> float:
    """Elo of a model winning ``percent`` % against the anchor (anchor = ``base``)."""
    p = min(max(percent / 100.0, 1e-12), 1 - 1e-12)
    return base + scale * math.log10(p / (1 - p))


def prior_games(order: Sequence[str], ties: int) -> list[dict[str, Any]]:
    """``ties`` tied pseudo-battles between each pair of neighbours in ``order``."""
    return [
        {"question_id": f"prior:{k}", "model": hi, "baseline": lo, "model_position": "A", "label": "A=B",
         "parsed": True, "judge": PRIOR_JUDGE, "category": None}
        for hi, lo in zip(order, order[1:])
        for k in range(ties)
    ]  # fmt: skip


@dataclass(frozen=True)
class Rating:
    """One model: Elo with its interval (question-clustered unless the tournament asks for the
    official bootstrap), and its real battles (parsed / excluded)."""

    model: str
    elo: float
    lower: float
    upper: float
    battles: int
    excluded: int


@dataclass(frozen=True)
class Ratings:
    """Ratings best first; ``anchor`` sits at ``ELO_BASE``."""

    anchor: str
    rows: tuple[Rating, ...]
    prior_ties: int
    interval: str = ""
    """Which interval the rows show (``Leaderboard.interval``); empty before any battle."""

    def ranking(self) -> list[str]:
        """Model names, best first."""
        return [r.model for r in self.rows]

    def record(self) -> dict[str, Any]:
        """JSON-safe form, stored per stage in ``state.json``."""
        return {
            "anchor": self.anchor,
            "prior_ties": self.prior_ties,
            "rows": [asdict(r) for r in self.rows],
            "interval": self.interval,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Ratings:
        """Inverse of ``record``."""
        return cls(
            record["anchor"], tuple(Rating(**r) for r in record["rows"]), int(record["prior_ties"]),
            str(record.get("interval", "")),
        )  # fmt: skip


def prior_ratings(order: Sequence[str]) -> Ratings:
    """Before any battle: the prior order, all at the base rating."""
    rows = tuple(Rating(m, ELO_BASE, ELO_BASE, ELO_BASE, 0, 0) for m in order)
    return Ratings(order[0], rows, 0)


def fit_ratings(
    games: Iterable[Mapping[str, Any]],
    prior_order: Sequence[str],
    prior_ties: int = 1,
    anchor: str | None = None,
    rounds: int = 100,
    seed: int = 0,
    ci: float = 0.95,
    ci_method: CIMethod = "sandwich",
) -> Ratings:
    """Bradley–Terry over ``games`` (the judge-record contract) plus the prior's ties, ranked by
    the ranking service; intervals cluster the battles by question (``ci_method``).

    Every model in ``prior_order`` is rated (ties on equal Elo broken by prior order). Unparsed
    games are counted per model in ``excluded``, never dropped silently.
    """
    games = list(games)
    anchor = anchor or prior_order[0]
    options = RankingOptions(
        baseline=anchor, method="bt", rounds=rounds, seed=seed, ci=ci, ci_method=ci_method,
        strong_weight=1, by_category=False,
    )  # fmt: skip
    table = rank([*games, *prior_games(prior_order, prior_ties)], options).overall
    parsed, excluded = Counter[str](), Counter[str]()
    for g in games:
        counter = parsed if g.get("parsed", True) and g.get("label") is not None else excluded
        counter.update((str(g["model"]), str(g["baseline"])))
    position = {m: i for i, m in enumerate(prior_order)}
    rows = [
        Rating(
            r.model, elo(r.score), elo(r.lower), elo(r.upper), parsed[r.model], excluded[r.model]
        )
        for r in table.rows
    ]
    unrated = sorted(set(prior_order) - {r.model for r in rows})
    if unrated:
        raise ValueError(
            f"no battles link {', '.join(unrated)} to the others (set prior_ties >= 1 or play more rounds)"
        )
    rows.sort(key=lambda r: (-round(r.elo, 9), position.get(r.model, len(position))))
    return Ratings(anchor, tuple(rows), prior_ties, table.interval)
