"""Judge analytics and power analysis: κ statistics against sklearn/statsmodels, position
bias/consistency, self-bias, length bias and prompt counts on hand-made games with known values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from inspect_arenahard.stats import agreement as ag
from inspect_arenahard.stats import judge_bias as jb
from inspect_arenahard.stats import power as pw
from inspect_arenahard.stats.model_families import model_family


def rec(judge, qid, model, game, position, label, tokens=None, baseline="base", parsed=None):
    record = {
        "question_id": qid,
        "model": model,
        "baseline": baseline,
        "judge": judge,
        "category": "c",
        "game": game,
        "model_position": position,
        "label": label,
        "parsed": label is not None if parsed is None else parsed,
        "style": None,
    }
    if tokens is not None:
        record["style"] = {"model": {"token_len": tokens[0]}, "baseline": {"token_len": tokens[1]}}
    return record


# ---------------------------------------------------------------- κ statistics


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2 + seed % 4, 80)
    b = np.where(rng.random(80) < 0.6, a, rng.integers(0, 2 + seed % 4, 80))
    assert ag.cohen_kappa(list(a), list(b)) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert ag.agreement_probability(list(a), list(b)) == pytest.approx(np.mean(a == b))


def test_cohen_kappa_hand_made_and_degenerate():
    # p_o = 3/4, p_e = 1/2·1/4 + 1/2·3/4 = 1/2 → κ = 1/2
    assert ag.cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    assert ag.cohen_kappa(["x", "y"], ["x", "y"]) == 1.0
    assert math.isnan(ag.cohen_kappa(["x", "x"], ["x", "x"]))
    assert math.isnan(ag.cohen_kappa([], []))
    with pytest.raises(ValueError, match="different numbers of items"):
        ag.cohen_kappa([1], [1, 2])


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_kappa_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    n_raters, n_cat = 3 + seed % 3, 3 + seed % 2
    truth = rng.integers(0, n_cat, 60)
    ratings = [
        [t if rng.random() < 0.7 else int(rng.integers(0, n_cat)) for _ in range(n_raters)]
        for t in truth
    ]
    table, _ = ag.category_counts(ratings)
    assert ag.fleiss_kappa(ratings) == pytest.approx(
        sm_fleiss_kappa(table, method="fleiss"), abs=1e-12
    )


def test_fleiss_kappa_hand_made():
    assert ag.fleiss_kappa([["a", "a", "a"], ["b", "b", "b"]]) == 1.0
    # two items, raters split 2-1 on each: P_i = 1/3, p = (1/2, 1/2) → κ = (1/3 − 1/2)/(1/2) = −1/3
    assert ag.fleiss_kappa([["a", "a", "b"], ["b", "b", "a"]]) == pytest.approx(-1 / 3)
    with pytest.raises(ValueError, match="same number"):
        ag.fleiss_kappa([["a", "b"], ["a", "b", "c"]])


def test_judge_agreement_on_shared_items():
    rng = np.random.default_rng(7)
    labels = {
        j: {i: int(rng.integers(0, 3)) for i in range(40) if rng.random() < 0.9}
        for j in ("j1", "j2", "j3")
    }
    summary = ag.judge_agreement(labels)
    assert [(p.judge_a, p.judge_b) for p in summary.pairs] == [
        ("j1", "j2"),
        ("j1", "j3"),
        ("j2", "j3"),
    ]
    for pair in summary.pairs:
        shared = sorted(set(labels[pair.judge_a]) & set(labels[pair.judge_b]))
        a = [labels[pair.judge_a][i] for i in shared]
        b = [labels[pair.judge_b][i] for i in shared]
        assert pair.n_items == len(shared)
        assert pair.kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
        assert pair.agreement == pytest.approx(np.mean(np.array(a) == np.array(b)))
    common = sorted(set(labels["j1"]) & set(labels["j2"]) & set(labels["j3"]))
    table = np.array([[sum(labels[j][i] == c for j in labels) for c in range(3)] for i in common])
    assert summary.n_items_all_judges == len(common)
    assert summary.fleiss_kappa == pytest.approx(sm_fleiss_kappa(table), abs=1e-12)
    assert summary.mean_agreement == pytest.approx(np.mean([p.agreement for p in summary.pairs]))
    assert ag.judge_agreement({k: labels[k] for k in ("j1", "j2")}).fleiss_kappa is None


# ---------------------------------------------------------------- position bias and consistency


def position_games():
    return [
        rec("J", 1, "m", 1, "B", "B>A"),
        rec("J", 1, "m", 2, "A", "A>B"),  # consistent, same strength
        rec("J", 2, "m", 1, "B", "A>B"),
        rec("J", 2, "m", 2, "A", "A>B"),  # slot A always wins: inconsistent
        rec("J", 3, "m", 1, "B", "B>>A"),
        rec("J", 3, "m", 2, "A", "A>B"),  # consistent winner, not strength
        rec("J", 4, "m", 1, "B", "A=B"),
        rec("J", 4, "m", 2, "A", None),  # second game unparsed
    ]


def test_position_bias_and_consistency_hand_made():
    (s,) = jb.position_analysis(position_games())
    assert (s.judge, s.n_games, s.n_unparsed, s.a_wins, s.b_wins, s.ties) == ("J", 8, 1, 4, 2, 1)
    assert (s.a_win_rate, s.b_win_rate, s.tie_rate) == pytest.approx((4 / 7, 2 / 7, 1 / 7))
    assert s.a_share_of_decisive == pytest.approx(4 / 6)
    assert s.position_p_value == pytest.approx(
        stats.binomtest(4, 6).pvalue
    ) and s.position_p_value == pytest.approx(0.6875)
    assert (s.n_prompts, s.n_incomplete) == (3, 1)
    assert s.consistency == pytest.approx(2 / 3) and s.consistency_strict == pytest.approx(1 / 3)


def test_position_analysis_errors():
    games = position_games() + [rec("J", 1, "m", 1, "B", "A>B")]
    with pytest.raises(ValueError, match="duplicate game 1 for judge 'J', question 1"):
        jb.position_analysis(games)
    bad = dict(position_games()[0])
    del bad["label"]
    with pytest.raises(ValueError, match=r"game record #0: missing field\(s\) label"):
        jb.position_analysis([bad])
    with pytest.raises(ValueError, match="'model_position' must be 'A' or 'B'"):
        jb.position_analysis([dict(position_games()[0], model_position="C")])


def test_model_outcome_scale():
    assert [
        jb.model_outcome(rec("J", 1, "m", 1, pos, lab))
        for pos, lab in [
            ("A", "A>>B"),
            ("A", "A>B"),
            ("B", "A=B"),
            ("B", "A>B"),
            ("B", "A>>B"),
            ("A", None),
        ]
    ] == [2, 1, 0, -1, -2, None]
    assert jb.model_outcome(rec("J", 1, "m", 1, "A", "A>B", parsed=False)) is None


def test_judges_agreement_from_games_matches_sklearn():
    rng = np.random.default_rng(3)
    labels = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    games = []
    for q in range(30):
        for g, pos in ((1, "B"), (2, "A")):
            base = labels[int(rng.integers(0, 5))]
            for judge in ("j1", "j2", "j3"):
                label = base if rng.random() < 0.6 else labels[int(rng.integers(0, 5))]
                games.append(
                    rec(judge, q, "m", g, pos, None if (judge == "j3" and q == 0) else label)
                )
    fine, coarse = jb.judges_agreement(games)
    outcomes = jb.judge_outcomes(games)
    shared = sorted(set(outcomes["j1"]) & set(outcomes["j3"]))
    assert len(shared) == 58  # j3 left question 0 unparsed
    a, b = [outcomes["j1"][i] for i in shared], [outcomes["j3"][i] for i in shared]
    assert fine.pairs[1].kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert coarse.pairs[1].kappa == pytest.approx(
        cohen_kappa_score(np.sign(a), np.sign(b)), abs=1e-12
    )
    assert fine.n_items_all_judges == 58 and fine.fleiss_kappa is not None


# ---------------------------------------------------------------- scores from games, self-bias


def test_per_prompt_scores_use_arena_hard_weighting():
    games = [
        rec("J", 1, "m", 1, "A", "A>>B"),
        rec("J", 1, "m", 2, "B", "A>B"),
        rec("J", 2, "m", 1, "A", "A=B"),
        rec("J", 2, "m", 2, "B", None),
        rec("K", 2, "m", 1, "B", "B>A"),
    ]
    # question 1: strong win = 3 points of weight 3, loss = 0 of 1 → 75; question 2: tie (the
    # unparsed game is left out) → 50; judge K separately
    assert jb.per_prompt_scores(games) == {
        "J": {"m": {1: pytest.approx(75.0), 2: pytest.approx(50.0)}},
        "K": {"m": {2: pytest.approx(100.0)}},
    }


def test_model_family():
    assert model_family("openai/gpt-4o-2024-05-13") == "openai"
    assert model_family("gpt-4-1106-preview") == "openai"
    assert model_family("o1-mini") == "openai"
    assert model_family("anthropic/claude-3-opus-20240229") == "anthropic"
    assert model_family("Llama-2-70b-chat-hf") == "meta"
    assert model_family("Mixtral-8x7B-Instruct-v0.1") == "mistral"
    assert model_family("gemini-1.5-pro-api-0514") == "google"
    assert model_family("openchat-3.5") == "openchat-3.5"
    assert model_family("together/some-model") == "some-model"
    assert model_family("my-ft", {"my-ft": "openai"}) == "openai"


def test_self_bias_hand_made():
    judge_scores = {"gpt-a": 90.0, "claude-b": 80.0, "llama-c": 70.0, "unranked": 10.0}
    reference = {"claude-b": 1300.0, "llama-c": 1200.0, "gpt-a": 1100.0}
    result = jb.self_bias("gpt-4-judge", judge_scores, reference)
    assert result.judge_family == "openai"
    assert [(r.model, r.judge_rank, r.reference_rank, r.shift) for r in result.rows] == [
        ("gpt-a", 1, 3, 2),
        ("claude-b", 2, 1, -1),
        ("llama-c", 3, 2, -1),
    ]
    assert result.family_shift == {"anthropic": -1.0, "meta": -1.0, "openai": 2.0}
    assert result.own_family_shift == 2.0 and result.to_dict()["own_family_shift"] == 2.0
    assert jb.ranks({"a": 1.0, "b": 3.0, "c": 1.0}) == {"a": 2.5, "b": 1.0, "c": 2.5}


def test_consensus_scores_excludes_the_judge():
    scores = {
        "j1": {"a": 1.0, "b": 2.0},
        "j2": {"a": 3.0, "b": 4.0, "c": 1.0},
        "j3": {"a": 5.0, "b": 0.0},
    }
    assert jb.consensus_scores(scores, "j1") == {"a": 4.0, "b": 2.0}
    assert jb.consensus_scores({"j1": {"a": 1.0}}, "j1") == {}


# ---------------------------------------------------------------- length bias


def test_correlations_match_numpy_and_scipy():
    rng = np.random.default_rng(1)
    x = {f"m{k}": float(v) for k, v in enumerate(rng.normal(size=12))}
    y = {k: v * 2 + float(rng.normal()) for k, v in x.items()}
    y["extra"] = 1.0
    got = jb.correlations(x, y)
    a, b = np.array(list(x.values())), np.array([y[k] for k in x])
    assert got["n"] == 12
    assert got["pearson"] == pytest.approx(np.corrcoef(a, b)[0, 1])
    assert got["spearman"] == pytest.approx(np.corrcoef(stats.rankdata(a), stats.rankdata(b))[0, 1])
    assert math.isnan(jb.correlations({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 3.0})["pearson"])


def test_verbose_policy_and_length_preference():
    games = [
        rec("J", 1, "m", 1, "B", "B>A", tokens=(300, 100)),
        rec("J", 1, "m", 2, "A", "A>B", tokens=(300, 100)),
        rec(
            "K", 1, "m", 1, "B", "A>B", tokens=(300, 100)
        ),  # second judge, same game: policy counts it once
        rec("J", 2, "m", 1, "B", "A>B", tokens=(50, 100)),
        rec("J", 2, "m", 2, "A", "A=B", tokens=(50, 100)),
        rec("J", 3, "m", 1, "B", "B>A", tokens=(80, 80)),
        rec("J", 4, "n", 1, "A", "A>B"),
    ]
    policy = jb.verbose_policy(games)
    assert [(g["question_id"], g["game"], g["label"]) for g in policy] == [
        (1, 1, "B>A"),
        (1, 2, "A>B"),
        (2, 1, "A>B"),
        (2, 2, "B>A"),
        (3, 1, "A=B"),
    ]
    assert all(g["judge"] == jb.VERBOSE_POLICY for g in policy)
    assert jb.per_prompt_scores(policy)[jb.VERBOSE_POLICY]["m"] == {1: 100.0, 2: 0.0, 3: 50.0}
    # decisive games with different lengths: J q1 g1/g2 (longer wins), q2 g1 (baseline longer, wins)
    assert jb.longer_answer_preference(games) == {
        "J": {"n": 3, "longer_wins": 1.0},
        "K": {"n": 1, "longer_wins": 0.0},
    }


# ---------------------------------------------------------------- power


def test_prompts_needed_formulas():
    z = 1.959963984540054
    assert pw.prompts_needed(10, 10, 2) == math.ceil((z * 20 / 2) ** 2) == 385
    assert pw.prompts_needed_paired(10, 2) == math.ceil((z * 10 / 2) ** 2) == 97
    assert pw.prompts_needed_paired(10, 2, 0.8) == math.ceil((1.2815515655446004 * 10 / 2) ** 2)
    assert pw.prompts_needed(0, 0, 1) == 1
    with pytest.raises(ValueError, match="delta must be positive"):
        pw.prompts_needed(1, 1, 0)


def test_power_analysis_without_a_measured_model_says_so():
    """(The power figures themselves are checked against statsmodels in tests/stats/test_ranking.py.)"""
    from inspect_arenahard.stats.estimates import Leaderboard, Row

    only_baseline = Leaderboard(
        category=None, baseline="b", method="bt", rounds=0, ci=0.95, rows=(Row("b", 50, 50, 50, 4, None),)
    )  # fmt: skip
    report = pw.power_analysis(only_baseline, {"b": {1, 2}}, 1.0)
    assert report.models == [] and report.prompts_needed_ci_overlap is None and report.n_pairs == 0
    assert math.isnan(report.typical_sd)
    with pytest.raises(ValueError, match="delta must be positive"):
        pw.power_analysis(only_baseline, {}, 0.0)
