"""Has a judge changed between two runs? An exact test on the paired verdicts of canary games.

Every run judges the same canary pairs in both positions (``inspect_arenahard.evaluate.canaries``).
For one prompt, let ``d₁`` and ``d₂`` be how far the verdict on the canary's model moved between
the two runs in game 1 and game 2 (on the −2…2 scale of the five labels). If the judge did not
change, each call is an independent draw from the same judge, so each ``d`` is symmetric about 0
and the two positions' moves are independent: ``d₁·d₂`` is as likely positive as negative. A
changed judge moves both positions of a prompt together (it now prefers the other answer:
``d₁·d₂ > 0``) or apart (its position preference moved: ``< 0``). The statistic is
``S = Σ d₁·d₂`` over prompts; its null distribution, every term's sign flipped independently, is
enumerated exactly, so a stochastic but unchanged judge is refused with probability at most
``DRIFT_ALPHA``, whatever its noise. A judge answering at random moves nothing together and is
never called drifting; a deterministic judge that changed its view on ``k`` prompts in both
positions is caught once ``2 · 2⁻ᵏ < α`` (``k ≥ 8`` at 1%).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from inspect_arenahard.stats.verdict_points import LABELS, normalize_label

DRIFT_ALPHA = 0.01
"""Level of the drift test: an unchanged judge's runs are refused in at most 1% of pairs."""

_VALUE_FOR_A = dict(zip(LABELS, (2, 1, 0, -1, -2)))


def canary_value(label: str | None, model_position: str) -> int | None:
    """A verdict on the canary's model side: 2 (much better) … −2 (much worse); None unparsed."""
    normal = normalize_label(label) if label else None
    if normal is None:
        return None
    value = _VALUE_FOR_A[normal]
    return value if model_position == "A" else -value


def sign_flip_p_value(terms: Sequence[int]) -> float:
    """Two-sided exact p-value of ``S = Σ terms`` against every term's sign flipped
    independently with probability ½: ``P(|S'| ≥ |S|)``, by exact enumeration of the sums."""
    counts: dict[int, int] = {0: 1}
    for term in terms:
        size = abs(int(term))
        nxt: dict[int, int] = {}
        for total, n in counts.items():
            for step in (size, -size) if size else (0, 0):
                nxt[total + step] = nxt.get(total + step, 0) + n
        counts = nxt
    observed = abs(sum(int(t) for t in terms))
    extreme = sum(n for total, n in counts.items() if abs(total) >= observed)
    return float(Fraction(extreme, 2 ** len(terms)))


@dataclass(frozen=True)
class CanaryComparison:
    """One run's canary verdicts against the judge's first run."""

    judge: str
    earlier: str
    later: str
    games: int
    """Canary games judged (parsed) in both runs."""
    disagree: int
    """Of those, games whose labels differ."""
    prompts: int
    """Canary prompts with both positions judged in both runs (the test's terms)."""
    statistic: int
    p_value: float

    @property
    def agreement(self) -> float | None:
        """Share of paired canary games with the same label."""
        return 1 - self.disagree / self.games if self.games else None

    @property
    def drifted(self) -> bool:
        """Whether the verdicts differ beyond chance (``DRIFT_ALPHA``)."""
        return self.p_value < DRIFT_ALPHA


def compare_runs(
    judge: str,
    earlier: str,
    later: str,
    earlier_games: Sequence[Mapping[str, Any]],
    later_games: Sequence[Mapping[str, Any]],
) -> CanaryComparison:
    """The drift test between two runs' canary games of one judge (records with
    ``question_id``, ``game``, ``model_position``, ``label``; ``epoch`` optional)."""

    def values(games: Sequence[Mapping[str, Any]]) -> dict[tuple[str, int, int], tuple[str, int]]:
        out = {}
        for g in games:
            value = canary_value(g.get("label"), g["model_position"])
            if value is not None:
                key = (str(g["question_id"]), int(g.get("epoch") or 1), int(g["game"]))
                out[key] = (str(normalize_label(g["label"])), value)
        return out

    old, new = values(earlier_games), values(later_games)
    paired = sorted(set(old) & set(new))
    disagree = sum(old[k][0] != new[k][0] for k in paired)
    moves: dict[tuple[str, int], dict[int, int]] = {}
    for qid, epoch, game in paired:
        moves.setdefault((qid, epoch), {})[game] = (
            new[(qid, epoch, game)][1] - old[(qid, epoch, game)][1]
        )
    terms = [m[1] * m[2] for m in moves.values() if 1 in m and 2 in m]
    return CanaryComparison(
        judge=judge,
        earlier=earlier,
        later=later,
        games=len(paired),
        disagree=disagree,
        prompts=len(terms),
        statistic=sum(terms),
        p_value=sign_flip_p_value(terms),
    )


@dataclass(frozen=True)
class JudgeDrift:
    """One judge's runs with canary games, oldest first, each later one against the first."""

    judge: str
    runs: tuple[str, ...]
    comparisons: tuple[CanaryComparison, ...]

    @property
    def drifted(self) -> tuple[CanaryComparison, ...]:
        """The comparisons whose verdicts differ beyond chance."""
        return tuple(c for c in self.comparisons if c.drifted)


def canary_drift(
    canaries: Sequence[Mapping[str, Any]], run_order: Sequence[str]
) -> list[JudgeDrift]:
    """Per judge (by name), every run that judged canaries compared with its first such run.

    ``canaries`` are canary game records (``judge``, ``log`` and the fields of
    ``compare_runs``); ``run_order`` lists the runs (``log``) oldest first."""
    position = {run: k for k, run in enumerate(run_order)}
    by_judge: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for game in canaries:
        run = str(game.get("log", "records"))
        by_judge.setdefault(str(game["judge"]), {}).setdefault(run, []).append(game)
    out = []
    for judge in sorted(by_judge):
        runs = sorted(by_judge[judge], key=lambda r: (position.get(r, len(position)), r))
        first = runs[0]
        comparisons = tuple(
            compare_runs(judge, first, run, by_judge[judge][first], by_judge[judge][run])
            for run in runs[1:]
        )
        out.append(JudgeDrift(judge=judge, runs=tuple(runs), comparisons=comparisons))
    return out
