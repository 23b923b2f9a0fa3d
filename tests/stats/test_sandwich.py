"""Cluster-robust (by prompt) sandwich intervals against statsmodels' GLM with cov_type="cluster",
on the shared real battle file, model-vs-model battles and real answers' style metadata."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import expit
from scipy.stats import norm

from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.report.leaderboard_tables import format_table
from inspect_arenahard.stats.battles import Battles, from_games
from inspect_arenahard.stats.bt import Design, fit
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.sandwich import cluster_robust_covariance
from inspect_arenahard.stats.style_control import parse_features, style_matrix
from tests.helpers.battles import BATTLE_FILE, random_battles
from tests.helpers.shared_data import shared


def statsmodels_cluster_cov(
    a: np.ndarray,
    b: np.ndarray,
    points: np.ndarray,
    weight: np.ndarray,
    groups: np.ndarray,
    n_models: int,
    anchor: int,
    features: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(params, covariance) of a Binomial GLM without intercept on columns e_a − e_b (anchor's
    dropped) and the features; every battle repeated ``weight`` times (a strong verdict is three
    battles), a tie as y = ½; CRV1 covariance without statsmodels' small-sample factor."""
    reps = weight.astype(int)
    assert np.all(reps == weight)
    x = np.zeros((len(a), n_models))
    x[np.arange(len(a)), a] = 1.0
    x[np.arange(len(a)), b] = -1.0
    x = np.delete(x, anchor, axis=1)
    if features is not None:
        x = np.column_stack([x, features])
    _, group_ids = np.unique(groups.astype(str), return_inverse=True)
    result = sm.GLM(
        np.repeat(points, reps), np.repeat(x, reps, axis=0), family=sm.families.Binomial()
    ).fit(
        tol=1e-13,
        cov_type="cluster",
        cov_kwds={"groups": np.repeat(group_ids, reps), "use_correction": False},
    )
    return result.params, result.cov_params()


def _ours(
    battles: Battles, anchor: int, features: np.ndarray | None = None, small_sample: bool = False
) -> tuple[np.ndarray, np.ndarray, int]:
    """(θ and γ without the anchor, covariance without the anchor, clusters)."""
    design = Design.build(
        battles.models, battles.a, battles.b, battles.points, battles.weight, features=features
    )
    result = fit(design, anchor)
    sandwich = cluster_robust_covariance(
        battles.a, battles.b, battles.points, battles.weight, battles.question_id,
        result.theta, result.gamma, features, anchor, small_sample=small_sample,
    )  # fmt: skip
    keep = np.arange(len(sandwich.covariance)) != anchor
    return (
        np.r_[result.theta, result.gamma][keep],
        sandwich.covariance[np.ix_(keep, keep)],
        sandwich.clusters,
    )


@pytest.mark.shared_data
def test_real_battle_file_matches_statsmodels_cluster_covariance() -> None:
    battles = read_battles_jsonl(shared(*BATTLE_FILE))
    anchor = battles.models.index("claude-3-haiku-20240307")
    params, cov, clusters = _ours(battles, anchor)
    ref_params, ref_cov = statsmodels_cluster_cov(
        battles.a,
        battles.b,
        battles.points,
        battles.weight,
        battles.question_id,
        len(battles.models),
        anchor,
    )
    assert clusters == len(set(battles.question_id.tolist())) == 120
    np.testing.assert_allclose(params, ref_params, atol=1e-8)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_model_vs_model_battles_with_ties_and_strong_verdicts_match_statsmodels(seed: int) -> None:
    models, a, b, points, weight = random_battles(seed, n_models=7, n=3000, star=False)
    prompts = np.random.default_rng(seed).integers(0, 150, len(a)).astype(object)
    nan = np.full(len(a), None, dtype=object)
    battles = Battles(models, a, b, points, weight, prompts, nan, nan, nan)
    _, cov, clusters = _ours(battles, anchor=2)
    _, ref_cov = statsmodels_cluster_cov(a, b, points, weight, prompts, len(models), anchor=2)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-6, atol=1e-10)
    # the small-sample factor is exactly G / (G − 1)
    _, corrected, _ = _ours(battles, anchor=2, small_sample=True)
    np.testing.assert_allclose(
        corrected, ref_cov * clusters / (clusters - 1), rtol=1e-6, atol=1e-10
    )


@pytest.mark.shared_data
def test_style_controlled_fit_matches_statsmodels_on_real_style_metadata(
    real_style_games: list[dict],
) -> None:
    battles = from_games(real_style_games)
    battles = battles.select(battles.parsed)
    features = style_matrix(
        battles.style_a, battles.style_b, battles.weight, parse_features("length,markdown")
    )
    anchor = battles.models.index("gpt-4-0314")
    params, cov, _ = _ours(battles, anchor, features)
    ref_params, ref_cov = statsmodels_cluster_cov(
        battles.a,
        battles.b,
        battles.points,
        battles.weight,
        battles.question_id,
        len(battles.models),
        anchor,
        features,
    )
    np.testing.assert_allclose(params, ref_params, atol=1e-7)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-6, atol=1e-10)


