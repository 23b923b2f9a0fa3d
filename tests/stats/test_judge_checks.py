"""Judge checks and who judged whom: the prompt-clustered share against statsmodels, scripted
judges whose verdicts carry no information flagged (and the four real judges not), and the
judge–model graph deciding which rows compare (disjoint judges, a full ensemble, partial overlap,
a model judged by its own family)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from inspect_arenahard.stats import judge_analytics, judge_bias
from inspect_arenahard.stats.judge_checks import _commonest, check_judges
from inspect_arenahard.stats.ranking import RankingOptions, rank
from inspect_arenahard.stats.shares import clustered_share, clustered_variance
from inspect_arenahard.stats.verdict_points import LABELS

BASE = "base"
LABEL = {1: "A>B", 0: "A=B", -1: "B>A"}


def style(tokens):
    return {"token_len": tokens, "header_count": {}, "list_count": {}, "bold_count": {}}


def games(judge, models, verdict, prompts=40, seed=0, baseline=BASE):
    """Both swapped games of every prompt for each model; ``verdict(rng, model_is_a, model_len,
    base_len, quality)`` gives the label. Answer lengths vary by prompt; a model's quality is its
    index in ``models`` + 1 (the baseline is 0)."""
    rng = np.random.default_rng(seed)
    out = []
    for quality, model in enumerate(models, 1):
        for q in range(prompts):
            model_len, base_len = int(rng.integers(50, 500)), int(rng.integers(50, 500))
            for game, position in ((1, "B"), (2, "A")):
                label = verdict(rng, position == "A", model_len, base_len, quality)
                out.append({
                    "question_id": f"q{q}", "model": model, "baseline": baseline, "judge": judge,
                    "category": "c", "game": game, "model_position": position, "label": label,
                    "parsed": True,
                    "style": {"model": style(model_len), "baseline": style(base_len)},
                })  # fmt: skip
    return out


def position_only(rng, model_is_a, model_len, base_len, quality):
    return "A>>B"  # the small local judge of the motivating case


def always_tie(rng, model_is_a, model_len, base_len, quality):
    return "A=B"


def longer_wins(rng, model_is_a, model_len, base_len, quality):
    model_wins = model_len > base_len
    return "A>B" if model_wins == model_is_a else "B>A"


def informed(rng, model_is_a, model_len, base_len, quality):
    """Prefers the better model (by quality), with noise; no position or length rule."""
    model_wins = rng.random() < 0.5 + 0.1 * quality
    return "A>B" if model_wins == model_is_a else "B>A"


def a_biased(rng, model_is_a, model_len, base_len, quality):
    """Position A wins 80% of games whatever the answers."""
    return "A>B" if rng.random() < 0.8 else "B>A"


# ---------------------------------------------------------------- the clustered share


@pytest.mark.parametrize("seed", range(4))
def test_clustered_share_matches_statsmodels_cluster_robust_mean(seed):
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 25, 200)
    effect = rng.normal(0, 1, 25)[clusters]  # prompts differ: games on one prompt are alike
    hits = (rng.normal(0, 1, 200) + effect > 0.3).astype(float)
    fit = sm.OLS(hits, np.ones((200, 1))).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert clustered_variance(hits, clusters.tolist()) == pytest.approx(fit.bse[0] ** 2, rel=1e-10)
    share = clustered_share(hits.astype(bool), clusters.tolist(), 0.9)
    p = hits.mean()
    n_eff = p * (1 - p) / fit.bse[0] ** 2
    lower, upper = proportion_confint(p * n_eff, n_eff, alpha=0.1, method="wilson")
    assert (share.value, share.n, share.prompts) == (pytest.approx(p), 200, len(set(clusters)))
    assert (share.lower, share.upper) == (pytest.approx(lower), pytest.approx(upper))


def test_clustered_share_of_one_sided_games_is_a_wilson_interval_not_a_point():
    share = clustered_share([True] * 20, [f"q{i // 2}" for i in range(20)])
    assert share.value == 1.0 and share.upper == pytest.approx(1.0)
    # every game went one way: each of the 10 prompts counts once
    assert share.lower == pytest.approx(proportion_confint(10, 10, 0.05, "wilson")[0])
    assert 0.7 < share.lower < 0.75
    assert clustered_share([], []).n == 0


# ---------------------------------------------------------------- flags


def test_judges_whose_verdicts_carry_no_information_are_flagged():
    records = [
        *games("position-only", ["m1", "m2"], position_only),
        *games("tie-only", ["m1", "m2"], always_tie),
        *games("longer-only", ["m1", "m2"], longer_wins),
        *games("a-biased", ["m1", "m2"], a_biased, prompts=150),
        *games("informed", ["m1", "m2"], informed),
    ]
    checks = {c.judge: c for c in check_judges(records)}
    # [[A>>B]] always: one position, one label, and never the same outcome after the swap
    assert checks["position-only"].flags == ("position-only", "constant", "swap-inconsistent")
    assert checks["position-only"].position == "A" and checks["position-only"].label == "A>>B"
    assert checks["tie-only"].flags == ("constant",)  # swap-consistent: only the label tells
    assert checks["longer-only"].flags == ("length-only",)
    assert checks["a-biased"].flags == ("swap-inconsistent",)  # 64% of pairs: not position-only
    assert checks["informed"].flags == ()
    # the figures are judge_bias's (one place counts them)
    positions = {p.judge: p for p in judge_bias.position_analysis(records)}
    for judge, check in checks.items():
        assert check.consistency.value == pytest.approx(positions[judge].consistency)
        assert check.position_a.value == pytest.approx(positions[judge].a_win_rate)
        assert check.ties.value == pytest.approx(positions[judge].tie_rate)
    assert checks["longer-only"].longer.value == 1.0
    assert "position A won both games of 100%" in checks["position-only"].reasons()[0]


def test_a_few_one_sided_games_raise_no_flag():
    """Two prompts answered [[A>>B]]: 100%, but not beyond chance."""
    [check] = check_judges(games("tiny", ["m1"], position_only, prompts=2))
    assert check.one_position.value == 1.0 and check.one_position.lower < 0.5
    assert check.flags == ()


def test_rows_resting_only_on_a_flagged_judge_have_no_meaningful_interval():
    """The motivating case: [[A>>B]] in every game gives 50.0 [50.0, 50.0]; now it is flagged
    and its interval marked, while a row also judged by a sound judge keeps its interval."""
    records = [
        *games("position-only", ["m1", "m2"], position_only),
        *games("informed", ["m2"], informed),
    ]
    ranking = rank(records)
    table = ranking.overall
    m1 = next(r for r in table.rows if r.model == "m1")
    assert (m1.score, m1.lower, m1.upper) == (50.0, 50.0, 50.0)
    judging = ranking.judging(table)
    assert judging is not None
    assert judging.rows["m1"].judge_flags[:2] == (
        "position-only (position-only)",
        "constant (position-only)",
    )
    assert not judging.rows["m1"].interval_meaningful
    assert judging.rows["m2"].interval_meaningful and judging.rows["m2"].judge_flags
    assert "CI not meaningful" in judging.rows["m1"].flag_cell()
    assert any(n.startswith("judge position-only flagged: position-only:") for n in judging.notes())
    with pytest.raises(ValueError, match=r"--strict-judges.*position-only \(position-only"):
        rank(records, RankingOptions(strict_judges=True))
    rank(games("informed", ["m2"], informed), RankingOptions(strict_judges=True))  # no flag: ranks


@pytest.mark.shared_data
def test_the_four_real_judges_are_not_flagged():
    from tests.helpers.real_judgments import judgment_games

    checks = {c.judge: c for c in check_judges(judgment_games())}
    assert set(checks) == {
        "gemini-1.5-pro-api-preview", "gpt-3.5-turbo-0125", "gpt-4-1106-preview", "gpt-4o",
    }  # fmt: skip
    assert all(c.flags == () for c in checks.values())
    # the figures docs/quality.md quotes
    assert checks["gpt-4-1106-preview"].consistency.text() == "62% [51%, 72%] of 81"
    assert checks["gpt-4o"].consistency.text() == "80% [74%, 86%] of 194"
    assert checks["gemini-1.5-pro-api-preview"].consistency.text() == "43% [15%, 77%] of 7"


# ---------------------------------------------------------------- who judged whom


def test_two_judges_over_disjoint_models_split_into_groups_ranked_apart():
    records = [*games("j1", ["a", "b"], informed), *games("j2", ["c", "d"], informed, seed=1)]
    ranking = rank(records)
    judging = ranking.judging(ranking.overall)
    assert judging is not None and judging.split
    assert {frozenset(g) for g in judging.groups} == {frozenset("ab"), frozenset("cd")}
    assert judging.rows[BASE].group is None and judging.rows[BASE].judges == {"j1": 160, "j2": 160}
    assert judging.rows["a"].judges == {"j1": 80} and judging.rows["c"].shared_share == 1.0
    ranks = judging.group_ranks(r.model for r in ranking.overall.rows)
    assert sorted(ranks.values()) == [1, 1, 2, 2]
    [note] = judging.notes()
    assert note.startswith(
        "not comparable across judges: the judges split the models into 2 groups"
    )
    from inspect_arenahard.report.leaderboard_tables import format_table

    text = format_table(ranking.overall, judging={ranking.overall.category: judging})
    rows = [line.split() for line in text.splitlines()[2:6]]
    assert [r[0] for r in rows] == ["-", "1", "2", "1"]  # the anchor, then each group's own ranks
    assert " ".join(rows[0][-3:]) == "all 2 judges"
    judged_by = [" ".join(r[-2:]) for r in rows[1:]]
    assert judged_by in (["j1 80", "j1 80", "j2 80"], ["j2 80", "j2 80", "j1 80"])


def test_a_full_ensemble_prints_no_warning():
    records = [*games("j1", ["a", "b"], informed), *games("j2", ["a", "b"], informed, seed=1)]
    ranking = rank(records)
    judging = ranking.judging(ranking.overall)
    assert judging is not None and judging.full_ensemble and not judging.split
    assert judging.notes() == []
    assert all(r.shared_share == 1.0 for r in judging.rows.values())
    from inspect_arenahard.report.leaderboard_tables import format_table, judged_by

    assert judged_by(judging.rows["a"], judging) == "all 2 judges"
    text = format_table(ranking.overall, judging={ranking.overall.category: judging})
    assert "group" not in text and "not comparable" not in text and "overlap" not in text


def test_partial_overlap_reports_each_models_share_of_shared_judges():
    records = [
        *games("j1", ["a", "b"], informed),
        *games("j2", ["a"], informed, seed=1, prompts=20),  # j2 scored a only
    ]
    ranking = rank(records)
    judging = ranking.judging(ranking.overall)
    assert judging is not None and not judging.split and not judging.full_ensemble
    assert judging.rows["a"].shared_share == pytest.approx(80 / 120)  # j1's 80 of a's 120 games
    assert judging.rows["b"].shared_share == 1.0
    [note] = judging.notes()
    assert note.startswith("partial judge overlap") and "a 67%" in note and "b 100%" in note


def test_a_model_judged_by_its_own_family_is_flagged_with_the_share_of_its_games():
    records = [
        *games("openai/gpt-4o", ["gpt-4o-mini", "claude-3-haiku"], informed),
        *games("anthropic/claude-3-opus", ["gpt-4o-mini", "claude-3-haiku"], informed, prompts=20),
    ]
    ranking = rank(records)
    judging = ranking.judging(ranking.overall)
    assert judging is not None
    assert judging.rows["gpt-4o-mini"].self_judged == pytest.approx(80 / 120)
    assert judging.rows["claude-3-haiku"].self_judged == pytest.approx(40 / 120)
    assert judging.rows[BASE].self_judged == 0.0  # the anchor's 50 is fixed: nothing to favour
    assert judging.rows["gpt-4o-mini"].flag_cell() == "self-judged 67%"
    # arenahard judges' self-bias analysis marks the same pairs, by the same rule
    analytics = judge_analytics.analyse_judges(records)
    marked = {
        (b.bias.judge, r.model) for b in analytics.self_bias for r in b.bias.rows if r.own_family
    }
    assert marked == {
        ("openai/gpt-4o", "gpt-4o-mini"),
        ("anthropic/claude-3-opus", "claude-3-haiku"),
    }
    assert judge_bias.judged_by_own_family("openai/gpt-4o", "GPT-4O")
    assert not judge_bias.judged_by_own_family("gpt-4o", "Meta-Llama-3.1-8B-Instruct")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, len(LABELS) - 1), max_size=30))
def test_the_commonest_label_is_counters_first_seen_among_equals(codes):
    """The ``constant`` check's label: ``Counter.most_common`` of the labels, on label codes."""
    expected = Counter(codes).most_common(1)[0][0] if codes else None
    assert _commonest(np.array(codes, dtype=np.int8)) == expected
