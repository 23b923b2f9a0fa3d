"""Official scoring rules by default, ours one flag away (issue #13 §1), each checked against an
independent re-implementation written here from the rules' description:

* unparsed games: v0.1 drops the unparsed game, v2.0 drops both games of its judgment;
* style anchor: the official code z-scores the features over the battles oriented model − baseline
  and reports the model coefficients as they stand; ``equal`` reports them at equal style.

Battles use the real answers' style metadata of the shared v0.1 answer sets, with verdicts drawn
from a seeded Bradley–Terry judge that likes long answers.
"""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.ranking import RankingOptions, leaderboards
from inspect_arenahard.stats.style_control import FEATURES
from tests.helpers.battles import swap_sides
from tests.helpers.style_games import answer_metadata

pytestmark = pytest.mark.shared_data

BASELINE = "gpt-4-0314"
MODELS = {
    "claude-3-haiku-20240307": -0.6,
    "gpt-3.5-turbo-0125": -0.9,
    "llama-3-70b-instruct": 0.1,
    "qwen2-72b-instruct": 0.2,
    "gpt-4o-2024-05-13": 0.5,
}
POINTS = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}


@pytest.fixture(scope="module")
def games() -> list[dict]:
    """Two games per (model, question): the model is B in game 1 and A in game 2; 4% unparsed."""
    rng = np.random.default_rng(7)
    base = answer_metadata(BASELINE)
    out = []
    for model, strength in MODELS.items():
        for qid, meta in list(answer_metadata(model).items())[:300]:
            ratio = (meta["token_len"] - base[qid]["token_len"]) / (
                meta["token_len"] + base[qid]["token_len"]
            )
            p_model = 1 / (1 + np.exp(-(strength + 2.0 * ratio)))
            for game, position in ((1, "B"), (2, "A")):
                other = "A" if position == "B" else "B"
                u = rng.random()
                winner = None if u < 0.1 else (position if u < 0.1 + 0.9 * p_model else other)
                strong = ">>" if rng.random() < 0.3 else ">"
                label = (
                    "A=B" if winner is None else f"{winner}{strong}{'B' if winner == 'A' else 'A'}"
                )
                out.append({
                    "question_id": qid, "model": model, "baseline": BASELINE, "judge": "sim", "category": None,
                    "game": game, "model_position": position, "label": None if rng.random() < 0.04 else label,
                    "style": {"model": meta, "baseline": base[qid]}, "version": "v2.0",
                })  # fmt: skip
    return out


def counted(games: list[dict], rule: str) -> list[dict]:
    """The games each rule keeps, written from its description."""
    if rule == "game":
        return [g for g in games if g["label"] is not None]
    spoiled = {(g["question_id"], g["model"], g["judge"]) for g in games if g["label"] is None}
    return [g for g in games if (g["question_id"], g["model"], g["judge"]) not in spoiled]


def model_points(game: dict) -> tuple[float, float]:
    """(points of the model, weight) of one parsed game; a strong verdict weighs 3."""
    p = POINTS[game["label"]]
    return (p if game["model_position"] == "A" else 1 - p), (3.0 if ">>" in game["label"] else 1.0)


def mean_scores(games: list[dict]) -> dict[str, float]:
    totals: dict[str, list[float]] = {}
    for g in games:
        p, w = model_points(g)
        t = totals.setdefault(g["model"], [0.0, 0.0])
        t[0], t[1] = t[0] + p * w, t[1] + w
    return {m: 100 * won / n for m, (won, n) in totals.items()}


def features(style: dict) -> list[float]:
    """Appendix A.2 differences, model − baseline."""

    def sides(meta: dict) -> tuple[float, ...]:
        return (
            meta["token_len"],
            *(sum(meta[k].values()) for k in ("header_count", "list_count", "bold_count")),
        )

    (tm, *cm), (tb, *cb) = sides(style["model"]), sides(style["baseline"])
    dens = [(c / (tm + 1), d / (tb + 1)) for c, d in zip(cm, cb)]
    return [(tm - tb) / (tm + tb)] + [(x - y) / (x + y + 1) for x, y in dens]


