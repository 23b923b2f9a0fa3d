"""Calibration onto an old judge's scale: the fit against statsmodels, known scale changes
recovered within their intervals, too few anchors refused."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import expit, logit

from inspect_arenahard.stats.calibration import Scored, fit_calibration


def test_the_fit_is_weighted_least_squares_on_the_logit_scale() -> None:
    # exact new scores (no variance) and noisy old ones: plain WLS, which statsmodels computes
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, 10)
    vy = rng.uniform(0.01, 0.05, 10)
    y = 0.3 + 1.7 * x + rng.normal(0, np.sqrt(vy))
    p_old, p_new = expit(y), expit(x)
    old = {
        f"m{k}": Scored(100 * p_old[k], vy[k] * 1e4 * (p_old[k] * (1 - p_old[k])) ** 2)
        for k in range(10)
    }
    new = {f"m{k}": Scored(100 * p_new[k], 0.0) for k in range(10)}
    cal = fit_calibration(new, old)
    reference = sm.WLS(y, sm.add_constant(x), weights=1 / (vy + cal.tau2)).fit()
    assert (cal.intercept, cal.slope) == pytest.approx(tuple(reference.params), rel=1e-8)
    assert np.array(cal.covariance) == pytest.approx(reference.normalized_cov_params, rel=1e-6)


def test_known_scale_changes_are_recovered_within_their_intervals() -> None:
    # the new judge is less decisive (slope 1/0.6) and shifted; each model's scores are noisy
    covered = total = 0
    errors = []
    for seed in range(200):
        rng = np.random.default_rng(seed)
        truth = rng.normal(0, 1.2, 16)
        sd = 0.08
        old_logit = truth + rng.normal(0, sd, 16)
        new_logit = (truth - 0.4) * 0.6 + rng.normal(0, sd * 0.6, 16)

        def table(values: np.ndarray, var: float) -> dict[str, Scored]:
            p = expit(values)
            return {
                f"m{k}": Scored(100 * p[k], var * 1e4 * (p[k] * (1 - p[k])) ** 2) for k in range(16)
            }

        old, new = table(old_logit, sd**2), table(new_logit, (sd * 0.6) ** 2)
        held = "m0"
        cal = fit_calibration(new, {m: s for m, s in old.items() if m != held})
        row = cal.apply(held, new[held])
        target = 100 * expit(truth[0])  # the old judge's noiseless score of the held-out model
        covered += row.lower <= target <= row.upper
        errors.append(abs(row.score - target))
        total += 1
    assert 0.9 <= covered / total <= 0.99
    assert np.mean(errors) < 3  # points


def test_fewer_than_three_anchors_or_an_opposite_order_is_refused() -> None:
    a = {"x": Scored(40, 1), "y": Scored(60, 1), "base": Scored(50, 0)}
    with pytest.raises(ValueError, match="at least 3 models judged by both judges, got 2: x, y"):
        fit_calibration(a, a, exclude=("base",))
    flipped = {"x": Scored(70, 1), "y": Scored(30, 1), "z": Scored(55, 1)}
    b = {"x": Scored(30, 1), "y": Scored(70, 1), "z": Scored(45, 1)}
    with pytest.raises(ValueError, match="no increasing map"):
        fit_calibration(flipped, b)
    assert logit(0.5) == 0
