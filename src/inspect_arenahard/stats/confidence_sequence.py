"""Anytime-valid confidence sequences for the mean of bounded observations in [0, 1].

A run that stops judging as soon as its interval is narrow (or excludes a reference score) must
report an interval that stays valid whatever the stopping time; a fixed-sample interval looked
at after every prompt does not (its miss rate grows with every look). A confidence sequence
``(C_t)`` covers the mean at every ``t`` at once: ``P(∃t: μ ∉ C_t) ≤ α``, so it covers at any
stopping time, data-dependent ones included.

Implemented from Waudby-Smith & Ramdas (2023), "Estimating means of bounded random variables by
betting", JRSS-B 86(1):1–27 (arXiv:2010.09686):

* ``BettingCS`` / ``betting_cs`` — the *hedged capital process* with predictable
  plug-in bets (the paper's recommended betting CS): for each candidate mean ``m`` a gambler betting that the
  mean is above ``m`` and one betting below each start with capital 1/2; the capital of a true
  ``m`` is a nonnegative martingale, so by Ville's inequality it reaches ``1/α`` with probability
  at most ``α``, and ``C_t = {m : K_t(m) < 1/α}``. Computed on a grid of ``m``; the bounds are
  widened to the next grid point so the grid never narrows the set.
* ``eb_cs`` — the paper's *predictable plug-in empirical-Bernstein* CS, which has a closed
  form; looser than the betting CS but a useful independent check.

Both are reported as the running intersection ``∩_{s≤t} C_s`` (still a CS). The observations are
assumed i.i.d. (or, more generally, of conditional mean ``μ`` given the past); per-prompt points
of prompts visited in a random order are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

GRID = 2000
"""Candidate means on (0, 1) for the betting CS: a resolution of 0.05 points on a 0–100 scale."""
BET_CAP = 0.5
"""Largest fraction of capital a gambler stakes (the paper's ``c``; it suggests 1/2 or 3/4)."""


@dataclass(frozen=True)
class ConfidenceSequence:
    """The CS after each observation: ``lower[t-1]``, ``upper[t-1]`` bound the mean after ``t``."""

    lower: FloatArray
    upper: FloatArray
    alpha: float

    @property
    def n(self) -> int:
        """Observations seen."""
        return len(self.lower)

    def at(self, t: int) -> tuple[float, float]:
        """The interval after ``t`` observations (``t = 0``: the whole [0, 1])."""
        if t == 0:
            return 0.0, 1.0
        return float(self.lower[t - 1]), float(self.upper[t - 1])

    @property
    def last(self) -> tuple[float, float]:
        """The interval after every observation."""
        return self.at(self.n)


def _check(x: npt.ArrayLike, alpha: float) -> FloatArray:
    values = np.asarray(x, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError("observations must be a one-dimensional sequence")
    if values.size and (np.isnan(values).any() or values.min() < 0 or values.max() > 1):
        raise ValueError("observations must lie in [0, 1] (per-prompt points)")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return values


def plug_in_moments(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(μ̂_{t−1}, σ̂²_{t−1}) for t = 1..n: the regularised running mean and variance that the bet
    of step ``t`` may use, ``μ̂_t = (1/2 + Σ_{i≤t} X_i)/(t+1)`` and ``σ̂²_t = (1/4 + Σ_{i≤t}
    (X_i − μ̂_i)²)/(t+1)``, shifted by one step so they are predictable."""
    t = np.arange(1, len(x) + 1, dtype=np.float64)
    mean = (0.5 + np.cumsum(x)) / (t + 1)
    var = (0.25 + np.cumsum((x - mean) ** 2)) / (t + 1)
    return np.concatenate(([0.5], mean[:-1])), np.concatenate(([0.25], var[:-1]))


def plug_in_bet(var_before: FloatArray | float, t: FloatArray | int, alpha: float) -> FloatArray:
    """The predictable plug-in bet ``λ_t = sqrt(2 log(2/α) / (σ̂²_{t−1} t log(1+t)))`` (before the
    cap that keeps the capital positive)."""
    return np.sqrt(2 * np.log(2 / alpha) / (np.asarray(var_before) * t * np.log1p(t)))


class BettingCS:
    """The hedged betting CS, updated one observation at a time (for a run that is still
    judging), optionally for a batch of independent sequences at once (simulations).

    For each candidate mean ``m`` on a grid, ``K⁺`` bets ``λ⁺ = min(λ_t, c/m)`` that the mean is
    above ``m`` and ``K⁻`` bets ``λ⁻ = min(λ_t, c/(1−m))`` that it is below; the caps keep every
    factor ``1 ± λ(X − m)`` above ``1 − c > 0``. The paper hedges with ``max(½K⁺, ½K⁻)``; this uses
    ``½K⁺ + ½K⁻``, a mixture of the two martingales (so also a nonnegative martingale from 1 at
    the true mean) that is never smaller, so the set is never wider. ``C_t`` runs from the first
    to the last grid point with capital below ``1/α``, widened by one grid step on each side so
    the grid never narrows it, and intersected with ``C_{t−1}``.

    With ``target`` (a half-width, as a fraction) the bets are tuned to reach it soonest rather
    than to be tight at every time: ``λ_t = target / σ̂²_{t−1}`` maximises the log-capital's drift
    ``λ·h − λ²σ²/2`` at distance ``h = target`` from the mean. (This is our choice, in the spirit
    of the paper's bets tuned to a sample size. A bet that uses only past data keeps the
    guarantee.) ``stop_at_ci`` uses it: on replayed runs it needs about 1.6× the prompts of an
    oracle fixed-n interval, against 2.0–2.9× with the untuned bets.
    """

    def __init__(
        self,
        alpha: float = 0.05,
        grid: int = GRID,
        shape: tuple[int, ...] = (),
        target: float | None = None,
    ):
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        if target is not None and not 0 < target < 1:
            raise ValueError(f"target half-width must be in (0, 1), got {target}")
        self.alpha = alpha
        self.target = target
        self.m = (np.arange(grid, dtype=np.float64) + 0.5) / grid
        self.t = 0
        self._sum = np.zeros(shape)
        self._sum_sq = np.zeros(shape)
        self.log_up = np.zeros((*shape, grid))
        self.log_down = np.zeros((*shape, grid))
        self.lower = np.zeros(shape)
        self.upper = np.ones(shape)

    @property
    def log_capital(self) -> FloatArray:
        """log(½K⁺_t(m) + ½K⁻_t(m)) on the grid (last axis)."""
        return np.asarray(np.logaddexp(self.log_up, self.log_down) + np.log(0.5))

    def update(self, x: npt.ArrayLike) -> None:
        """Add one observation (one per sequence of the batch)."""
        values = np.asarray(x, dtype=np.float64)
        if np.isnan(values).any() or (values < 0).any() or (values > 1).any():
            raise ValueError("observations must lie in [0, 1] (per-prompt points)")
        self.t += 1
        t = self.t
        var_before = (0.25 + self._sum_sq) / t
        lam = (
            plug_in_bet(var_before, t, self.alpha)
            if self.target is None
            else np.asarray(self.target / var_before)
        )[..., None]
        diff = values[..., None] - self.m
        self.log_up += np.log1p(np.minimum(lam, BET_CAP / self.m) * diff)
        self.log_down += np.log1p(-np.minimum(lam, BET_CAP / (1 - self.m)) * diff)
        self._sum += values
        self._sum_sq += (values - (0.5 + self._sum) / (t + 1)) ** 2
        keep = self.log_capital < np.log(1 / self.alpha)
        inside = keep.any(axis=-1)
        grid = self.m.size
        first = self.m[keep.argmax(axis=-1)] - 1.0 / grid
        last = self.m[grid - 1 - keep[..., ::-1].argmax(axis=-1)] + 1.0 / grid
        lower = np.where(inside, np.fmax(self.lower, first), self.lower)
        upper = np.where(inside, np.fmin(self.upper, last), self.upper)
        crossed = ~inside | (lower > upper)  # an empty set (a miss, rare): shrink to a point
        mid = (self.lower + self.upper) / 2
        self.lower = np.clip(np.where(crossed, mid, lower), 0.0, 1.0)
        self.upper = np.clip(np.where(crossed, mid, upper), 0.0, 1.0)

    @property
    def half_width(self) -> FloatArray:
        """Half the width of the current interval."""
        return np.asarray((self.upper - self.lower) / 2)


def betting_cs(
    x: npt.ArrayLike, alpha: float = 0.05, grid: int = GRID, target: float | None = None
) -> ConfidenceSequence:
    """The hedged betting CS with predictable plug-in bets (or bets tuned to a ``target``
    half-width) after each of ``x`` (see ``BettingCS``)."""
    values = _check(x, alpha)
    cs = BettingCS(alpha, grid, target=target)
    lower, upper = np.empty(values.size), np.empty(values.size)
    for i, value in enumerate(values):
        cs.update(value)
        lower[i], upper[i] = float(cs.lower), float(cs.upper)
    return ConfidenceSequence(lower, upper, alpha)


def eb_cs(x: npt.ArrayLike, alpha: float = 0.05) -> ConfidenceSequence:
    """The predictable plug-in empirical-Bernstein CS in its closed form, as a running
    intersection: ``Σλ_iX_i/Σλ_i ± (log(2/α) + Σ v_i ψ_E(λ_i)) / Σλ_i`` with
    ``v_i = 4(X_i − μ̂_{i−1})²``, ``ψ_E(λ) = (−log(1−λ) − λ)/4`` and the plug-in ``λ_t`` capped at
    ``c``."""
    values = _check(x, alpha)
    if not values.size:
        empty = np.empty(0)
        return ConfidenceSequence(empty, empty, alpha)
    mean_before, var_before = plug_in_moments(values)
    t = np.arange(1, values.size + 1, dtype=np.float64)
    lam = np.minimum(plug_in_bet(var_before, t, alpha), BET_CAP)
    v = 4 * (values - mean_before) ** 2
    psi = (-np.log1p(-lam) - lam) / 4
    total = np.cumsum(lam)
    centre = np.cumsum(lam * values) / total
    half = (np.log(2 / alpha) + np.cumsum(v * psi)) / total
    return _intersect(np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0), alpha)


def _intersect(lower: FloatArray, upper: FloatArray, alpha: float) -> ConfidenceSequence:
    """Running intersection; an empty set (a rare miss) keeps the last non-empty bounds' midpoint
    as a degenerate interval rather than crossing."""
    lo = np.fmax.accumulate(np.nan_to_num(lower, nan=0.0))
    hi = np.fmin.accumulate(np.nan_to_num(upper, nan=1.0))
    crossed = lo > hi
    if crossed.any():
        mid = (lo + hi) / 2
        lo = np.where(crossed, mid, lo)
        hi = np.where(crossed, mid, hi)
    return ConfidenceSequence(lo, hi, alpha)
