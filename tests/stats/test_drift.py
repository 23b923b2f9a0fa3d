"""The canary drift test: exact p-values against brute force and scipy, its level over seeds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest

from inspect_arenahard.stats.drift import (
    DRIFT_ALPHA,
    canary_drift,
    canary_value,
    compare_runs,
    sign_flip_p_value,
)
from inspect_arenahard.stats.verdict_points import LABELS


def brute_force(terms: list[int]) -> float:
    observed = abs(sum(terms))
    hits = sum(
        abs(sum(s * t for s, t in zip(signs, terms))) >= observed
        for signs in itertools.product((1, -1), repeat=len(terms))
    )
    return hits / 2 ** len(terms)


@pytest.mark.parametrize("seed", range(6))
def test_p_value_is_the_exact_sign_flip_distribution(seed: int) -> None:
    rng = np.random.default_rng(seed)
    terms = [int(t) for t in rng.integers(-16, 17, size=int(rng.integers(1, 13)))]
    assert sign_flip_p_value(terms) == pytest.approx(brute_force(terms), abs=1e-12)


def test_equal_terms_are_a_binomial_test() -> None:
    # S = 4·(2K − n) with K ~ Binomial(n, ½): the two-sided binomial test (scipy)
    for n, k in ((16, 16), (16, 12), (10, 9), (8, 4)):
        terms = [4] * k + [-4] * (n - k)
        assert sign_flip_p_value(terms) == pytest.approx(binomtest(k, n, 0.5).pvalue)
    assert sign_flip_p_value([]) == 1.0 and sign_flip_p_value([0, 0]) == 1.0


def test_canary_value_mirrors_positions() -> None:
    assert [canary_value(label, "A") for label in LABELS] == [2, 1, 0, -1, -2]
    assert [canary_value(label, "B") for label in LABELS] == [-2, -1, 0, 1, 2]
    assert canary_value(None, "A") is None


def _games(run: str, values: dict[tuple[str, int], str]) -> list[dict[str, object]]:
    return [
        {"judge": "j", "log": run, "question_id": q, "game": g, "label": label,
         "model_position": "B" if g == 1 else "A"}
        for (q, g), label in values.items()
    ]  # fmt: skip


def test_a_judge_that_changed_its_mind_is_caught_and_an_unchanged_one_is_not() -> None:
    prompts = [f"q{k}" for k in range(16)]
    before = {(q, g): ("B>A" if g == 1 else "A>B") for q in prompts for g in (1, 2)}
    after = dict(before)
    for q in prompts[:9]:  # the model side now loses in both positions on 9 prompts
        after[(q, 1)], after[(q, 2)] = "A>B", "B>A"
    c = compare_runs("j", "r1", "r2", _games("r1", before), _games("r2", after))
    assert (c.games, c.disagree, c.prompts) == (32, 18, 16)
    assert c.p_value == pytest.approx(2 * 2**-9) and c.drifted
    same = compare_runs("j", "r1", "r2", _games("r1", before), _games("r2", before))
    assert same.disagree == 0 and same.p_value == 1.0 and not same.drifted
    [drift] = canary_drift(_games("r2", after) + _games("r1", before), ["r1", "r2"])
    assert drift.runs == ("r1", "r2") and drift.drifted == (c,)


def stochastic_run(rng: np.random.Generator, leaning: np.ndarray, bias: float) -> list[int]:
    """Verdict indices of one run of a noisy judge: per prompt a leaning toward the model side,
    plus a position bias toward A; every call drawn independently."""
    out = []
    for lean in leaning:
        for game in (1, 2):
            model_is_a = game == 2
            centre = (lean if model_is_a else -lean) + bias  # preference for A
            probs = np.exp(-0.5 * (np.array([2, 1, 0, -1, -2]) - centre) ** 2)
            out.append(int(rng.choice(5, p=probs / probs.sum())))
    return out


def test_an_unchanged_noisy_judge_is_refused_in_under_one_percent_of_pairs() -> None:
    rng = np.random.default_rng(7)
    refused = 0
    pairs = 1500
    for _ in range(pairs):
        leaning = rng.normal(0, 1.2, 16)
        bias = rng.normal(0, 0.7)
        runs = [stochastic_run(rng, leaning, bias) for _ in range(2)]
        games = [
            {"judge": "j", "log": f"r{r}", "question_id": f"q{k // 2}", "game": k % 2 + 1,
             "label": LABELS[v], "model_position": "B" if k % 2 == 0 else "A"}
            for r, run in enumerate(runs) for k, v in enumerate(run)
        ]  # fmt: skip
        [drift] = canary_drift(games, ["r0", "r1"])
        refused += bool(drift.drifted)
    assert refused / pairs < DRIFT_ALPHA
