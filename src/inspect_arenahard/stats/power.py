"""How many prompts a benchmark needs to tell two models apart, from per-prompt score spread.

Scores are per-prompt values (e.g. the contestant's weighted share of a prompt's games, 0–100);
a model's benchmark score is treated as the mean over n prompts, normal with standard error
σ/√n. Two criteria are given:

* ``ci_overlap``: the two models' ``ci`` intervals do not overlap (the separability criterion
  of the Arena-Hard paper): Δ > z(σ_a + σ_b)/√n;
* ``paired``: a two-sided paired z-test on per-prompt differences at level 1 − ci, which uses
  that every model answers the same prompts: Δ > z·σ_d/√n.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass
from typing import Any, Hashable, Iterable, Mapping

import numpy as np

from inspect_arenahard.stats.game_record import GameRecord
from inspect_arenahard.stats.judge_bias import per_prompt_scores
from inspect_arenahard.stats.quality import DEFAULT_CI, z_value


def prompts_needed(sigma_a: float, sigma_b: float, delta: float, ci: float = DEFAULT_CI) -> int:
    """Smallest n for which two models ``delta`` apart have non-overlapping ``ci`` intervals."""
    return _needed(z_value(ci) * (sigma_a + sigma_b), delta)


def prompts_needed_paired(sigma_diff: float, delta: float, ci: float = DEFAULT_CI) -> int:
    """Smallest n for which a paired z-test separates two models ``delta`` apart."""
    return _needed(z_value(ci) * sigma_diff, delta)


def _needed(spread: float, delta: float) -> int:
    if delta <= 0:
        raise ValueError(f"delta must be positive, got {delta}")
    return max(1, math.ceil((spread / delta) ** 2 - 1e-9))


@dataclass(frozen=True)
class ModelSpread:
    """How much one model's per-prompt scores vary, which sets the prompts needed."""

    model: str
    n_prompts: int
    mean: float
    sd: float


@dataclass(frozen=True)
class PowerReport:
    """Per-model spread, prompts needed for ``delta`` under both criteria, and how many of the
    current pairs are already separated."""

    delta: float
    ci: float
    models: list[ModelSpread]
    typical_sd: float
    typical_sd_diff: float
    n_prompts: int
    prompts_needed_ci_overlap: int
    prompts_needed_paired: int | None
    """None without a pair of models scored on the same prompts (nothing to pair)."""
    min_delta_ci_overlap: float
    min_delta_paired: float
    n_pairs: int
    pairs_separated_ci_overlap: int
    pairs_separated_paired: int

    def to_dict(self) -> dict[str, Any]:
        """As a dict, for the JSON outputs."""
        return asdict(self)


def _rms(values: list[float]) -> float:
    return float(np.sqrt(np.mean(np.square(values)))) if values else math.nan


def power_analysis(
    scores: Mapping[str, Mapping[Hashable, float]], delta: float, ci: float = DEFAULT_CI
) -> PowerReport:
    """``scores[model][prompt]`` → report. "Typical" spreads are root-mean-squares over models
    (σ) and over model pairs on their shared prompts (σ_d); n is the median prompt count."""
    z = z_value(ci)
    if not scores:
        raise ValueError("power analysis needs per-prompt scores of at least one model")
    spreads = []
    for model in sorted(scores):
        values = np.array(list(scores[model].values()), dtype=float)
        if len(values) < 2:
            raise ValueError(
                f"model {model!r} has {len(values)} scored prompt(s); the spread needs at least 2"
            )
        spreads.append(
            ModelSpread(model, len(values), float(values.mean()), float(values.std(ddof=1)))
        )
    sd_diffs, sep_ci, sep_paired = [], 0, 0
    for a, b in itertools.combinations(spreads, 2):
        half_a, half_b = z * a.sd / math.sqrt(a.n_prompts), z * b.sd / math.sqrt(b.n_prompts)
        sep_ci += abs(a.mean - b.mean) > half_a + half_b
        shared = [p for p in scores[a.model] if p in scores[b.model]]
        if len(shared) >= 2:
            diff = np.array([scores[a.model][p] - scores[b.model][p] for p in shared], dtype=float)
            sd_d = float(diff.std(ddof=1))
            sd_diffs.append(sd_d)
            sep_paired += abs(diff.mean()) > z * sd_d / math.sqrt(len(shared))
    typical_sd = _rms([s.sd for s in spreads])
    typical_sd_diff = _rms(sd_diffs)
    n = int(np.median([s.n_prompts for s in spreads])) if spreads else 0
    return PowerReport(
        delta=delta,
        ci=ci,
        models=spreads,
        typical_sd=typical_sd,
        typical_sd_diff=typical_sd_diff,
        n_prompts=n,
        prompts_needed_ci_overlap=prompts_needed(typical_sd, typical_sd, delta, ci),
        prompts_needed_paired=prompts_needed_paired(typical_sd_diff, delta, ci)
        if sd_diffs
        else None,
        min_delta_ci_overlap=2 * z * typical_sd / math.sqrt(n) if n else math.nan,
        min_delta_paired=z * typical_sd_diff / math.sqrt(n) if n and sd_diffs else math.nan,
        n_pairs=len(spreads) * (len(spreads) - 1) // 2,
        pairs_separated_ci_overlap=int(sep_ci),
        pairs_separated_paired=int(sep_paired),
    )


def power_per_judge(
    records: Iterable[GameRecord], delta: float, ci: float = DEFAULT_CI
) -> dict[str, PowerReport]:
    """:func:`power_analysis` of each judge's per-prompt scores of game records, judges in name
    order: a judge's verdicts are the measurement, so their spreads are not pooled."""
    scores = per_prompt_scores(records)
    return {judge: power_analysis(scores[judge], delta, ci) for judge in sorted(scores)}
