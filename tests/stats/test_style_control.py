"""Style control against an independent unpenalized logistic regression (statsmodels GLM) on the
duplicated design, with real per-answer style metadata from the shared arena-hard answers."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.style_control import parse_features, raw_features, style_matrix
from tests.helpers.battles import swap_sides
from tests.helpers.style_games import BASELINE

LABELS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]


def side_counts(meta: dict) -> tuple[float, float, float, float]:
    return (
        meta["token_len"],
        sum(meta["header_count"].values()),
        sum(meta["list_count"].values()),
        sum(meta["bold_count"].values()),
    )


def reference_fit(
    games: list[dict], strong_weight: float = 3
) -> tuple[dict[str, float], np.ndarray]:
    """statsmodels GLM on the duplicated design: each game as (A, B, y) and flipped (B, A, 1 − y),
    a strong verdict as frequency weight 3, features written out from the appendix A.2 formulas
    and z-scored over that design; the baseline's column dropped (its strength is 0)."""
    points = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}
    rows = []
    for g in games:
        if g["label"] is None:
            continue
        sides = {
            g["model_position"]: (g["model"], g["style"]["model"]),
            "AB".replace(g["model_position"], ""): (g["baseline"], g["style"]["baseline"]),
        }
        (ma, sa), (mb, sb) = sides["A"], sides["B"]
        ta, ha, la, ba = side_counts(sa)
        tb, hb, lb, bb = side_counts(sb)
        dens = [
            (ha / (ta + 1), hb / (tb + 1)),
            (la / (ta + 1), lb / (tb + 1)),
            (ba / (ta + 1), bb / (tb + 1)),
        ]
        feats = [(ta - tb) / (ta + tb)] + [(da - db) / (da + db + 1) for da, db in dens]
        weight = strong_weight if ">>" in g["label"] else 1.0
        rows.append((ma, mb, points[g["label"]], weight, feats))
    names = sorted({r[0] for r in rows} | {r[1] for r in rows})
    free = [n for n in names if n != BASELINE]
    design, y, w = [], [], []
    for ma, mb, p, weight, feats in rows:
        for sign, target in ((1, p), (-1, 1 - p)):
            strengths = [sign * ((n == ma) - (n == mb)) for n in free]
            design.append(strengths + [sign * f for f in feats])
            y.append(target)
            w.append(weight)
    design, w = np.array(design, dtype=float), np.array(w)
    style = design[:, len(free) :]
    mean = np.average(style, axis=0, weights=w)
    std = np.sqrt(np.average((style - mean) ** 2, axis=0, weights=w))
    design[:, len(free) :] = (style - mean) / std
    result = sm.GLM(np.array(y), design, family=sm.families.Binomial(), freq_weights=w).fit(
        tol=1e-13
    )
    theta = dict(zip(free, result.params[: len(free)]))
    return {m: 100 / (1 + np.exp(-t)) for m, t in theta.items()}, result.params[len(free) :]


@pytest.mark.shared_data
def test_style_control_equals_statsmodels_on_real_style_metadata(
    real_style_games: list[dict],
) -> None:
    battles = from_games(real_style_games)
    table = leaderboard(
        battles, style=parse_features("length,markdown"), rounds=5, seed=0, style_anchor="equal"
    )
    scores, coefficients = reference_fit(real_style_games)
    ours = {r.model: r.score for r in table.rows if r.model != BASELINE}
    assert ours == pytest.approx(scores, abs=1e-4)  # percent: 1e-6 in win-rate
    assert [c.name for c in table.style] == ["length", "header", "list", "bold"]
    np.testing.assert_allclose([c.value for c in table.style], coefficients, atol=1e-6)
    assert table.style[0].value > 0.3  # the simulated length preference is found
    assert all(c.lower <= c.value <= c.upper for c in table.style)


@pytest.mark.shared_data
def test_style_control_is_blind_to_which_side_is_called_a(real_style_games: list[dict]) -> None:
    battles = from_games(real_style_games[:1200])
    swapped = swap_sides(battles)
    names = parse_features("markdown,length")
    one, two = (leaderboard(x, style=names, rounds=3, seed=1) for x in (battles, swapped))
    assert [r.score for r in one.rows] == pytest.approx([r.score for r in two.rows], abs=1e-9)
    assert [c.value for c in one.style] == pytest.approx([c.value for c in two.style], abs=1e-9)


def test_length_confound_disappears_under_style_control() -> None:
    """Equal models, one writes twice as long and length alone decides: +style control → ~50%."""
    rng = np.random.default_rng(3)
    games = []
    for q in range(1500):
        long_tokens, short_tokens = rng.integers(400, 900), rng.integers(150, 450)
        ratio = (long_tokens - short_tokens) / (long_tokens + short_tokens)
        meta = {"header_count": {"h1": 0}, "list_count": {"ordered": 0}, "bold_count": {"**": 0}}
        style = {
            "model": {**meta, "token_len": long_tokens},
            "baseline": {**meta, "token_len": short_tokens},
        }
        label = "B>A" if rng.random() < 1 / (1 + np.exp(-3 * ratio)) else "A>B"
        games.append(
            {
                "question_id": q,
                "model": "verbose",
                "baseline": "terse",
                "model_position": "B",
                "label": label,
                "style": style,
            }
        )
    battles = from_games(games)
    plain = leaderboard(battles, rounds=50, seed=0).rows[0]
    controlled = leaderboard(battles, style=("length",), rounds=50, seed=0, style_anchor="equal")
    verbose = next(r for r in controlled.rows if r.model == "verbose")
    assert plain.model == "verbose" and plain.lower > 60
    assert verbose.lower < 50 < verbose.upper
    # the official anchor reports the win-rate at the pool's mean length difference, here the
    # verbose model's own: its length advantage stays in the score
    official = next(
        r
        for r in leaderboard(battles, style=("length",), rounds=50, seed=0).rows
        if r.model == "verbose"
    )
    assert official.score == pytest.approx(plain.score, abs=2.0) and official.lower > 60


def test_features_follow_the_appendix_formulas() -> None:
    a = np.array([[100.0, 2, 3, 0]])
    b = np.array([[300.0, 0, 1, 4]])
    got = raw_features(a, b, ("length", "header", "list", "bold"))[0]
    da, db = 3 / 101, 1 / 301
    assert got == pytest.approx(
        [-0.5, (2 / 101) / (2 / 101 + 1), (da - db) / (da + db + 1), -(4 / 301) / (4 / 301 + 1)]
    )
    assert raw_features(b, a, ("length", "header", "list", "bold"))[0] == pytest.approx(-got)


def test_unusable_style_input_is_a_clear_error() -> None:
    flat = np.array([[100.0, 0, 1, 0], [200.0, 0, 2, 0]])
    with pytest.raises(ValueError, match="style feature header, bold is equal"):
        style_matrix(flat, flat[::-1], np.ones(2), ("header", "list", "bold"))
    with pytest.raises(ValueError, match="1 battles lack it"):
        style_matrix(flat, np.array([[1.0, 0, 0, 0], [np.nan] * 4]), np.ones(2), ("length",))
    with pytest.raises(ValueError, match="have none"):
        style_matrix(None, None, np.ones(2), ("length",))
    with pytest.raises(ValueError, match="unknown style feature 'emoji'"):
        parse_features("length,emoji")
    assert parse_features("markdown") == ("header", "list", "bold")
