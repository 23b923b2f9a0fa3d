"""Style-controlled bootstrap refits in blocks of rounds: each round's (θ, γ) is the exact MLE of
its resample (checked against scipy's trust-region solver on the style likelihood written out
here, to 1e-6 percentage points of win-rate and far below), rounds the chord cannot finish match
``fit`` one by one, and the block bootstrap reproduces today's one-by-one Newton refits. One-step
refits (the arena-scale approximation) are the Newton step from the full fit written out densely
here, their error is second order, and rounds that cut a model off are fitted exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy.special import expit

from inspect_arenahard.stats.bootstrap import Resampler, bootstrap_fits
from inspect_arenahard.stats.bt import Design, Fit, fit
from inspect_arenahard.stats.style_refit import OneStepRefit, StyleRefit, one_step
from tests.helpers.battles import random_battles


def independent_style_mle(
    design: Design, counts: np.ndarray, anchor: int
) -> tuple[np.ndarray, np.ndarray]:
    """(θ with θ_anchor = 0, γ) maximising Σ_cells count · [points·log σ(η) + (1 − points)·log
    σ(−η)], η = θa − θb + x·γ, by scipy's trust-exact with gradient and Hessian from the formula,
    polished by Newton steps (on the cells as given, not on ``Design``'s per-row totals)."""
    m = design.n_models
    row = design.cell_row
    a, b, x, y = design.a[row], design.b[row], design.features[row], design.cell_points
    free = np.flatnonzero(np.arange(m) != anchor)
    dummies = np.zeros((len(row), m))
    dummies[np.arange(len(row)), a] = 1.0
    dummies[np.arange(len(row)), b] = -1.0
    z = np.column_stack([dummies[:, free], x])

    def minus_loglik(params: np.ndarray) -> float:
        eta = z @ params
        return float(counts @ (y * np.logaddexp(0, -eta) + (1 - y) * np.logaddexp(0, eta)))

    def minus_grad(params: np.ndarray) -> np.ndarray:
        return -(z.T @ (counts * (y - expit(z @ params))))

    def minus_hess(params: np.ndarray) -> np.ndarray:
        p = expit(z @ params)
        return (z * (counts * p * (1 - p))[:, None]).T @ z

    result = optimize.minimize(
        minus_loglik, np.zeros(z.shape[1]), jac=minus_grad, hess=minus_hess, method="trust-exact",
        options={"gtol": 1e-6},
    )  # fmt: skip
    assert result.success or np.abs(result.jac).max() < 1e-5, result.message  # (rounding stops it)
    params = result.x
    for _ in range(3):  # polish below the solver's stopping rule: Newton steps from the formula
        params = params - np.linalg.solve(minus_hess(params), minus_grad(params))
    assert np.abs(minus_grad(params)).max() < 1e-9
    theta = np.zeros(m)
    theta[free] = params[: len(free)]
    return theta, params[len(free) :]


def styled_design(seed: int, n_models: int, n: int, k: int, repeats: bool = False) -> Design:
    """Random battles with ``k`` style features that move the outcome; with ``repeats`` a third
    of the battles come again with the same features and another verdict (rows with several
    cells)."""
    rng = np.random.default_rng(seed)
    models, a, b, points, weight = random_battles(seed, n_models=n_models, n=n, star=False)
    x = rng.normal(0, 1, (len(a), k))
    tilt = expit(x @ rng.normal(0, 0.4, k))
    points = np.where(points == 0.5, 0.5, (rng.random(len(a)) < tilt).astype(float))
    if repeats:
        again = rng.random(len(a)) < 1 / 3
        a, b, x = np.r_[a, a[again]], np.r_[b, b[again]], np.r_[x, x[again]]
        points = np.r_[points, 1.0 - points[again]]
        weight = np.r_[weight, weight[again]]
    return Design.build(models, a, b, points, weight, features=x)


@pytest.mark.parametrize(("k", "repeats"), [(4, False), (2, True)])
def test_style_block_refits_are_each_rounds_exact_mle(
    k: int, repeats: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    design = styled_design(5, n_models=9, n=6_000, k=k, repeats=repeats)
    assert design.cells_are_rows is not repeats
    anchor = 2
    full = fit(design, anchor)
    monkeypatch.setattr("inspect_arenahard.stats.style_refit.fit", None)  # no round may fall back
    sampler = Resampler(design.cell_weight, np.random.default_rng(4))
    counts = [sampler.draw() for _ in range(10)]
    thetas, gammas = StyleRefit(design, anchor, full)(iter(counts))
    for r in (0, 4, 9):
        theta, gamma = independent_style_mle(design, counts[r], anchor)
        gap_pp = 100 * np.abs(expit(thetas[r]) - expit(theta)).max()
        assert gap_pp < 1e-6
        np.testing.assert_allclose(thetas[r], theta, rtol=0, atol=1e-9)
        np.testing.assert_allclose(gammas[r], gamma, rtol=0, atol=1e-9)


def test_style_block_bootstrap_reproduces_the_one_by_one_newton_refits() -> None:
    """Same seed, same resamples, same (θ, γ) per round as ``fit`` round by round (today's
    path, one flag away)."""
    design = styled_design(6, n_models=12, n=8_000, k=4)
    full = fit(design, 0)
    block = bootstrap_fits(design, 0, 40, np.random.default_rng(9), full)
    exact = bootstrap_fits(design, 0, 40, np.random.default_rng(9), full, block=False)
    np.testing.assert_allclose(block[0], exact[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(block[1], exact[1], rtol=0, atol=1e-9)


def loner_resamples() -> tuple[Design, Fit, list[np.ndarray]]:
    """A styled design with a model linked by two battles only, its full fit, and 40 resamples,
    some of which cut the loner off (NaN) or leave it one-sided."""
    models, a, b, points, weight = random_battles(7, n_models=8, n=600, star=False)
    models += ("loner",)
    a, b = np.r_[a, 8, 1], np.r_[b, 1, 8]
    points, weight = np.r_[points, 1.0, 1.0], np.r_[weight, 1.0, 1.0]
    x = np.random.default_rng(7).normal(0, 1, (len(a), 2))
    design = Design.build(models, a, b, points, weight, features=x)
    sampler = Resampler(design.cell_weight, np.random.default_rng(3))
    return design, fit(design, 0), [sampler.draw() for _ in range(40)]


def test_style_rounds_the_chord_cannot_finish_are_fitted_one_by_one() -> None:
    """A model linked by two battles only: resamples that cut it off (NaN) or leave it one-sided
    get ``fit``'s answer on each; the others the chord's."""
    design, full, counts = loner_resamples()
    thetas, gammas = StyleRefit(design, 0, full)(counts)
    expected = [fit(design, 0, c, init=full, disconnected="nan") for c in counts]
    expected_theta = np.array([e.theta for e in expected])
    assert np.isnan(expected_theta).any() and not np.isnan(expected_theta).all()
    np.testing.assert_array_equal(np.isnan(thetas), np.isnan(expected_theta))
    np.testing.assert_allclose(thetas, expected_theta, rtol=0, atol=1e-9)
    np.testing.assert_allclose(gammas, [e.gamma for e in expected], rtol=0, atol=1e-9)


# ------------------------------------------------------------------------- one-step refits


def independent_one_step(
    design: Design, counts: np.ndarray, anchor: int, full_theta: np.ndarray, full_gamma: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """θ̂ + H⁻¹·∇ℓ*(θ̂) written out on the expanded cells with a dense design matrix: the
    resample's gradient and the full data's Hessian, both at the full-data fit."""
    m = design.n_models
    row = design.cell_row
    free = np.flatnonzero(np.arange(m) != anchor)
    dummies = np.zeros((len(row), m))
    dummies[np.arange(len(row)), design.a[row]] = 1.0
    dummies[np.arange(len(row)), design.b[row]] = -1.0
    z = np.column_stack([dummies[:, free], design.features[row]])
    params = np.r_[full_theta[free], full_gamma]
    p = expit(z @ params)
    gradient = z.T @ (counts * (design.cell_points - p))
    hessian = (z * (design.cell_weight * p * (1 - p))[:, None]).T @ z
    step = params + np.linalg.solve(hessian, gradient)
    theta = np.zeros(m)
    theta[free] = step[: len(free)]
    return theta, step[len(free) :]


@pytest.mark.parametrize(("k", "repeats"), [(4, False), (2, True)])
def test_one_step_refits_are_the_newton_step_from_the_full_fit(k: int, repeats: bool) -> None:
    design = styled_design(5, n_models=9, n=6_000, k=k, repeats=repeats)
    full = fit(design, 2)
    sampler = Resampler(design.cell_weight, np.random.default_rng(4))
    counts = [sampler.draw() for _ in range(6)]
    thetas, gammas = OneStepRefit(design, 2, full)(counts)
    for r in range(6):
        theta, gamma = independent_one_step(design, counts[r], 2, full.theta, full.gamma)
        np.testing.assert_allclose(thetas[r], theta, rtol=0, atol=1e-9)
        np.testing.assert_allclose(gammas[r], gamma, rtol=0, atol=1e-9)


def test_one_step_error_against_exact_refits_shrinks_like_one_over_n() -> None:
    """The one step's distance from the resample's exact MLE is second order: 16× the battles
    make it about 16× smaller (in points of win-rate); more than 6× is required."""
    gaps = []
    for n in (4_000, 64_000):
        design = styled_design(8, n_models=10, n=n, k=4)
        full = fit(design, 0)
        sampler = Resampler(design.cell_weight, np.random.default_rng(2))
        counts = [sampler.draw() for _ in range(8)]
        one, _ = OneStepRefit(design, 0, full)(counts)
        exact, _ = StyleRefit(design, 0, full)(counts)
        gaps.append(100 * np.abs(expit(one) - expit(exact)).max())
    assert gaps[0] > 6 * gaps[1] > 0
    assert gaps[1] < 0.05  # points


def test_one_step_rounds_that_cut_a_model_off_are_fitted_exactly() -> None:
    design, full, counts = loner_resamples()
    thetas, _ = OneStepRefit(design, 0, full)(counts)
    exact = np.array([fit(design, 0, c, init=full, disconnected="nan").theta for c in counts])
    cut = np.isnan(exact).any(axis=1)
    assert cut.any() and not cut.all()
    np.testing.assert_array_equal(np.isnan(thetas), np.isnan(exact))
    # the rounds the loner is one-sided or absent in are fitted exactly too
    one_sided = np.abs(exact[:, 8]) > 5
    np.testing.assert_allclose(thetas[cut | one_sided], exact[cut | one_sided], rtol=0, atol=1e-9)


def test_refits_auto_takes_one_step_only_at_scale() -> None:
    design = styled_design(6, n_models=12, n=8_000, k=4)
    assert not one_step(design, "auto") and one_step(design, "one-step")
    assert not one_step(design, "exact")
    plain = Design.build(design.models, design.a, design.b, design.cell_points, design.cell_weight)
    assert not one_step(plain, "one-step")  # no style terms: nothing to step
    full = fit(design, 0)
    auto = bootstrap_fits(design, 0, 8, np.random.default_rng(9), full)
    exact = bootstrap_fits(design, 0, 8, np.random.default_rng(9), full, refits="exact")
    stepped = bootstrap_fits(design, 0, 8, np.random.default_rng(9), full, refits="one-step")
    np.testing.assert_array_equal(auto[0], exact[0])
    assert 0 < np.abs(stepped[0] - exact[0]).max() < 0.05
    with pytest.raises(ValueError, match="unknown refits 'newton'"):
        bootstrap_fits(design, 0, 8, np.random.default_rng(9), full, refits="newton")
