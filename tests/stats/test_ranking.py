"""The ranking service: its options (flags and config keys generated from one dataclass), the
prompt-clustered intervals of every method checked against statsmodels and a brute-force prompt
bootstrap, power from the same variance, and counts in games."""

from __future__ import annotations

import argparse
import itertools
import json
import math
from dataclasses import fields

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import expit, logit
from scipy.stats import norm

from inspect_arenahard.cli.options import add_ranking_arguments, ranking_options
from inspect_arenahard.errors import UserError
from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.report.leaderboard_tables import records
from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.power import power_analysis
from inspect_arenahard.stats.ranking import RankingOptions, rank
from inspect_arenahard.typed_options import from_mapping
from tests.helpers.battles import BATTLE_FILE, random_battles
from tests.helpers.shared_data import shared

BASE = "claude-3-haiku-20240307"


def _parse(flags: list[str]) -> RankingOptions:
    parser = argparse.ArgumentParser()
    add_ranking_arguments(parser)
    return ranking_options(parser.parse_args(flags))


def test_every_option_is_one_generated_flag_and_config_key() -> None:
    options = _parse(
        ["--judge", "j1", "--judge", "j2", "--method", "mean", "--unparsed", "pair", "--style-control",
         "length", "--style-anchor", "equal", "--ci-method", "official", "--ci", "90", "--rounds", "7",
         "--seed", "3", "--strong-weight", "1", "--baseline", "b", "--category", "c",
         "--style-refits", "one-step"]
    )  # fmt: skip
    expected = RankingOptions(
        baseline="b", judge=["j1", "j2"], category="c", method="mean", unparsed="pair",
        style_control="length", style_anchor="equal", ci_method="official", ci=0.9, rounds=7,
        seed=3, strong_weight=1, style_refits="one-step",
    )  # fmt: skip
    assert options == expected
    assert _parse([]) == RankingOptions()  # defaults live in the dataclass only
    assert RankingOptions().ci_method == "sandwich"
    config = {f.name: getattr(expected, f.name) for f in fields(RankingOptions)}
    assert from_mapping(RankingOptions, config, "ranking") == expected
    with pytest.raises(ValueError, match=r"ranking\.method: 'median' is not one of bt, mean"):
        from_mapping(RankingOptions, {"method": "median"}, "ranking")
    with pytest.raises(SystemExit):  # argparse refuses a value outside the Literal's choices
        _parse(["--ci-method", "bootstrap"])
    with pytest.raises(UserError, match="unknown style feature 'size'"):
        _parse(["--style-control", "size"])


@pytest.mark.parametrize("command", ["leaderboard", "metrics", "power", "report"])
def test_strong_weight_is_declared_once_for_every_ranking_command(command: str) -> None:
    from inspect_arenahard.cli import build_parser

    parser = build_parser()
    extra = {"metrics": ["--reference", "r.csv"], "report": ["--html", "out"]}.get(command, [])
    args = parser.parse_args(
        [command, "logs", *extra, "--strong-weight", "1", "--ci-method", "official"]
    )
    assert (
        ranking_options(args).strong_weight == 1 and ranking_options(args).ci_method == "official"
    )


def _side_rows(battles: Battles, model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The model's own points, weights and prompts over its parsed games."""
    used = battles.select(battles.parsed)
    j = used.models.index(model)
    mine = (used.a == j) | (used.b == j)
    y = np.where(used.a[mine] == j, used.points[mine], 1 - used.points[mine])
    return y, used.weight[mine], used.question_id[mine].astype(str)


def _statsmodels_cov(battles: Battles, models: list[str]) -> np.ndarray:
    """Cluster-robust covariance of the models' weighted mean scores by statsmodels: a WLS of
    each game's points on one indicator per model, clustered by prompt, without its
    (N − 1)/(N − K) factor (so only G/(G − 1) remains, as in ours)."""
    ys, ws, gs, xs = [], [], [], []
    for k, model in enumerate(models):
        y, w, g = _side_rows(battles, model)
        ys.append(y), ws.append(w), gs.append(g)
        x = np.zeros((len(y), len(models)))
        x[:, k] = 1
        xs.append(x)
    y, w, g, x = (np.concatenate(v) for v in (ys, ws, gs, xs))
    groups = np.unique(g, return_inverse=True)[1]
    fit = sm.WLS(y, x, weights=w).fit(
        cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}
    )
    n_groups = groups.max() + 1
    return np.asarray(fit.cov_params()) * n_groups / (n_groups - 1)