@pytest.mark.shared_data
@pytest.mark.parametrize("style_anchor", ["equal", "official"])
def test_leaderboard_sandwich_rows_are_logistic_wald_intervals(
    real_style_games: list[dict],
    style_anchor: str,
) -> None:
    """The official anchor's intervals are those of the model coefficients when the features are
    centred at their mean difference (model − baseline) over the games: statsmodels fits that
    design directly, so the delta-method shift of our covariance is checked independently."""
    battles = from_games(real_style_games)
    style = parse_features("length,markdown")
    table = leaderboard(
        battles, style=style, ci=0.9, ci_method="sandwich", style_anchor=style_anchor
    )
    used = battles.select(battles.parsed)
    features = style_matrix(used.style_a, used.style_b, used.weight, style)
    anchor = used.models.index("gpt-4-0314")
    if style_anchor == "official":
        assert np.all(
            (used.a == anchor) | (used.b == anchor)
        )  # a star design: every game has a side
        side = np.where(used.b == anchor, 1.0, -1.0)[
            :, None
        ]  # rows are a − b; model − baseline is side × row
        features = features - side * np.average(side * features, axis=0, weights=used.weight)
    params, ref_cov = statsmodels_cluster_cov(
        used.a,
        used.b,
        used.points,
        used.weight,
        used.question_id,
        len(used.models),
        anchor,
        features,
    )
    g = table.clusters
    se = np.sqrt(np.diag(ref_cov) * g / (g - 1))
    z = norm.ppf(0.95)
    free = [m for m in used.models if m != "gpt-4-0314"]
    rows = {r.model: r for r in table.rows}
    for j, model in enumerate(free):
        assert rows[model].lower == pytest.approx(100 * expit(params[j] - z * se[j]), abs=1e-6)
        assert rows[model].upper == pytest.approx(100 * expit(params[j] + z * se[j]), abs=1e-6)
    for j, coef in enumerate(table.style, start=len(free)):
        assert (coef.lower, coef.upper) == pytest.approx(
            (params[j] - z * se[j], params[j] + z * se[j]), abs=1e-7
        )
    assert table.ci_method == "sandwich" and table.rounds == 0 and table.bootstrap == {}
    assert rows["gpt-4-0314"].lower == rows["gpt-4-0314"].upper == 50.0


@pytest.mark.shared_data
def test_duplicated_games_fool_the_bootstrap_but_not_the_clustered_interval() -> None:
    """Judging every prompt twice adds no information: the prompt-clustered interval stays as wide
    (both H and the score sums double), while resampling games as independent narrows it ~1/√2."""
    battles = read_battles_jsonl(shared(*BATTLE_FILE))
    twice = Battles(*(np.r_[getattr(battles, f), getattr(battles, f)] if f != "models" else battles.models
                      for f in ("models", "a", "b", "points", "weight", "question_id", "category", "judge", "baseline")))  # fmt: skip

    def widths(data: Battles, method: str) -> np.ndarray:
        rows = leaderboard(data, ci_method=method, rounds=2000, seed=3).rows
        return np.array([r.upper - r.lower for r in rows if r.model != "claude-3-haiku-20240307"])

    clustered = widths(twice, "sandwich") / widths(battles, "sandwich")
    np.testing.assert_allclose(clustered, 1.0, atol=0.01)  # only G/(G−1) is shared; θ̂ is unchanged
    boot = widths(twice, "official") / widths(battles, "official")
    assert np.all(boot < 0.8)


def test_the_sandwich_algebra_runs_on_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The (models + features)² algebra is too small for BLAS threads: they would only contend,
    then spin on after the call (a tenth of a second of CPU on a leaderboard of 60 models)."""
    from threadpoolctl import threadpool_info

    import inspect_arenahard.stats.sandwich as sandwich

    if not any(p["user_api"] == "blas" for p in threadpool_info()):
        pytest.skip("no BLAS library that threadpoolctl controls")
    seen: list[int] = []
    inverse = sandwich._inverse

    def spied(hessian: np.ndarray) -> np.ndarray:
        seen.extend(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
        return inverse(hessian)

    monkeypatch.setattr(sandwich, "_inverse", spied)
    models, a, b, points, weight = random_battles(0, n_models=7, n=3000, star=False)
    prompts = np.random.default_rng(0).integers(0, 150, len(a)).astype(object)
    theta = fit(Design.build(models, a, b, points, weight), 0).theta
    cluster_robust_covariance(a, b, points, weight, prompts, theta)
    assert seen and set(seen) == {1}


@pytest.mark.shared_data
def test_sandwich_needs_two_prompts() -> None:
    battles = read_battles_jsonl(shared(*BATTLE_FILE))
    with pytest.raises(ValueError, match="unknown CI method"):
        leaderboard(battles, ci_method="jackknife")
    one_prompt = replace(battles, question_id=np.full(len(battles), "q", dtype=object))
    for method in ("bt", "mean"):  # one prompt: the scores, but no interval (and the table says so)
        table = leaderboard(one_prompt, method=method)
        assert table.clusters == 1
        assert all(
            math.isnan(r.lower) and math.isnan(r.upper)
            for r in table.rows
            if r.model != table.baseline
        )
        assert [r.score for r in table.rows] == [
            r.score for r in leaderboard(battles, method=method).rows
        ]
        assert "needs games on at least 2 prompts" in format_table(table)


@pytest.mark.shared_data
def test_cli_ci_method_sandwich_labels_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_arenahard.cli import main

    assert (
        main(
            [
                "leaderboard",
                "--battles",
                str(shared(*BATTLE_FILE)),
                "--ci-method",
                "sandwich",
                "--ci",
                "0.9",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "90% CI: prompt-clustered sandwich over 120 prompts" in out and "bootstrap" not in out
