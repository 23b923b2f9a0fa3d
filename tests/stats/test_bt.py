"""Bradley–Terry core against independent fits: sklearn's logistic regression on arena-hard v0.1's
duplicated design, plain counting on the shared battle file, and hand-made degenerate cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.bootstrap import Resampler, bootstrap_fits, percentile_interval
from inspect_arenahard.stats.bt import DEGENERATE_TIE, Design, _unique, fit, win_rate
from inspect_arenahard.stats.estimates import leaderboard
from tests.helpers.battles import BATTLE_FILE, random_battles, reference_win_rates
from tests.helpers.shared_data import shared


@pytest.mark.parametrize("seed", [0, 1])
def test_closed_form_equals_logistic_regression(seed: int) -> None:
    models, a, b, points, weight = random_battles(seed, n_models=6, n=800, star=True)
    design = Design.build(models, a, b, points, weight)
    result = fit(design, anchor=0)
    assert design.is_star(0) and result.steps == 0
    np.testing.assert_allclose(
        win_rate(result.theta), reference_win_rates(a, b, points, weight, 6, 0), atol=1e-6, rtol=0
    )


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_newton_equals_logistic_regression_on_model_vs_model_battles(seed: int) -> None:
    models, a, b, points, weight = random_battles(seed, n_models=7, n=700, star=False)
    design = Design.build(models, a, b, points, weight)
    result = fit(design, anchor=3)
    assert not design.is_star(3) and result.steps > 0
    np.testing.assert_allclose(
        win_rate(result.theta), reference_win_rates(a, b, points, weight, 7, 3), atol=1e-6, rtol=0
    )


def _count_points(path: Path, baseline: str) -> dict[str, float]:
    """(wins + ties/2) / n of every model against the baseline, counted line by line."""
    tally: dict[str, list[float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        model = row["model_b"] if row["model_a"] == baseline else row["model_a"]
        side = "model_b" if row["model_a"] == baseline else "model_a"
        won = 1.0 if row["winner"] == side else 0.5 if row["winner"].startswith("tie") else 0.0
        tally.setdefault(model, []).append(won)
    return {m: sum(v) / len(v) for m, v in tally.items()}


@pytest.mark.shared_data
def test_shared_battles_score_is_wins_plus_half_ties_over_n() -> None:
    path = shared(*BATTLE_FILE)
    battles = read_battles_jsonl(path)
    table = leaderboard(battles, rounds=20, seed=0)
    expected = _count_points(path, "claude-3-haiku-20240307")
    assert table.baseline == "claude-3-haiku-20240307"
    scores = {r.model: r.score for r in table.rows}
    assert scores.pop("claude-3-haiku-20240307") == 50.0
    assert scores == pytest.approx({m: 100 * v for m, v in expected.items()}, abs=1e-10)
    anchor = battles.models.index(table.baseline)
    reference = reference_win_rates(
        battles.a, battles.b, battles.points, battles.weight, len(battles.models), anchor
    )
    assert [100 * reference[battles.models.index(m)] for m in scores] == pytest.approx(
        list(scores.values()), abs=1e-4
    )


def _star(points_per_model: list[list[float]]) -> Design:
    a = np.concatenate([np.full(len(p), i + 1) for i, p in enumerate(points_per_model)])
    points = np.concatenate([np.asarray(p, dtype=float) for p in points_per_model])
    models = tuple(f"m{i}" for i in range(len(points_per_model) + 1))
    return Design.build(models, a, np.zeros(len(a), dtype=int), points, np.ones(len(a)))


def test_all_wins_all_losses_and_ties_are_finite_and_documented() -> None:
    design = _star([[1.0] * 40, [0.0] * 40, [0.5] * 40, [1.0] * 30 + [0.0] * 10])
    result = fit(design, anchor=0)
    rates = win_rate(result.theta)
    eps = DEGENERATE_TIE
    assert result.degenerate and np.all(np.isfinite(result.theta))
    assert rates[1] == pytest.approx((40 + eps / 2) / (40 + eps), abs=1e-12)
    assert rates[2] == pytest.approx((eps / 2) / (40 + eps), abs=1e-12)
    assert rates[3] == pytest.approx(0.5, abs=1e-12)
    assert rates[4] == pytest.approx(0.75, abs=1e-12)  # untouched by the pseudo-ties
    thetas, _ = bootstrap_fits(design, 0, 50, np.random.default_rng(0), result)
    assert np.all(np.isfinite(thetas))


def test_only_ties_give_fifty_percent_without_pseudo_counts() -> None:
    result = fit(_star([[0.5] * 10]), anchor=0)
    assert not result.degenerate and win_rate(result.theta)[1] == 0.5


def test_model_that_never_loses_in_a_tournament_is_finite() -> None:
    models = ("base", "x", "y", "z")
    a = np.array([1, 1, 1, 2, 3, 2, 3, 0, 0])
    b = np.array([0, 2, 3, 0, 0, 3, 2, 2, 3])
    points = np.array([1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.5])
    design = Design.build(models, a, b, points, np.ones(len(a)))
    result = fit(design, anchor=0)
    assert result.degenerate and np.all(np.isfinite(result.theta))
    # documented: the MLE after a DEGENERATE_TIE tie on each one-sided pair (all but base-z)
    one_sided = [(1, 0), (1, 2), (1, 3), (0, 2), (2, 3)]
    ta, tb = np.array(one_sided).T
    tie = np.full(len(one_sided), DEGENERATE_TIE / 2)
    expected = reference_win_rates(
        np.r_[a, ta, ta], np.r_[b, tb, tb], np.r_[points, np.ones_like(tie), np.zeros_like(tie)],
        np.r_[np.ones(len(a)), tie, tie], 4, 0,
    )  # fmt: skip
    np.testing.assert_allclose(win_rate(result.theta), expected, atol=1e-6)
    assert win_rate(result.theta)[1] > 0.99  # x beat everyone


def test_newton_and_closed_form_agree_on_the_same_battles() -> None:
    """A tournament solved by Newton whose extra pair carries no weight equals the closed form."""
    models, a, b, points, weight = random_battles(5, n_models=5, n=400, star=True)
    star = fit(Design.build(models, a, b, points, weight), anchor=0)
    # one extra battle between two non-anchor models, then the same fit with it tied both ways twice
    extra_a, extra_b = np.r_[a, 1, 2], np.r_[b, 2, 1]
    general = fit(
        Design.build(
            models, extra_a, extra_b, np.r_[points, 0.5, 0.5], np.r_[weight, 1e-12, 1e-12]
        ),
        anchor=0,
    )
    assert general.steps > 0
    np.testing.assert_allclose(general.theta, star.theta, atol=1e-9)


def test_disconnected_models_are_an_error_naming_them() -> None:
    design = Design.build(
        ("base", "x", "y", "z"),
        np.array([1, 2]),
        np.array([0, 3]),
        np.array([1.0, 0.0]),
        np.ones(2),
    )
    with pytest.raises(ValueError, match=r"links y, z to the baseline"):
        fit(design, anchor=0)


def test_cell_bootstrap_has_the_distribution_of_resampling_expanded_rows() -> None:
    """Arena-hard resamples expanded rows (a strong verdict = 3 rows); resampling whole games
    instead would give a visibly wider interval, so this test can tell the two apart."""
    points = np.array([1.0] * 30 + [0.0] * 50 + [0.5] * 10)
    weight = np.array([3.0] * 30 + [1.0] * 60)
    design = Design.build(
        ("base", "m"), np.ones(90, dtype=int), np.zeros(90, dtype=int), points, weight
    )
    thetas, _ = bootstrap_fits(design, 0, 4000, np.random.default_rng(1), fit(design, 0))
    ours = win_rate(thetas[:, 1])
    rows = np.repeat(points, weight.astype(int))
    rng = np.random.default_rng(2)
    naive = np.array([rng.choice(rows, len(rows)).mean() for _ in range(4000)])
    assert ours.mean() == pytest.approx(naive.mean(), abs=0.005)
    assert ours.std() == pytest.approx(naive.std(), rel=0.06)
    games = np.array(
        [np.average(points[i], weights=weight[i]) for i in rng.integers(0, 90, (4000, 90))]
    )
    assert games.std() > 1.2 * ours.std()


@pytest.mark.parametrize(
    ("weights", "by_row"),
    [([30.0, 10.0, 20.0], False), ([3.0, 1.0, 2.0] * 50, True), ([2.5, 1.0, 2.5], False)],
)
def test_both_samplers_draw_the_same_multinomial(weights: list[float], by_row: bool) -> None:
    """Multinomial over cells (few cells) and uniform draws over expanded rows (many cells)."""
    weight = np.array(weights)
    sampler = Resampler(weight, np.random.default_rng(0))
    assert (sampler.cell_of_row is not None) == by_row
    counts = sampler.draw(4000)
    assert counts.shape == (4000, len(weights)) and np.all(
        counts.sum(axis=1) == round(weight.sum())
    )
    expected_mean = round(weight.sum()) * weight / weight.sum()
    np.testing.assert_allclose(counts.mean(axis=0), expected_mean, rtol=0.1, atol=0.05)
    p = weight / weight.sum()
    np.testing.assert_allclose(counts.var(axis=0), round(weight.sum()) * p * (1 - p), rtol=0.15)
    assert sampler.draw().shape == (len(weights),)


@pytest.mark.shared_data
def test_intervals_bracket_the_estimate_and_seeds_reproduce() -> None:
    lower, upper = percentile_interval(np.arange(101.0)[:, None], 0.9)
    assert (lower[0], upper[0]) == pytest.approx((5.0, 95.0))
    table = leaderboard(read_battles_jsonl(shared(*BATTLE_FILE)), rounds=30, seed=7)
    assert all(r.lower <= r.score <= r.upper for r in table.rows)
    again = leaderboard(read_battles_jsonl(shared(*BATTLE_FILE)), rounds=30, seed=7)
    assert again.rows == table.rows


def test_percentile_intervals_are_numpys_nan_aware_percentiles_to_the_bit() -> None:
    """Without NaN rounds the interval takes numpy's plain percentile: the very numbers of the
    NaN-aware one, which rounds cut off from the anchor (NaN) still go through."""
    samples = np.random.default_rng(3).normal(50, 10, (1000, 40))
    for ci in (0.95, 0.9, 0.5):
        tail = (1 - ci) / 2 * 100
        for data in (samples, np.where(np.arange(1000)[:, None] % 97 == 0, np.nan, samples)):
            expected = np.nanpercentile(data, [tail, 100 - tail], axis=0)
            lower, upper = percentile_interval(data, ci)
            assert np.array_equal(lower, expected[0]) and np.array_equal(upper, expected[1])


def test_games_become_battles_with_positions_weights_and_exclusions() -> None:
    def game(n: int, position: str, label: str | None) -> dict:
        return {"question_id": "q", "model": "m", "baseline": "base", "judge": "j", "category": None, "game": n,
                "model_position": position, "label": label, "parsed": label is not None, "style": None}  # fmt: skip

    battles = from_games(
        [game(1, "B", "A>>B"), game(2, "A", "A=B"), game(1, "B", None), game(2, "A", "B>A")]
    )
    m, base = battles.models.index("m"), battles.models.index("base")
    assert battles.a.tolist() == [base, m, base, m]
    assert battles.weight.tolist() == [3.0, 1.0, 1.0, 1.0]
    assert battles.points[[0, 1, 3]].tolist() == [1.0, 0.5, 0.0] and np.isnan(battles.points[2])
    assert battles.games_per_model(~battles.parsed)[m] == 1
    with pytest.raises(ValueError, match=r"game record 0 .*model_position"):
        from_games([game(1, "C", "A>B")])
    with pytest.raises(ValueError, match=r"game record 0 .*unknown verdict label"):
        from_games([game(1, "A", "A>>>B")])


def test_baseline_resolution_star_designs_versus_tournaments() -> None:
    """Several named baselines: an error for star designs (v2.0 categories), the most-played
    player for model-vs-model tournaments where every baseline is also an evaluated model."""
    from inspect_arenahard.stats.battles import from_games
    from inspect_arenahard.stats.estimates import resolve_baseline

    def game(model: str, baseline: str, label: str = "A>B") -> dict:
        return {
            "question_id": "q",
            "model": model,
            "baseline": baseline,
            "model_position": "A",
            "label": label,
            "parsed": True,
        }

    star = from_games([game("m1", "o3-mini"), game("m2", "gemini"), game("m1", "gemini")])
    with pytest.raises(ValueError, match="several baselines"):
        resolve_baseline(star)
    tournament = from_games(
        [game("x", "y"), game("y", "z"), game("z", "x"), game("x", "z"), game("w", "x")]
    )
    assert resolve_baseline(tournament) == "x"  # x plays 4 battles, the others fewer
    assert resolve_baseline(tournament, "z") == "z"


@pytest.mark.parametrize(
    ("n", "bound"), [(0, 9), (7, 9), (200_000, 40_000), (50_000, 150_000), (300, 10**9)]
)
def test_design_ids_are_numpys_unique_without_the_sort(n: int, bound: int) -> None:
    """Pairs and cells are made distinct by marking a table where it is small: the very values
    and inverse of ``np.unique``, dense or sparse, empty included."""
    ids = np.random.default_rng(n).integers(0, bound, n)
    values, inverse = _unique(ids, bound)
    expected, expected_inverse = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(inverse, expected_inverse.ravel())
    assert values.dtype == expected.dtype and inverse.dtype == expected_inverse.dtype
