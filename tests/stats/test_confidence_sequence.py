"""The betting confidence sequence: its capital against a brute-force loop, the empirical-Bernstein
closed form against the same, and coverage under optional stopping by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inspect_arenahard.stats.confidence_sequence import BettingCS, betting_cs, eb_cs

ALPHA = 0.05
# Per-prompt points as Arena-Hard makes them (both games pooled, strong verdicts weighing 3):
# 0 (two strong losses), 1/4, 1/2, 3/4, 1 and the strong/weak mixes 1/6, 5/6.
VALUES = np.array([0.0, 1 / 6, 0.25, 0.5, 0.75, 5 / 6, 1.0])


def points(rng: np.random.Generator, probs: list[float], size: tuple[int, ...]) -> np.ndarray:
    return rng.choice(VALUES, p=probs, size=size)


LOSING = [0.35, 0.1, 0.2, 0.15, 0.1, 0.05, 0.05]
EVEN = [0.15, 0.1, 0.15, 0.2, 0.15, 0.1, 0.15]


def brute_log_capital(
    x: list[float], m: float, alpha: float, cap: float = 0.5, target: float | None = None
) -> float:
    """log(½K⁺ + ½K⁻) at ``m``, one observation at a time in plain Python, from the paper's
    definitions: μ̂_t = (½ + Σ_{i≤t} x_i)/(t+1), σ̂²_t = (¼ + Σ_{i≤t} (x_i − μ̂_i)²)/(t+1),
    λ_t = sqrt(2 log(2/α) / (σ̂²_{t−1} t log(1+t))) (or target/σ̂²_{t−1}), bets capped at c/m
    and c/(1−m)."""
    up = down = 1.0
    total = 0.0
    squares = 0.0
    var_before = 0.25
    for t, xt in enumerate(x, start=1):
        if target is None:
            lam = math.sqrt(2 * math.log(2 / alpha) / (var_before * t * math.log(1 + t)))
        else:
            lam = target / var_before
        up *= 1 + min(lam, cap / m) * (xt - m)
        down *= 1 - min(lam, cap / (1 - m)) * (xt - m)
        total += xt
        mean_t = (0.5 + total) / (t + 1)
        squares += (xt - mean_t) ** 2
        var_before = (0.25 + squares) / (t + 1)
    return math.log(0.5 * up + 0.5 * down)


@pytest.mark.parametrize("target", [None, 0.05])
def test_capital_matches_a_brute_force_loop(target: float | None) -> None:
    rng = np.random.default_rng(7)
    x = points(rng, EVEN, (150,))
    cs = BettingCS(ALPHA, grid=50, target=target)
    for value in x:
        cs.update(value)
    for j in (0, 7, 20, 25, 33, 49):
        m = float(cs.m[j])
        brute = brute_log_capital(list(x), m, ALPHA, target=target)
        assert cs.log_capital[j] == pytest.approx(brute, rel=1e-9)


def test_interval_is_the_set_of_unrejected_means_widened_by_one_grid_step() -> None:
    """Each C_t (before intersection) is where the brute-force capital stays under 1/α."""
    rng = np.random.default_rng(3)
    x = list(points(rng, LOSING, (60,)))
    grid = 100
    result = betting_cs(x, ALPHA, grid=grid)
    lower, upper = 0.0, 1.0
    for t in range(1, len(x) + 1):
        kept = [
            (k + 0.5) / grid
            for k in range(grid)
            if brute_log_capital(x[:t], (k + 0.5) / grid, ALPHA) < math.log(1 / ALPHA)
        ]
        lower = max(lower, kept[0] - 1 / grid)
        upper = min(upper, kept[-1] + 1 / grid)
        assert result.at(t) == pytest.approx((max(lower, 0.0), min(upper, 1.0)))


def test_empirical_bernstein_matches_its_closed_form_by_hand() -> None:
    rng = np.random.default_rng(11)
    x = list(points(rng, EVEN, (80,)))
    lam_sum = weighted = penalty = 0.0
    total = squares = 0.0
    mean_before, var_before = 0.5, 0.25
    lower, upper = 0.0, 1.0
    result = eb_cs(x, ALPHA)
    for t, xt in enumerate(x, start=1):
        lam = min(math.sqrt(2 * math.log(2 / ALPHA) / (var_before * t * math.log(1 + t))), 0.5)
        lam_sum += lam
        weighted += lam * xt
        penalty += 4 * (xt - mean_before) ** 2 * (-math.log(1 - lam) - lam) / 4
        half = (math.log(2 / ALPHA) + penalty) / lam_sum
        lower = max(lower, weighted / lam_sum - half)
        upper = min(upper, weighted / lam_sum + half)
        assert result.at(t) == pytest.approx((lower, upper))
        total += xt
        mean_before = (0.5 + total) / (t + 1)
        squares += (xt - mean_before) ** 2
        var_before = (0.25 + squares) / (t + 1)


def test_betting_is_narrower_than_empirical_bernstein_on_average() -> None:
    """The paper's reason to prefer betting: the same guarantee, tighter intervals."""
    rng = np.random.default_rng(5)
    widths = np.array(
        [
            [np.diff(f(x, ALPHA).at(200))[0] for f in (betting_cs, eb_cs)]
            for x in points(rng, EVEN, (40, 200))
        ]
    )
    assert widths[:, 0].mean() < widths[:, 1].mean()


