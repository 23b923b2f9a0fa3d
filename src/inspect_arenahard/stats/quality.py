"""Benchmark-quality metrics: how well a benchmark separates models and agrees with a reference.

Definitions follow section 3 and appendix A.1 of "From Crowdsourced Data to High-Quality
Benchmarks: Arena-Hard and BenchBuilder". Every metric works on one model *pair* at a time, so
the inputs are per-model arrays (aligned by index between benchmark and reference): a point
score, a confidence interval and a normal approximation (mean, variance) of the score's
sampling distribution.

Two intervals are *separated* when one lies strictly above the other; touching or nested
intervals (including a zero-width interval of an anchor model inside another) overlap.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from inspect_arenahard.stats.rank_options import DEFAULT_CI as DEFAULT_CI  # re-exported


@dataclass(frozen=True)
class IntervalScores:
    """One side (benchmark or reference) of the comparison, one entry per model."""

    point: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    mean: np.ndarray
    var: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.point)
        for name in ("lower", "upper", "mean", "var"):
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"IntervalScores.{name} has {len(getattr(self, name))} entries, point has {n}"
                )

    def __len__(self) -> int:
        return len(self.point)


def z_value(ci: float) -> float:
    """Two-sided standard-normal quantile for a central interval of coverage ``ci``."""
    from scipy import stats  # on use: 0.4 s that ranking a battle file does without

    if not 0.0 < ci < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {ci}")
    return float(stats.norm.ppf(0.5 + ci / 2.0))


def variance_from_interval(lower: float, upper: float, ci: float = DEFAULT_CI) -> float:
    """Variance of the normal distribution whose central ``ci`` interval is [lower, upper]."""
    sd = (upper - lower) / (2.0 * z_value(ci))
    return sd * sd


def pair_directions(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """For every pair i<j (``np.triu_indices`` order): +1 if i's interval lies strictly above
    j's, -1 if strictly below, 0 if they overlap."""
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    i, j = np.triu_indices(len(lower), k=1)
    above = lower[i] > upper[j]
    below = upper[i] < lower[j]
    return above.astype(int) - below.astype(int)


def point_directions(point: np.ndarray) -> np.ndarray:
    """Sign of point[i] - point[j] for every pair i<j (0 for ties)."""
    point = np.asarray(point, dtype=float)
    i, j = np.triu_indices(len(point), k=1)
    return np.sign(point[i] - point[j]).astype(int)


def separability(lower: np.ndarray, upper: np.ndarray) -> float:
    """Share of model pairs whose confidence intervals do not overlap (nan with < 2 models)."""
    directions = pair_directions(lower, upper)
    return float(np.mean(directions != 0)) if directions.size else math.nan


def agreement_with_ci(bench: IntervalScores, ref: IntervalScores) -> float:
    """Mean over all pairs of +1 (both separate, same order), -1 (both separate, opposite
    order) or 0 (either cannot separate)."""
    product = pair_directions(bench.lower, bench.upper) * pair_directions(ref.lower, ref.upper)
    return float(np.mean(product)) if product.size else math.nan


def notebook_agreement(bench: IntervalScores, ref: IntervalScores) -> float:
    """The Arena-Hard notebook's variant: only pairs the reference separates; 1 if the
    benchmark separates them in the same order, 0.5 if its intervals overlap, 0 if reversed."""
    b = pair_directions(bench.lower, bench.upper)
    r = pair_directions(ref.lower, ref.upper)
    mask = r != 0
    if not mask.any():
        return math.nan
    credit = np.where(b[mask] == 0, 0.5, (b[mask] == r[mask]).astype(float))
    return float(np.mean(credit))


def pair_rank_forecasts(mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """P(score_i < score_j) for every pair i<j under independent normal approximations.

    A pair with zero total variance (two anchors) gets a certain forecast from its means.
    """
    from scipy import stats  # on use: 0.4 s that ranking a battle file does without

    mean = np.asarray(mean, dtype=float)
    var = np.asarray(var, dtype=float)
    i, j = np.triu_indices(len(mean), k=1)
    diff = mean[j] - mean[i]
    sd = np.sqrt(var[i] + var[j])
    with np.errstate(divide="ignore", invalid="ignore"):
        forecast = stats.norm.cdf(diff / sd)
    degenerate = sd == 0
    forecast[degenerate] = 0.5 + 0.5 * np.sign(diff[degenerate])
    return forecast


def pair_rank_brier(bench: IntervalScores, ref: IntervalScores) -> float:
    """Mean squared error of the benchmark's forecasts P(i < j) against the reference order
    (outcome 1 if the reference ranks i below j, 0 if above, 0.5 if tied)."""
    forecast = pair_rank_forecasts(bench.mean, bench.var)
    if not forecast.size:
        return math.nan
    outcome = (1.0 - point_directions(ref.point)) / 2.0  # -1 → 1 (i below j), +1 → 0, tie → 0.5
    return float(np.mean((forecast - outcome) ** 2))


def rank_correlations(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """(Spearman ρ, Kendall τ-b); nan when undefined (fewer than 2 models or a constant side)."""
    from scipy import stats  # on use: 0.4 s that ranking a battle file does without

    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    if len(xs) < 2 or np.all(xs == xs[0]) or np.all(ys == ys[0]):
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = stats.spearmanr(xs, ys).statistic
        tau = stats.kendalltau(xs, ys).statistic
    return float(rho), float(tau)


@dataclass(frozen=True)
class QualityMetrics:
    """Every benchmark-vs-reference metric for one aligned set of models."""

    n_models: int
    n_pairs: int
    separability: float
    reference_separability: float
    agreement_with_ci: float
    agreement_notebook: float
    n_agree: int
    n_disagree: int
    n_reference_separated: int
    brier: float
    spearman: float
    kendall_tau: float

    def to_dict(self) -> dict[str, Any]:
        """As a dict, for the JSON outputs."""
        return asdict(self)


def benchmark_quality(bench: IntervalScores, ref: IntervalScores) -> QualityMetrics:
    """All metrics of section 3 for a benchmark against a reference on the same models."""
    if len(bench) != len(ref):
        raise ValueError(f"benchmark has {len(bench)} models but reference has {len(ref)}")
    b = pair_directions(bench.lower, bench.upper)
    r = pair_directions(ref.lower, ref.upper)
    rho, tau = rank_correlations(bench.point, ref.point)
    return QualityMetrics(
        n_models=len(bench),
        n_pairs=int(b.size),
        separability=separability(bench.lower, bench.upper),
        reference_separability=separability(ref.lower, ref.upper),
        agreement_with_ci=agreement_with_ci(bench, ref),
        agreement_notebook=notebook_agreement(bench, ref),
        n_agree=int(np.sum(b * r == 1)),
        n_disagree=int(np.sum(b * r == -1)),
        n_reference_separated=int(np.sum(r != 0)),
        brier=pair_rank_brier(bench, ref),
        spearman=rho,
        kendall_tau=tau,
    )