def reference_style_scores(games: list[dict], anchor: str) -> dict[str, float]:
    """statsmodels logistic regression, one row per game from the model's side (y = its points,
    frequency weight 3 for a strong verdict), one column per model (the baseline's dropped), the
    style differences z-scored over those rows (official) or only scaled (equal); score = σ(coef)."""
    models = sorted({g["model"] for g in games})
    x, y, w = [], [], []
    for g in games:
        p, weight = model_points(g)
        x.append([float(g["model"] == m) for m in models] + features(g["style"]))
        y.append(p)
        w.append(weight)
    x, w = np.array(x), np.array(w)
    style = x[:, len(models) :]
    centre = np.average(style, axis=0, weights=w) if anchor == "official" else 0.0
    x[:, len(models) :] = (style - centre) / style.std(axis=0)
    fit = sm.GLM(np.array(y), x, family=sm.families.Binomial(), freq_weights=w).fit(
        tol=1e-14, maxiter=200
    )
    return {m: 100 / (1 + np.exp(-c)) for m, c in zip(models, fit.params)}


@pytest.mark.parametrize("rule", ["game", "pair"])
def test_unparsed_rules_equal_their_description(games: list[dict], rule: str) -> None:
    table = leaderboard(from_games(games), rounds=5, seed=0, unparsed=rule)
    expected = mean_scores(counted(games, rule))
    assert {r.model: r.score for r in table.rows if r.model != BASELINE} == pytest.approx(
        expected, abs=1e-9
    )
    kept = counted(games, rule)
    assert table.excluded_games == len(games) - len(kept) and table.unparsed_games == sum(
        g["label"] is None for g in games
    )
    for row in table.rows:
        if row.model != BASELINE:
            mine = [g for g in games if g["model"] == row.model]
            assert row.excluded == len(mine) - sum(g["model"] == row.model for g in kept)
    if rule == "pair":
        assert table.excluded_games > table.unparsed_games  # partners really were dropped


@pytest.mark.parametrize("rule", ["game", "pair"])
def test_excluded_games_split_into_unparsed_partners_and_self_games(
    games: list[dict], rule: str
) -> None:
    """Each left-out game counted once, under the reason a brute-force pass over the records
    finds: its own verdict unparsed, the pair rule's parsed partner, or the baseline playing
    itself (two such games added here)."""
    selfish = [dict(g, model=BASELINE) for g in games[:2]]
    table = leaderboard(from_games([*games, *selfish]), rounds=5, seed=0, unparsed=rule)
    kept = counted(games, rule)
    unparsed = sum(g["label"] is None for g in games)
    partners = len(games) - len(kept) - unparsed
    assert (table.exclusions.unparsed, table.exclusions.partners, table.exclusions.self_games) == (
        unparsed, partners, 2
    )  # fmt: skip
    assert (partners > 0) == (rule == "pair")
    assert table.excluded_games == table.exclusions.total == len(games) + 2 - len(kept)
    rows = {r.model: r for r in table.rows}
    for model, row in rows.items():
        if model != BASELINE:
            mine = [g for g in games if g["model"] == model]
            assert row.exclusions.unparsed == sum(g["label"] is None for g in mine)
            assert row.excluded == len(mine) - sum(g["model"] == model for g in kept)
            record = row.record()
            assert record["excluded"] == sum(
                record[k] for k in ("excluded_unparsed", "excluded_partners", "excluded_self")
            )
    assert rows[BASELINE].exclusions.self_games == 4  # a self-game seats the baseline twice


def test_each_version_defaults_to_its_official_rules(games: list[dict]) -> None:
    v2 = leaderboard(from_games(games), rounds=5, seed=0)
    assert (v2.method, v2.unparsed_rule) == ("mean", "pair")
    v01 = leaderboard(from_games([{**g, "version": "v0.1"} for g in games]), rounds=5, seed=0)
    assert (v01.method, v01.unparsed_rule) == ("bt", "game")
    assert {r.model: r.score for r in v01.rows if r.model != BASELINE} == pytest.approx(
        mean_scores(counted(games, "game")), abs=1e-9
    )
    mixed = from_games(
        [{**g, "version": "v0.1" if g["model"] == "gpt-3.5-turbo-0125" else "v2.0"} for g in games]
    )
    with pytest.raises(ValueError, match=r"v0.1, v2.0.*choose one with --method"):
        leaderboard(mixed, rounds=5)
    with pytest.raises(
        ValueError,
        match=r"official unparsed rules differ \(game vs pair\); choose one with --unparsed",
    ):
        leaderboard(mixed, rounds=5, method="bt")
    assert leaderboard(mixed, rounds=5, method="bt", unparsed="pair").unparsed_rule == "pair"