def simulate(probs: list[float], sequences: int, horizon: int, half: float, seed: int, tuned: bool = False):  # type: ignore[no-untyped-def]  # fmt: skip
    """Run ``sequences`` CSs side by side (bets tuned to ``half`` when ``tuned``); stop each at
    the first t its half-width is ≤ ``half`` (else at ``horizon``). Returns (miss at the stopping
    time, ever missed, naive miss)."""
    rng = np.random.default_rng(seed)
    mu = float(VALUES @ np.array(probs))
    x = points(rng, probs, (horizon, sequences))
    cs = BettingCS(ALPHA, grid=200, shape=(sequences,), target=half if tuned else None)
    stopped = np.zeros(sequences, bool)
    miss_at_stop = np.zeros(sequences, bool)
    naive_stopped = np.zeros(sequences, bool)
    naive_miss = np.zeros(sequences, bool)
    for t in range(horizon):
        cs.update(x[t])
        now = ~stopped & ((cs.half_width <= half) | (t == horizon - 1))
        miss_at_stop[now] = (cs.lower[now] > mu) | (cs.upper[now] < mu)
        stopped |= now
        # the naive rule: a fixed-sample normal interval, looked at after every prompt
        if t >= 9:
            seen = x[: t + 1]
            centre, se = seen.mean(axis=0), seen.std(axis=0, ddof=1) / math.sqrt(t + 1)
            naive_now = ~naive_stopped & ((1.96 * se <= half) | (t == horizon - 1))
            naive_miss[naive_now] = np.abs(centre[naive_now] - mu) > 1.96 * se[naive_now]
            naive_stopped |= naive_now
    ever_missed = (cs.lower > mu) | (cs.upper < mu)  # running intersection: any past miss
    return miss_at_stop.mean(), ever_missed.mean(), naive_miss.mean()


@pytest.mark.parametrize("tuned", [False, True], ids=["plug-in", "tuned"])
@pytest.mark.parametrize("probs", [LOSING, EVEN], ids=["losing", "even"])
def test_coverage_under_optional_stopping(probs: list[float], tuned: bool) -> None:
    sequences = 2000
    miss, ever, naive = simulate(probs, sequences, horizon=400, half=0.08, seed=2023, tuned=tuned)
    mc = 3 * math.sqrt(ALPHA * (1 - ALPHA) / sequences)
    assert miss <= ever  # a miss at the stopping time is a miss at some time
    assert ever <= ALPHA + mc  # time-uniform coverage
    # the naive rule (stop when the fixed-sample CI is narrow) misses more than α: the reason
    # for an anytime-valid interval
    assert naive > ALPHA


def test_rejects_points_outside_the_unit_interval() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        betting_cs([0.5, 1.5])
    with pytest.raises(ValueError, match="alpha"):
        BettingCS(alpha=1.2)
