"""A new judge's scores on an old judge's scale, from the models both judged (anchors).

Judges differ in how decisive they are and where they put the baseline, so a new judge moves
every score without changing the ranking much. On the logit scale a Bradley–Terry judge that is
more or less decisive multiplies the strength differences and one with another baseline shifts
them, so the map is affine and increasing there: ``logit(old) = a + b · logit(new)``, ``b > 0``.

The fit is weighted least squares with each anchor's variance from both tables (its
prompt-clustered variance, through the delta method, the new one scaled by ``b²``: errors in
both scores), refined a few times as ``b`` moves. Judges also disagree about single models
beyond noise; that extra spread ``τ²`` (moment estimate from the residuals) is added to every
anchor's variance, so it widens the map's uncertainty and every calibrated interval: a calibrated
score's interval carries its own prompt-clustered variance, the map's, and ``τ²``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm

MIN_ANCHORS = 3
_EDGE = 1e-3  # scores of 0 or 100 % are clipped to 0.1 % / 99.9 % before the logit


@dataclass(frozen=True)
class Scored:
    """A model's score (percent) and its variance (%²) in one table."""

    score: float
    variance: float


@dataclass(frozen=True)
class Anchor:
    """A model both judges scored: the old score, the mapped new score, and the difference."""

    model: str
    old: float
    new: float
    mapped: float

    @property
    def residual(self) -> float:
        """Old score minus the mapped new one, in points."""
        return self.old - self.mapped


@dataclass(frozen=True)
class CalibratedRow:
    """A new-judge score put on the old judge's scale, with its interval (percent)."""

    model: str
    new: float
    score: float
    lower: float
    upper: float


@dataclass(frozen=True)
class Calibration:
    """The fitted map ``logit(old) = intercept + slope · logit(new)`` and its uncertainty."""

    intercept: float
    slope: float
    covariance: tuple[tuple[float, float], tuple[float, float]]
    """Covariance of (intercept, slope)."""
    tau2: float
    """Spread of judge disagreement about single models beyond noise (logit²)."""
    anchors: tuple[Anchor, ...]

    def apply(self, model: str, new: Scored, ci: float = 0.95) -> CalibratedRow:
        """``new`` on the old scale with an interval that carries the new score's variance, the
        map's and the judges' disagreement about single models."""
        x, var_x = _to_logit(new)
        y = self.intercept + self.slope * x
        cov = np.array(self.covariance)
        grad = np.array([1.0, x])
        var_y = self.slope**2 * var_x + float(grad @ cov @ grad) + self.tau2
        z = float(norm.ppf(0.5 + ci / 2))
        half = z * np.sqrt(var_y)
        return CalibratedRow(
            model=model,
            new=new.score,
            score=100 * float(expit(y)),
            lower=100 * float(expit(y - half)),
            upper=100 * float(expit(y + half)),
        )


def _to_logit(s: Scored) -> tuple[float, float]:
    """Score and variance on the logit scale (delta method)."""
    p = min(max(s.score / 100, _EDGE), 1 - _EDGE)
    return float(logit(p)), s.variance / 1e4 / (p * (1 - p)) ** 2


def fit_calibration(
    new: Mapping[str, Scored], old: Mapping[str, Scored], exclude: tuple[str, ...] = ()
) -> Calibration:
    """The map from ``new`` scores to ``old`` ones over the models both hold (but ``exclude``,
    e.g. the baselines, whose scores are fixed by construction). ``ValueError`` with fewer than
    ``MIN_ANCHORS`` anchors or when no increasing map fits (the judges order the anchors
    oppositely)."""
    models = sorted(m for m in set(new) & set(old) if m not in exclude)
    if len(models) < MIN_ANCHORS:
        raise ValueError(
            f"calibration needs at least {MIN_ANCHORS} models judged by both judges, got "
            f"{len(models)}{': ' + ', '.join(models) if models else ''}"
        )
    xs, vx = np.array([_to_logit(new[m]) for m in models]).T
    ys, vy = np.array([_to_logit(old[m]) for m in models]).T
    design = np.column_stack([np.ones_like(xs), xs])
    slope, tau2 = 1.0, 0.0
    for _ in range(20):
        weights = 1 / np.maximum(vy + slope**2 * vx + tau2, 1e-12)
        information = design.T @ (design * weights[:, None])
        beta = np.linalg.solve(information, design.T @ (weights * ys))
        residuals = ys - design @ beta
        noise = vy + beta[1] ** 2 * vx
        dof = max(len(models) - 2, 1)
        new_tau2 = max(0.0, (float(residuals @ residuals) - float(noise.sum())) / dof)
        converged = abs(beta[1] - slope) < 1e-10 and abs(new_tau2 - tau2) < 1e-12
        slope, tau2 = float(beta[1]), new_tau2
        if converged:
            break
    if slope <= 0:
        raise ValueError(
            "no increasing map between the judges: they order the anchor models oppositely "
            f"(fitted slope {slope:.3g} on the logit scale)"
        )
    weights = 1 / np.maximum(vy + slope**2 * vx + tau2, 1e-12)
    covariance = np.linalg.inv(design.T @ (design * weights[:, None]))
    intercept = float(beta[0])
    anchors = tuple(
        Anchor(m, old[m].score, new[m].score, 100 * float(expit(intercept + slope * x)))
        for m, x in zip(models, xs)
    )
    return Calibration(
        intercept=intercept,
        slope=slope,
        covariance=((covariance[0, 0], covariance[0, 1]), (covariance[1, 0], covariance[1, 1])),
        tau2=tau2,
        anchors=anchors,
    )
