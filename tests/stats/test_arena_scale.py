"""Arena scale: model-vs-model battle files, hybrid designs from judge records, disconnected
designs, the fast multinomial sampler and the exactness of the Newton stop."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.bootstrap import PoissonTable, Resampler
from inspect_arenahard.stats.bt import Design, components, fit
from inspect_arenahard.stats.estimates import leaderboard, resolve_baseline
from inspect_arenahard.stats.style_control import FEATURES, raw_features, standardize
from tests.helpers.battles import random_battles, reference_win_rates


def test_poisson_split_draws_are_multinomial() -> None:
    weight = np.array([40.0, 3.0, 1.0, 25.0, 11.0, 1.0, 7.0])
    sampler = Resampler(weight, np.random.default_rng(5))
    assert sampler.cell_of_row is None  # few cells: the multinomial path
    ours = np.array([sampler.draw() for _ in range(100_000)])
    assert np.all(ours.sum(axis=1) == weight.sum())
    n, p = weight.sum(), weight / weight.sum()
    np.testing.assert_allclose(ours.mean(axis=0), n * p, rtol=0.01, atol=0.01)
    # multinomial covariance n(diag p − ppᵀ), negative off the diagonal; a Poisson bootstrap would
    # have zero covariances and variances n·p
    np.testing.assert_allclose(
        np.cov(ours.T), n * (np.diag(p) - np.outer(p, p)), rtol=0.03, atol=0.2
    )


def test_newton_result_solves_the_score_equations() -> None:
    """The quadratic stop leaves no measurable gradient: Σ w (y − p) z = 0 to 1e-9 per battle."""
    rng = np.random.default_rng(2)
    models, a, b, points, weight = random_battles(3, n_models=12, n=20_000, star=False)
    style_a = np.column_stack(
        [
            rng.lognormal(6, 0.5, len(a)),
            rng.poisson(1, len(a)),
            rng.poisson(4, len(a)),
            rng.poisson(2, len(a)),
        ]
    )
    style_b = np.column_stack(
        [
            rng.lognormal(6, 0.5, len(a)),
            rng.poisson(1, len(a)),
            rng.poisson(4, len(a)),
            rng.poisson(2, len(a)),
        ]
    )
    x = standardize(raw_features(style_a, style_b, FEATURES), weight, FEATURES)[0]
    result = fit(Design.build(models, a, b, points, weight, features=x), anchor=4)
    resid = weight * (
        points - 1 / (1 + np.exp(-(result.theta[a] - result.theta[b] + x @ result.gamma)))
    )
    grad_theta = np.bincount(a, resid, len(models)) - np.bincount(b, resid, len(models))
    grad_theta[4] = 0.0
    assert np.abs(np.r_[grad_theta, x.T @ resid]).max() < 1e-9 * weight.sum()


def test_hybrid_design_is_anchored_at_the_fixed_baseline_and_matches_logistic_regression() -> None:
    """Every model against one baseline, plus sparse model-vs-model runs (baseline = a player)."""
    rng = np.random.default_rng(0)
    strength = {"base": 0.0, "m1": 0.8, "m2": 0.3, "m3": -0.4, "m4": 1.2}
    games = []
    pairs = [(m, "base") for m in ("m1", "m2", "m3")] + [("m1", "m2"), ("m4", "m1"), ("m3", "m2")]
    for model, opponent in pairs:
        for q in range(150):
            for position in "AB":
                p = 1 / (1 + np.exp(strength[opponent] - strength[model]))
                won = rng.random() < p
                label = "A>B" if won == (position == "A") else "B>A"
                games.append(
                    {
                        "question_id": f"q{q}",
                        "model": model,
                        "baseline": opponent,
                        "model_position": position,
                        "label": label,
                    }
                )
    battles = from_games(games)
    assert resolve_baseline(battles) == "base"  # m1, m2 are named opponents but also evaluated
    table = leaderboard(battles, rounds=20, seed=0)
    expected = reference_win_rates(
        battles.a,
        battles.b,
        battles.points,
        battles.weight,
        len(battles.models),
        battles.index("base"),
    )
    for row in table.rows:
        assert row.score == pytest.approx(100 * expected[battles.index(row.model)], abs=1e-6)
    assert table.baseline == "base" and {r.model for r in table.rows} == set(
        strength
    )  # m4 never met base: linked via m1


def test_arena_battle_file_with_style_metadata(tmp_path: Path) -> None:
    """A Chatbot Arena style file: no model in every battle, so the most-played one anchors it."""
    rng = np.random.default_rng(1)
    path = tmp_path / "arena.jsonl"
    lines = []
    for i in range(3000):
        a, b = rng.choice(6, 2, replace=False)
        meta = {f"sum_assistant_{s}_tokens": int(rng.integers(50, 900)) for s in "ab"}
        for s in "ab":
            meta[f"header_count_{s}"] = {"h1": int(rng.integers(0, 3))}
            meta[f"list_count_{s}"] = {"ordered": int(rng.integers(0, 6))}
            meta[f"bold_count_{s}"] = {"**": int(rng.integers(0, 4))}
        winner = rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"], p=[0.4, 0.4, 0.1, 0.1])
        lines.append(
            json.dumps(
                {
                    "question_id": f"c{i}",
                    "model_a": f"m{a}",
                    "model_b": f"m{b}",
                    "winner": winner,
                    "conv_metadata": meta,
                }
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    battles = read_battles_jsonl(path)
    played = np.bincount(np.r_[battles.a, battles.b])
    assert resolve_baseline(battles) == battles.models[int(np.argmax(played))]
    table = leaderboard(
        battles, style=("length", "header", "list", "bold"), rounds=10, seed=0, ci_method="sandwich"
    )
    assert len(table.rows) == 6 and len(table.style) == 4 and table.clusters == 3000


def test_disconnected_design_names_its_components() -> None:
    models, a, b, points, weight = random_battles(0, n_models=6, n=400, star=False)
    keep = ((a < 3) & (b < 3)) | ((a >= 3) & (b >= 3))  # {0, 1, 2} and {3, 4, 5} never meet
    design = Design.build(models, a[keep], b[keep], points[keep], weight[keep])
    assert components(design) == [
        ("model-0", "model-1", "model-2"),
        ("model-3", "model-4", "model-5"),
    ]
    with pytest.raises(
        ValueError,
        match=r"2 separate groups: \{model-0, model-1, model-2\}; \{model-3, model-4, model-5\}",
    ):
        fit(design, anchor=0)


def test_poisson_table_draws_have_the_poisson_distribution() -> None:
    from scipy.stats import poisson

    weight = np.repeat([1.0, 4.0, 37.0], 20_000)
    table = PoissonTable(weight, scale=0.8)
    counts = (
        np.array([table.draw(np.random.default_rng(s)) for s in range(5)])
        .reshape(5, 3, -1)
        .transpose(1, 0, 2)
        .reshape(3, -1)
    )
    for lam, drawn in zip((0.8, 3.2, 29.6), counts):
        observed = np.bincount(drawn.astype(int), minlength=80)[:80] / drawn.size
        np.testing.assert_allclose(
            observed, poisson.pmf(np.arange(80), lam), atol=4 * np.sqrt(0.25 / drawn.size)
        )
        assert drawn.mean() == pytest.approx(lam, rel=0.01) and drawn.var() == pytest.approx(
            lam, rel=0.03
        )


@pytest.mark.parametrize("style", [False, True])
def test_refits_reusing_the_full_data_hessian_reach_the_newton_optimum(style: bool) -> None:
    from dataclasses import replace

    rng = np.random.default_rng(4)
    models, a, b, points, weight = random_battles(5, n_models=15, n=30_000, star=False)
    x = None
    if style:
        x = np.column_stack([rng.normal(0, 1, len(a)), rng.normal(0, 1, len(a))])
    design = Design.build(models, a, b, points, weight, features=x)
    full = fit(design, anchor=0)
    assert full.curvature is not None
    sampler = Resampler(design.cell_weight, np.random.default_rng(1))
    for _ in range(5):
        counts = sampler.draw()
        reused = fit(design, 0, counts, init=full)
        plain = fit(design, 0, counts, init=replace(full, curvature=None))
        np.testing.assert_allclose(
            np.r_[reused.theta, reused.gamma], np.r_[plain.theta, plain.gamma], atol=1e-9
        )
        if not style:
            assert (
                reused.steps > plain.steps
            )  # gradient-only steps were taken (with style: one, then Newton)