@pytest.mark.shared_data
@pytest.mark.parametrize("method", ["mean", "bt"])
def test_mean_and_star_bt_intervals_are_statsmodels_cluster_robust_means(method: str) -> None:
    """With one fixed baseline the mean score is the star-design BT estimate: both get the
    logistic Wald interval of the prompt-clustered variance of a weighted mean."""
    battles = read_battles_jsonl(shared(*BATTLE_FILE))
    table = leaderboard(battles, method=method, ci=0.9)
    models = [r.model for r in table.rows if r.model != BASE]
    cov = _statsmodels_cov(battles, models)
    z = norm.ppf(0.95)
    rows = {r.model: r for r in table.rows}
    for k, model in enumerate(models):
        y, w, _ = _side_rows(battles, model)
        p = float(w @ y / w.sum())
        se_logit = math.sqrt(cov[k, k]) / (p * (1 - p))
        assert rows[model].score == pytest.approx(100 * p, abs=1e-9)
        assert (rows[model].lower, rows[model].upper) == pytest.approx(
            (100 * expit(logit(p) - z * se_logit), 100 * expit(logit(p) + z * se_logit)), abs=1e-7
        )
        for m, other in enumerate(models):
            assert table.score_covariance(model, other) == pytest.approx(
                1e4 * cov[k, m], rel=1e-6, abs=1e-9
            )
    assert table.clusters == 120 and table.ci_method == "sandwich"


@pytest.mark.shared_data
def test_clustered_variance_matches_a_brute_force_prompt_bootstrap() -> None:
    """Resampling prompts with every game and weight they hold (4000 rounds) gives the same
    standard errors as the sandwich, and the official row bootstrap gives smaller ones."""
    battles = read_battles_jsonl(shared(*BATTLE_FILE))
    honest = leaderboard(battles, method="mean")
    official = leaderboard(battles, method="mean", ci_method="official", rounds=4000, seed=1)
    rng = np.random.default_rng(0)
    for model in (r.model for r in honest.rows if r.model != BASE):
        y, w, g = _side_rows(battles, model)
        prompts, index = np.unique(g, return_inverse=True)
        won = np.bincount(index, w * y)
        total = np.bincount(index, w)
        draws = rng.multinomial(len(prompts), np.full(len(prompts), 1 / len(prompts)), size=4000)
        boot = 100 * (draws @ won) / (draws @ total)
        sandwich_se = math.sqrt(
            honest.score_covariance(model, model) * (len(prompts) - 1) / len(prompts)
        )
        assert np.std(boot) == pytest.approx(sandwich_se, rel=0.06)
        assert np.std(official.bootstrap[model]) < 0.8 * np.std(boot)


