"""Does a judge's verdict say anything about the answers? Checked from the games a ranking already
has (no extra calls): per judge, position consistency, the share of games won by position A, the
tie share and the share decided for the longer answer, each with a prompt-clustered interval
(the figures are ``inspect_arenahard.stats.judge_bias``'s, counted once there).

A judge is flagged when its verdicts carry (almost) no information, so that a ranking resting on
it cannot pass for a measurement (a judge answering ``[[A>>B]]`` to every game gives every model
"50.0 [50.0, 50.0]"). Each flag needs its figure past a threshold *and* its interval past chance,
so a handful of games never raises one. The thresholds and the real judges' figures they were set
against are in docs/quality.md ("Judge flags").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from inspect_arenahard.stats.game_record import GameRecord
from inspect_arenahard.stats.game_table import GameTable
from inspect_arenahard.stats.judge_bias import JudgeGames, judge_games
from inspect_arenahard.stats.quality import DEFAULT_CI
from inspect_arenahard.stats.shares import Share, share_by_cluster
from inspect_arenahard.stats.verdict_points import LABELS

POSITION_ONLY = 0.9
"""Flag ``position-only``: one position won both games of at least this share of swapped pairs."""
CONSTANT = 0.9
"""Flag ``constant``: one label in at least this share of parsed games."""
LENGTH_ONLY = 0.95
"""Flag ``length-only``: the longer answer won at least this share of decisive games whose answers
differ in length (the most length-driven real judge, gpt-4o over gpt-4o, is at 85%)."""
CHANCE = 0.5
"""A share is beyond chance when its interval's lower bound is above this (a judge flipping a fair
coin per game has one position win both games of a quarter of the pairs)."""
INCONSISTENT = 0.5
"""Flag ``swap-inconsistent``: swapped games agree (win/tie/loss) in fewer than this share of
pairs even at the top of the interval, i.e. less often than a fair coin per game would (the least
consistent real judge with many pairs agrees in 62%)."""
FLAGS = ("position-only", "constant", "swap-inconsistent", "length-only")


@dataclass(frozen=True)
class JudgeCheck:
    """One judge's information checks: its figures with intervals, and the flags they raise."""

    judge: str
    games: int
    consistency: Share
    """Swapped pairs whose two games give the model the same win/tie/loss."""
    position_a: Share
    """Parsed games won by position A."""
    ties: Share
    """Parsed games judged a tie."""
    longer: Share
    """Decisive games whose answers differ in length, won by the longer answer."""
    one_position: Share
    """Swapped pairs won in both games by ``position`` (the position that did so more often)."""
    position: str
    top_label: Share
    """Parsed games given ``label`` (the commonest label)."""
    label: str | None
    flags: tuple[str, ...]

    def reasons(self) -> list[str]:
        """One phrase per flag, with the figure that raised it."""
        why = {
            "position-only": f"position {self.position} won both games of {self.one_position.text()} swapped pairs",
            "constant": f"{self.label} in {self.top_label.text()} games",
            "swap-inconsistent": f"swapped games agree in {self.consistency.text()} pairs",
            "length-only": f"the longer answer won {self.longer.text()} decisive games",
        }
        return [f"{flag}: {why[flag]}" for flag in self.flags]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: each figure with its interval, and the flags with their reasons."""
        return {
            "judge": self.judge,
            "games": self.games,
            "consistency": self.consistency.to_dict(),
            "position_a": self.position_a.to_dict(),
            "ties": self.ties.to_dict(),
            "longer_answer": self.longer.to_dict(),
            "one_position": self.one_position.to_dict() | {"position": self.position},
            "top_label": self.top_label.to_dict() | {"label": self.label},
            "flags": list(self.flags),
            "reasons": self.reasons(),
        }


def check_judge(games: JudgeGames, ci: float = DEFAULT_CI) -> JudgeCheck:
    """The checks of one judge's games."""
    slot = games.pair_slot
    position = "B" if np.sum(slot == "B") > np.sum(slot == "A") else "A"
    one_position = share_by_cluster(slot == position, games.pair_clusters, ci)
    code = _commonest(games.label_codes)
    label = None if code is None else LABELS[code]
    top_label = share_by_cluster(games.label_codes == code, games.label_clusters, ci)
    consistency = share_by_cluster(games.pair_same, games.pair_clusters, ci)
    longer = share_by_cluster(games.longer_won, games.longer_clusters, ci)
    raised = {
        "position-only": _beyond(one_position, POSITION_ONLY),
        "constant": _beyond(top_label, CONSTANT),
        "swap-inconsistent": consistency.n > 0 and consistency.upper < INCONSISTENT,
        "length-only": _beyond(longer, LENGTH_ONLY),
    }
    return JudgeCheck(
        judge=games.judge,
        games=games.n_games,
        consistency=consistency,
        position_a=share_by_cluster(games.a_won, games.label_clusters, ci),
        ties=share_by_cluster(games.tied, games.label_clusters, ci),
        longer=longer,
        one_position=one_position,
        position=position,
        top_label=top_label,
        label=label,
        flags=tuple(flag for flag in FLAGS if raised[flag]),
    )


def _commonest(codes: np.ndarray) -> int | None:
    """The commonest label code, the first seen among equally common ones; None without any."""
    if not len(codes):
        return None
    counts = np.bincount(codes, minlength=len(LABELS))
    tied = np.flatnonzero(counts == counts.max())
    return int(min(tied, key=lambda c: int(np.argmax(codes == c))))


def _beyond(share: Share, threshold: float) -> bool:
    return share.n > 0 and share.value >= threshold and share.lower > CHANCE


def check_judges(
    records: GameTable | Iterable[GameRecord], ci: float = DEFAULT_CI
) -> tuple[JudgeCheck, ...]:
    """Every judge's checks, in name order."""
    return tuple(check_judge(games, ci) for games in judge_games(records))


def flagged(checks: Iterable[JudgeCheck]) -> dict[str, JudgeCheck]:
    """The flagged judges' checks by judge."""
    return {c.judge: c for c in checks if c.flags}


def strict_error(checks: Mapping[str, JudgeCheck]) -> str:
    """The one line ``--strict-judges`` refuses a ranking with."""
    detail = "; ".join(f"{j} ({', '.join(c.reasons())})" for j, c in checks.items())
    return f"judge verdicts carry (almost) no information (--strict-judges): {detail}"