@pytest.mark.parametrize("rule", ["game", "pair"])
@pytest.mark.parametrize("anchor", ["official", "equal"])
def test_style_anchors_equal_an_independent_fit(games: list[dict], rule: str, anchor: str) -> None:
    table = leaderboard(
        from_games(games), style=FEATURES, rounds=5, seed=0, unparsed=rule, style_anchor=anchor
    )
    assert (table.method, table.style_anchor) == ("bt", anchor)
    expected = reference_style_scores(counted(games, rule), anchor)
    assert {r.model: r.score for r in table.rows if r.model != BASELINE} == pytest.approx(
        expected, abs=1e-6
    )


def test_official_anchor_is_the_default_and_a_constant_logit_shift(games: list[dict]) -> None:
    battles = from_games(games)
    official = leaderboard(battles, style=("length",), rounds=20, seed=3)
    equal = leaderboard(battles, style=("length",), rounds=20, seed=3, style_anchor="equal")
    assert official.style_anchor == "official"
    logit = {
        t.style_anchor: {
            r.model: np.log(r.score / (100 - r.score)) for r in t.rows if r.model != BASELINE
        }
        for t in (official, equal)
    }
    shifts = np.array([logit["official"][m] - logit["equal"][m] for m in MODELS])
    assert (
        np.ptp(shifts) < 1e-9 and abs(shifts[0]) > 0.05
    )  # same shift for every model, and not nothing
    assert official.style == equal.style  # the same fit: identical coefficients and CIs
    baseline = next(r for r in official.rows if r.model == BASELINE)
    assert (baseline.score, baseline.lower, baseline.upper) == (50.0, 50.0, 50.0)


def test_equal_anchor_barely_moves_when_verbose_models_leave_the_pool(games: list[dict]) -> None:
    """The README's pool-dependence argument, in small: drop the two longest-answer models."""
    battles = from_games(games)
    tokens = {
        r.model: r.avg_tokens
        for r in leaderboard(battles, rounds=1, seed=0).rows
        if r.model != BASELINE
    }
    verbose = sorted(tokens, key=lambda m: -tokens[m])[:2]
    smaller = from_games([g for g in games if g["model"] not in verbose])
    moves = {}
    for anchor in ("official", "equal"):
        full, reduced = (
            {
                r.model: r.score
                for r in leaderboard(
                    b, style=("length",), rounds=1, seed=0, style_anchor=anchor
                ).rows
            }
            for b in (battles, smaller)
        )
        moves[anchor] = np.mean([abs(full[m] - reduced[m]) for m in reduced if m != BASELINE])
    assert moves["official"] > 3 * moves["equal"], moves


def test_pair_rule_follows_epochs_and_judges(games: list[dict]) -> None:
    """A judgment is (question, epoch, judge, model): an unparsed game spoils only its own partner."""
    one = [g for g in games if g["model"] == "gpt-4o-2024-05-13"][:300]
    spoiled = {g["question_id"] for g in one if g["label"] is None}
    assert spoiled, "the fixture should have an unparsed game in this slice"
    again = [{**g, "epoch": 2, "label": "A>B"} for g in one] + [
        {**g, "judge": "other", "label": "A>B"} for g in one
    ]
    table = leaderboard(from_games(one + again), rounds=1, unparsed="pair", method="bt")
    assert table.excluded_games == sum(g["question_id"] in spoiled for g in one)


def test_leaderboards_split_categories_with_their_own_baselines(games: list[dict]) -> None:
    other = [
        {**g, "baseline": "gemini-2.0-flash-001", "category": "creative_writing"}
        for g in games
        if g["model"] == "qwen2-72b-instruct"
    ]
    hard = [{**g, "category": "hard_prompt"} for g in games]
    tables = leaderboards(from_games(hard + other), RankingOptions())
    assert [(t.category, t.baseline, t.method, t.unparsed_rule) for t in tables] == [
        ("creative_writing", "gemini-2.0-flash-001", "mean", "pair"),
        ("hard_prompt", BASELINE, "mean", "pair"),
    ]


def test_swapping_sides_keeps_the_official_anchor(games: list[dict]) -> None:
    battles = from_games(games[:2000])
    swapped = swap_sides(battles)
    one, two = (
        leaderboard(x, style=("length", "bold"), rounds=2, seed=1) for x in (battles, swapped)
    )
    assert [r.score for r in one.rows] == pytest.approx([r.score for r in two.rows], abs=1e-9)