@pytest.mark.shared_data
def test_power_reads_the_leaderboards_variance() -> None:
    """Pairs separated by non-overlapping intervals are exactly those of the leaderboard; the
    paired test uses the covariance of the two scores (statsmodels, clustered by prompt)."""
    battles = read_battles_jsonl(shared(*BATTLE_FILE))
    ranking = rank(battles, RankingOptions(method="mean", ci=0.9))
    table = ranking.overall
    prompts = {m: set(_side_rows(battles, m)[2].tolist()) for m in battles.models}
    report = power_analysis(table, prompts, delta=3.0)
    models = sorted(r.model for r in table.rows if r.model != BASE)
    rows = {r.model: r for r in table.rows}
    cov = _statsmodels_cov(battles, models)
    z = norm.ppf(0.95)
    separated_ci = separated_paired = 0
    sd_diff = []
    for (i, a), (j, b) in itertools.combinations(enumerate(models), 2):
        separated_ci += rows[a].lower > rows[b].upper or rows[b].lower > rows[a].upper
        se_d = 100 * math.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
        separated_paired += abs(rows[a].score - rows[b].score) > z * se_d
        sd_diff.append(se_d * math.sqrt(len(prompts[a] & prompts[b])))
    assert [s.model for s in report.models] == models
    assert [s.se for s in report.models] == pytest.approx(
        [100 * math.sqrt(cov[k, k]) for k in range(len(models))]
    )
    assert report.pairs_separated_ci_overlap == separated_ci
    assert report.pairs_separated_paired == separated_paired > separated_ci
    assert report.typical_sd_diff == pytest.approx(math.sqrt(np.mean(np.square(sd_diff))))
    assert report.prompts_needed_paired == math.ceil((z * report.typical_sd_diff / 3.0) ** 2)
    assert "prompt-clustered" in report.interval


def test_one_step_refits_are_named_in_the_label_and_the_records() -> None:
    """An official style-controlled bootstrap of one-step refits says so in its interval label
    and in every record; exact refits (the default below arena scale) say nothing more."""
    rng = np.random.default_rng(3)
    models, a, b, points, weight = random_battles(3, n_models=6, n=3_000, star=False)

    def style() -> np.ndarray:
        return np.column_stack([rng.lognormal(6, 0.5, len(a)), *(rng.poisson(2, (3, len(a))))])

    none = np.full(len(a), None, dtype=object)
    battles = Battles(
        models=models, a=a, b=b, points=points, weight=weight, question_id=np.arange(len(a)).astype(object),
        category=none, judge=none, baseline=none, style_a=style(), style_b=style(),
    )  # fmt: skip
    tables = {}
    for refits in ("auto", "one-step"):
        options = RankingOptions(
            style_control="length,markdown", ci_method="official", rounds=20, style_refits=refits
        )
        tables[refits] = rank(battles, options).overall
    assert "one-step refits" in tables["one-step"].interval
    assert "one-step" not in tables["auto"].interval
    assert {r.get("bootstrap_refits") for r in records([tables["one-step"]])} == {"one-step"}
    assert all("bootstrap_refits" not in r for r in records([tables["auto"]]))
    # the same resamples: the scores agree, the intervals nearly
    exact, stepped = (sorted((r.model, r.score, r.lower) for r in t.rows) for t in tables.values())
    for (m1, s1, l1), (m2, s2, l2) in zip(exact, stepped):
        assert m1 == m2 and s1 == s2 and abs(l1 - l2) < 0.5


@pytest.mark.shared_data
def test_battle_file_counts_games_not_rows() -> None:
    """The shared battle file writes each strong verdict as three rows: 2,136 rows are 960 games
    (2 per prompt and model), and reading them as games changes no number of the official fit."""
    path = shared(*BATTLE_FILE)
    battles = read_battles_jsonl(path)
    table = leaderboard(battles, ci_method="official", seed=4)
    assert len(battles) == 960 and battles.weight.sum() == 2136
    assert {r.model: r.n for r in table.rows} == {
        m: (960 if m == BASE else 240) for m in battles.models
    }
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    one_per_row = read_battles_jsonl(path, strong_weight=1)  # every row its own game
    assert len(one_per_row) == len(rows)
    again = leaderboard(one_per_row, ci_method="official", seed=4)
    assert [(r.model, r.score, r.lower, r.upper) for r in again.rows] == [
        (r.model, r.score, r.lower, r.upper) for r in table.rows
    ]
