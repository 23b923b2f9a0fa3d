"""Bootstrap refits in blocks of rounds: each round's θ is its exact MLE (checked against
scipy's trust-region solver on the BT likelihood written out here, and against the score
equations), rounds the chord cannot finish match ``fit`` one by one, and the sampler's faster
inversion draws the very same numbers as a plain search of the Poisson cdf."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import poisson

from inspect_arenahard.stats.block_refit import BlockRefit
from inspect_arenahard.stats.bootstrap import PoissonTable, Resampler, bootstrap_fits
from inspect_arenahard.stats.bt import Design, finite_and_linked, fit
from tests.helpers.battles import random_battles


def independent_mle(
    n_models: int, a: np.ndarray, b: np.ndarray, won: np.ndarray, lost: np.ndarray, anchor: int
) -> np.ndarray:
    """θ (anchor 0) maximising Σ won·log σ(θa − θb) + lost·log σ(θb − θa), by scipy's
    trust-exact with the gradient and Hessian written from the formula."""
    free = np.flatnonzero(np.arange(n_models) != anchor)

    def full(x: np.ndarray) -> np.ndarray:
        theta = np.zeros(n_models)
        theta[free] = x
        return theta

    def minus_loglik(x: np.ndarray) -> float:
        eta = full(x)[a] - full(x)[b]
        return float(won @ np.logaddexp(0, -eta) + lost @ np.logaddexp(0, eta))

    def minus_grad(x: np.ndarray) -> np.ndarray:
        eta = full(x)[a] - full(x)[b]
        resid = won - (won + lost) / (1 + np.exp(-eta))
        g = np.bincount(a, resid, n_models) - np.bincount(b, resid, n_models)
        return -g[free]

    def minus_hess(x: np.ndarray) -> np.ndarray:
        eta = full(x)[a] - full(x)[b]
        p = 1 / (1 + np.exp(-eta))
        w = (won + lost) * p * (1 - p)
        h = np.zeros((n_models, n_models))
        np.add.at(h, (a, a), w)
        np.add.at(h, (b, b), w)
        np.add.at(h, (a, b), -w)
        np.add.at(h, (b, a), -w)
        return h[np.ix_(free, free)]

    result = optimize.minimize(
        minus_loglik, np.zeros(len(free)), jac=minus_grad, hess=minus_hess, method="trust-exact",
        options={"gtol": 1e-9},
    )  # fmt: skip
    assert result.success, result.message
    return full(result.x)


@pytest.fixture(scope="module")
def tournament() -> tuple[Design, int]:
    models, a, b, points, weight = random_battles(11, n_models=14, n=40_000, star=False)
    return Design.build(models, a, b, points, weight), 3


def test_block_refits_are_each_rounds_exact_mle(
    tournament: tuple[Design, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    design, anchor = tournament
    full = fit(design, anchor)
    refit = BlockRefit(design, anchor, full)
    precisions = []
    original = BlockRefit._expected

    def spy(self: BlockRefit, theta: np.ndarray, battles: np.ndarray) -> np.ndarray:
        precisions.append(theta.dtype)
        return original(self, theta, battles)

    monkeypatch.setattr(BlockRefit, "_expected", spy)
    monkeypatch.setattr("inspect_arenahard.stats.block_refit.fit", None)  # no round may fall back
    sampler = Resampler(design.cell_weight, np.random.default_rng(4))
    counts = [sampler.draw() for _ in range(12)]
    thetas = refit(iter(counts))
    assert {np.dtype(np.float32), np.dtype(np.float64)} <= set(precisions)  # both phases ran
    for r in (0, 5, 11):
        won, lost = design.totals(counts[r])
        reference = independent_mle(design.n_models, design.a, design.b, won, lost, anchor)
        np.testing.assert_allclose(thetas[r], reference, rtol=0, atol=1e-10)
        # the score equations hold at our θ: Σ (won − battles·p) per model vanishes
        p = 1 / (1 + np.exp(-(thetas[r][design.a] - thetas[r][design.b])))
        resid = won - (won + lost) * p
        score = np.bincount(design.a, resid, design.n_models) - np.bincount(
            design.b, resid, design.n_models
        )
        score[anchor] = 0.0
        assert np.abs(score).max() < 1e-9 * counts[r].sum()


def test_block_bootstrap_reproduces_the_one_by_one_refits(tournament: tuple[Design, int]) -> None:
    """Same seed, same resamples (the sampler's stream is unchanged), same θ per round to the
    optimum's tolerance: the quantiles of old and new bootstraps agree."""
    design, anchor = tournament
    full = fit(design, anchor)
    thetas, _ = bootstrap_fits(design, anchor, 40, np.random.default_rng(9), full)
    sampler = Resampler(design.cell_weight, np.random.default_rng(9))
    one_by_one = np.array([fit(design, anchor, sampler.draw(), init=full).theta for _ in range(40)])
    np.testing.assert_allclose(thetas, one_by_one, rtol=0, atol=2e-10)


@pytest.mark.parametrize("threads", [2, 3])
def test_blocks_drawn_and_fitted_on_several_threads_give_the_very_rounds_of_one_thread(
    tournament: tuple[Design, int], monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    """Several blocks drawn and fitted on several threads: bit for bit the θ of drawing and
    fitting them in turn, in order."""
    design, anchor = tournament
    full = fit(design, anchor)
    monkeypatch.setattr("inspect_arenahard.stats.bootstrap.FIT_THREADS", 1)
    alone, _ = bootstrap_fits(design, anchor, 150, np.random.default_rng(5), full)
    assert BlockRefit(design, anchor, full).rounds * threads < 150  # several blocks each way
    monkeypatch.setattr("inspect_arenahard.stats.bootstrap.FIT_THREADS", threads)
    together, _ = bootstrap_fits(design, anchor, 150, np.random.default_rng(5), full)
    np.testing.assert_array_equal(together, alone)


@pytest.mark.parametrize(("seed", "n_models", "n"), [(6, 40, 500), (7, 6, 60), (8, 10, 400)])
def test_rounds_the_chord_cannot_finish_are_fitted_one_by_one(
    seed: int, n_models: int, n: int
) -> None:
    """Sparse designs, plus a model linked by two battles only: resamples that cut it off (NaN),
    need pseudo-ties, or lose the hub's two-way links give the same θ as ``fit`` on each."""
    models, a, b, points, weight = random_battles(seed, n_models=n_models, n=n, star=False)
    models += ("loner",)
    a, b = np.r_[a, n_models, 1], np.r_[b, 1, n_models]
    points, weight = np.r_[points, 1.0, 1.0], np.r_[weight, 1.0, 1.0]
    design = Design.build(models, a, b, points, weight)
    full = fit(design, 0)
    sampler = Resampler(design.cell_weight, np.random.default_rng(seed))
    counts = [sampler.draw() for _ in range(60)]
    ours = BlockRefit(design, 0, full)(counts)
    expected = np.array([fit(design, 0, c, init=full, disconnected="nan").theta for c in counts])
    assert np.isnan(expected).any() and not np.isnan(expected).all()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(expected))
    np.testing.assert_allclose(ours, expected, rtol=0, atol=2e-10)


def test_two_way_spread_decides_links_as_the_full_check_does() -> None:
    """Rounds where the hub lost a two-way pair are linked through other models."""
    models, a, b, points, weight = random_battles(12, n_models=30, n=6000, star=False)
    design = Design.build(models, a, b, points, weight)
    refit = BlockRefit(design, 0, fit(design, 0))
    sampler = Resampler(design.cell_weight, np.random.default_rng(1))
    won, lost = np.array([design.totals(sampler.draw()) for _ in range(30)]).transpose(1, 2, 0)
    hub_won, hub_lost = won[refit.hub_pairs], lost[refit.hub_pairs]
    assert (np.minimum(hub_won, hub_lost).min(axis=0) == 0).any()  # the spread has work to do
    spread = refit._two_way_spanning(won, lost)
    full_check = [
        finite_and_linked(design, 0, won[:, r].copy(), lost[:, r].copy()) for r in range(30)
    ]
    assert spread.any() and np.all(spread <= np.array(full_check))  # sufficient, never wrong


def test_poisson_table_inverts_exactly_like_a_search_of_the_cdf() -> None:
    weight = np.r_[np.repeat([1.0, 2.0, 7.0, 30.0, 64.0], 3000), [500.0] * 10]
    table = PoissonTable(weight, scale=0.998)
    for seed in range(5):
        drawn = table.draw(np.random.default_rng(seed))
        u = np.random.default_rng(seed).random(len(weight))
        expected = np.empty(len(weight), dtype=np.int64)
        for w in np.unique(weight):  # the smallest count whose cdf exceeds u, by binary search
            lam, cells = 0.998 * w, weight == w
            cdf = poisson.cdf(np.arange(int(lam + 20 * np.sqrt(lam) + 100)), lam)
            expected[cells] = np.searchsorted(cdf, u[cells], side="right")
        np.testing.assert_array_equal(drawn, expected)


def test_missing_draws_land_where_a_binary_search_puts_them() -> None:
    weight = np.random.default_rng(3).integers(1, 60, 5000).astype(float)
    sampler = Resampler(weight, np.random.default_rng(0))
    u = np.random.default_rng(1).random(20_000)
    np.testing.assert_array_equal(
        sampler._pick_cells(u), np.searchsorted(sampler.cumulative, u, side="right")
    )
