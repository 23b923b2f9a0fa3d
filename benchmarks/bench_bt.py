"""Leaderboard statistics at real-leaderboard size, against arena-hard v0.1's reference method.

Synthetic battles shaped like the published leaderboard: 75 models against one baseline, 500
prompts, 2 games each, strong verdicts counted 3 times (about 136K expanded battle rows), with
per-answer style metadata. In one process it times

* the reference: for each bootstrap round, resample the expanded rows with replacement, build the
  duplicated design (±log 10 columns, ties as one win each) and fit sklearn's unpenalized
  LogisticRegression (lbfgs, tol 1e-8), as arena-hard v0.1 did;
* ours: ``stats.leaderboard.leaderboard`` for 100 and 1000 rounds, and with style control
  (length + markdown) for 100 rounds;

and prints times, speed-up, peak memory (tracemalloc, numpy included; the reference's is that of
one fit) and the largest difference between the two methods' full-data scores.

    python benchmarks/bench_bt.py                       # the full comparison (the reference takes minutes)
    python benchmarks/bench_bt.py --reference-rounds 10 # quicker; the 100-round time is then extrapolated
"""

from __future__ import annotations

import argparse
import math
import resource
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from inspect_arenahard.stats.battles import Battles, from_games
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.verdict_points import LABELS

BASELINE = "baseline-model"


def synthetic_games(
    n_models: int, n_prompts: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """Game records (the log reader's contract) from a BT model with a length preference."""
    strength = rng.normal(0, 1, n_models)
    mean_tokens = rng.uniform(300, 900, n_models + 1)

    def answer(model: int) -> dict[str, Any]:
        tokens = int(rng.lognormal(math.log(mean_tokens[model]), 0.4))
        return {
            "token_len": tokens,
            "header_count": {f"h{i}": int(rng.poisson(0.4)) for i in range(1, 7)},
            "list_count": {"ordered": int(rng.poisson(3)), "unordered": int(rng.poisson(4))},
            "bold_count": {"**": int(rng.poisson(2)), "__": 0},
        }

    games = []
    for q in range(n_prompts):
        base = answer(n_models)
        for m in range(n_models):
            mine = answer(m)
            length = (mine["token_len"] - base["token_len"]) / (
                mine["token_len"] + base["token_len"]
            )
            p_model = 1 / (1 + math.exp(-(strength[m] + 1.2 * length)))
            for game, position in ((1, "B"), (2, "A")):
                u = rng.random()
                # index into LABELS (best for A first): strong 41%, weak 49%, tie 10%
                margin = 0 if rng.random() < 0.455 else 1
                model_wins = u < p_model
                index = (
                    2
                    if rng.random() < 0.1
                    else (margin if model_wins == (position == "A") else 4 - margin)
                )
                games.append({
                    "question_id": f"q{q}", "model": f"model-{m}", "baseline": BASELINE, "judge": "judge",
                    "category": None, "game": game, "model_position": position, "label": LABELS[index],
                    "parsed": True, "style": {"model": mine, "baseline": base},
                })  # fmt: skip
    return games


def expanded_rows(battles: Battles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, points) with every battle repeated ``weight`` times: the reference's input."""
    reps = battles.weight.astype(int)
    return np.repeat(battles.a, reps), np.repeat(battles.b, reps), np.repeat(battles.points, reps)


def reference_fit(
    a: np.ndarray, b: np.ndarray, points: np.ndarray, n_models: int, anchor: int
) -> np.ndarray:
    """arena-hard v0.1's MLE: duplicated dense design, sklearn lbfgs; win-rate (%) vs the anchor."""
    n = len(a)
    x = np.zeros((2 * n, n_models))
    rows = np.arange(2 * n)
    x[rows, np.r_[a, a]] = math.log(10)
    x[rows, np.r_[b, b]] = -math.log(10)
    y = np.r_[points >= 0.5, points == 1.0].astype(float)  # a tie: a win in the first copy only
    model = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-8, max_iter=1000).fit(x, y)
    ratings = 400 * model.coef_[0] + 1000
    ratings += 1000 - ratings[anchor]
    return 100 / (1 + 10 ** ((ratings[anchor] - ratings) / 400))


def reference_bootstrap(battles: Battles, rounds: int, rng: np.random.Generator) -> np.ndarray:
    a, b, points = expanded_rows(battles)
    anchor = battles.models.index(BASELINE)
    out = []
    for _ in range(rounds):
        pick = rng.integers(0, len(a), len(a))
        out.append(reference_fit(a[pick], b[pick], points[pick], len(battles.models), anchor))
    return np.array(out)


def measure(label: str, work: Callable[[], Any], memory: bool = True) -> tuple[float, Any]:
    """Print the wall time of ``work`` and, with ``memory``, its tracemalloc peak.

    The peak comes from a separate untimed run (tracing slows Python-level code), which also
    serves as warm-up for the timed run.
    """
    peak = ""
    if memory:
        tracemalloc.start()
        work()
        peak = f"peak {tracemalloc.get_traced_memory()[1] / 2**20:8.1f} MiB"
        tracemalloc.stop()
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    print(f"{label:<46} {seconds:9.3f} s   {peak}")
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", type=int, default=75)
    parser.add_argument("--prompts", type=int, default=500)
    parser.add_argument("--reference-rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    games = synthetic_games(args.models, args.prompts, rng)
    _, battles = measure(
        f"build Battles from {len(games):,} game records", lambda: from_games(games)
    )
    print(
        f"{len(battles):,} games, {int(battles.weight.sum()):,} expanded battle rows, {len(battles.models)} models\n"
    )

    ours100, table = measure(
        "ours: BT, 100 rounds",
        lambda: leaderboard(battles, rounds=100, seed=1, ci_method="official"),
    )
    ours1000, _ = measure(
        "ours: BT, 1000 rounds",
        lambda: leaderboard(battles, rounds=1000, seed=1, ci_method="official"),
    )
    style = ("length", "header", "list", "bold")
    style100, _ = measure(
        "ours: BT + style control, 100 rounds",
        lambda: leaderboard(battles, style=style, rounds=100, seed=1, ci_method="official"),
    )

    a, b, points = expanded_rows(battles)
    anchor = battles.models.index(BASELINE)
    _, full = measure(
        "reference: one full-data fit",
        lambda: reference_fit(a, b, points, len(battles.models), anchor),
    )
    ours_scores = {r.model: r.score for r in table.rows}
    gap = max(abs(full[i] - ours_scores[m]) for i, m in enumerate(battles.models))
    rounds = args.reference_rounds
    ref_seconds, _ = measure(
        f"reference: BT, {rounds} rounds",
        lambda: reference_bootstrap(battles, rounds, rng),
        memory=False,
    )
    ref100 = ref_seconds * 100 / rounds

    print()
    print(
        f"max |score difference| ours vs reference, full data: {gap:.2e} percentage points (reference lbfgs tol 1e-8)"
    )
    print(
        f"speed-up, 100 rounds: {ref100 / ours100:,.0f}x  (reference {ref100:.1f} s{'' if rounds == 100 else ', extrapolated'} vs ours {ours100:.3f} s; target >= 100x)"
    )
    print(
        f"1000 rounds: {ours1000:.2f} s (target < 5 s);  style control, 100 rounds: {style100:.2f} s (target < 3 s)"
    )
    print(
        f"process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB (reference included)"
    )


if __name__ == "__main__":
    main()
