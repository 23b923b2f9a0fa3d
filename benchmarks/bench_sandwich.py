"""Sandwich (cluster-robust, by prompt) intervals against the bootstrap: widths on real data,
coverage on simulated data with a known truth, and time.

Real data: the shared Chatbot-Arena-style battle file (2,136 battles over 120 prompts) and the
shared real arena-hard v0.1 judgments (two games per prompt, gpt-4-0314 baseline). Per model it
prints the 95% interval of the bootstrap (1000 rounds, the default method) and the sandwich.

Simulation: battles from a known Bradley–Terry model in which the two games of a prompt are
correlated (with probability ρ the second game repeats the first game's verdict, mirrored, as a
judge that reads the same two answers twice tends to; otherwise it is drawn afresh, so each game
on its own still follows the model). Coverage is the share of (replication, model) intervals
that contain the true score, for

* an arena-hard-style star: 10 models against one baseline, 300 prompts × 2 games, 10% ties,
  45% of decisive verdicts strong (weighing 3) — truth: the expected weighted points,
  100·(0.9·1.9·σ(θ) + 0.05) / (0.9·1.9 + 0.1) — and, as a control, the same without strong
  verdicts and with independent games, where the bootstrap is right too;
* model-vs-model battles with style control: 8 models, 400 prompts (a random pair each, same two
  answers in both games, length feature) — truth σ(θ) (no ties, so the model is exact).

    python benchmarks/bench_sandwich.py                 # ~2 minutes on 2 cores
    python benchmarks/bench_sandwich.py --reps 100      # quicker, noisier coverage
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.stats.battles import Battles, from_games
from inspect_arenahard.stats.estimates import Leaderboard, leaderboard

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
LENGTH = ("length",)


def real_judgment_games() -> list[dict]:
    """Games from the shared real v0.1 judgment files: game 1 has the baseline as A, game 2 as B."""
    games = []
    for path in sorted((DATA / "arena-hard-v0.1" / "model_judgment").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for number, (game, position) in enumerate(zip(record["games"], "BA"), 1):
                label = game.get("score")
                games.append({
                    "question_id": record["question_id"], "model": record["model"], "baseline": "gpt-4-0314",
                    "judge": record["judge"], "game": number, "model_position": position, "label": label, "parsed": label is not None,
                })  # fmt: skip
    return games


def compare_widths(name: str, battles: Battles) -> None:
    boot = leaderboard(battles, rounds=1000, seed=0, ci_method="official")
    sandwich = leaderboard(battles, ci_method="sandwich")
    print(f"\n{name}: {len(battles):,} games, {sandwich.clusters} prompts; 95% intervals (score %)")
    print(f"  {'model':<34} {'score':>6} {'bootstrap':>15} {'sandwich':>15} {'width ratio':>12}")
    rows = {r.model: r for r in sandwich.rows}
    ratios = []
    for row in boot.rows:
        if row.model == boot.baseline:
            continue
        other = rows[row.model]
        ratio = (other.upper - other.lower) / (row.upper - row.lower)
        ratios.append(ratio)
        print(
            f"  {row.model:<34} {row.score:6.1f} [{row.lower:5.1f}, {row.upper:5.1f}]  [{other.lower:5.1f}, {other.upper:5.1f}] {ratio:11.2f}x"
        )
    print(f"  sandwich / bootstrap width: mean {np.mean(ratios):.2f}x")


def _battles(models: tuple[str, ...], a: np.ndarray, b: np.ndarray, points: np.ndarray, weight: np.ndarray, prompt: np.ndarray,
             style_a: np.ndarray | None = None, style_b: np.ndarray | None = None) -> Battles:  # fmt: skip
    none = np.full(len(a), None, dtype=object)
    return Battles(
        models, a, b, points, weight, prompt.astype(object), none, none, none, style_a, style_b
    )


def correlated_pair(
    first: np.ndarray, fresh: np.ndarray, rho: float, rng: np.random.Generator
) -> np.ndarray:
    """Second-game points of the first game's model: a repeat with probability rho, else fresh."""
    return np.where(rng.random(len(first)) < rho, first, fresh)


def simulate_star(
    rng: np.random.Generator,
    rho: float,
    strong: float = 0.45,
    n_models: int = 10,
    prompts: int = 300,
) -> tuple[Battles, np.ndarray]:
    theta = np.linspace(-1.5, 1.5, n_models)
    model = np.repeat(np.arange(1, n_models + 1), prompts)
    prompt = np.tile(np.arange(prompts), n_models)
    win = 1 / (1 + np.exp(-theta[model - 1]))

    def outcome() -> np.ndarray:
        return np.where(
            rng.random(len(model)) < 0.1, 0.5, (rng.random(len(model)) < win).astype(float)
        )

    first = outcome()
    second = correlated_pair(first, outcome(), rho, rng)
    is_strong = rng.random((2, len(model))) < strong
    weight = np.r_[
        np.where(is_strong[0] & (first != 0.5), 3.0, 1.0),
        np.where(is_strong[1] & (second != 0.5), 3.0, 1.0),
    ]
    # game 1: baseline as a; game 2: model as a
    a, b = np.r_[np.zeros_like(model), model], np.r_[model, np.zeros_like(model)]
    points = np.r_[1 - first, second]
    models = ("base", *(f"m{i}" for i in range(1, n_models + 1)))
    decisive = 0.9 * (1 + 2 * strong)  # expected weight of a decisive game, times its probability
    truth = np.r_[50.0, 100 * (decisive * win[::prompts] + 0.05) / (decisive + 0.1)]
    return _battles(models, a, b, points, weight, np.r_[prompt, prompt]), truth


def simulate_vs(
    rng: np.random.Generator, rho: float, n_models: int = 8, prompts: int = 400
) -> tuple[Battles, np.ndarray]:
    theta = np.linspace(-1.0, 1.0, n_models)
    theta -= theta[0]
    a = rng.integers(0, n_models, prompts)
    b = (a + rng.integers(1, n_models, prompts)) % n_models
    tokens = rng.lognormal(6, 0.5, (2, prompts))
    length = (tokens[0] - tokens[1]) / (tokens[0] + tokens[1])
    # the fit z-scores the feature over the battles; the truth's γ acts on the raw difference
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + 1.5 * length)))
    first = (rng.random(prompts) < p).astype(float)
    second = correlated_pair(first, (rng.random(prompts) < p).astype(float), rho, rng)
    style = np.zeros((2, prompts, 4))
    style[:, :, 0] = tokens
    # game 2 swaps positions: b's answer first
    sa, sb = np.r_[style[0], style[1]], np.r_[style[1], style[0]]
    battles = _battles(tuple(f"m{i}" for i in range(n_models)), np.r_[a, b], np.r_[b, a], np.r_[first, 1 - second],
                       np.ones(2 * prompts), np.r_[np.arange(prompts), np.arange(prompts)], sa, sb)  # fmt: skip
    return battles, 100 / (1 + np.exp(-theta))


def coverage(
    name: str, simulate, reps: int, rho: float, style: tuple[str, ...], rounds: int, seed: int
) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    hits: dict[str, list[float]] = {"official": [], "sandwich": []}
    widths: dict[str, list[float]] = {"official": [], "sandwich": []}
    seconds = {"official": 0.0, "sandwich": 0.0}
    for rep in range(reps):
        battles, truth = simulate(rng, rho)
        for method in hits:
            start = time.perf_counter()
            table: Leaderboard = leaderboard(
                battles,
                baseline=battles.models[0],
                style=style,
                rounds=rounds,
                seed=rep,
                ci_method=method,
            )
            seconds[method] += time.perf_counter() - start
            for row in table.rows:
                if row.model == table.baseline:
                    continue
                t = truth[battles.models.index(row.model)]
                hits[method].append(float(row.lower <= t <= row.upper))
                widths[method].append(row.upper - row.lower)
    n = len(hits["sandwich"])
    line = ", ".join(
        f"{m} {100 * np.mean(hits[m]):.1f}% ± {100 * 1.96 * np.sqrt(np.mean(hits[m]) * (1 - np.mean(hits[m])) / n):.1f} "
        f"(width {np.mean(widths[m]):.2f} pp, {1000 * seconds[m] / reps:.0f} ms/table)"
        for m in hits
    )
    print(f"  {name}, ρ = {rho}: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=300, help="simulated data sets per scenario")
    parser.add_argument(
        "--rounds", type=int, default=200, help="bootstrap rounds in the coverage study"
    )
    args = parser.parse_args()

    compare_widths(
        "shared battle file (real, lmarena)",
        read_battles_jsonl(DATA / "battles" / "lmarena_74e8b6f_arena_hard_battles.jsonl"),
    )
    compare_widths(
        "real arena-hard v0.1 judgments (5 models, partial prompt sets)",
        from_games(real_judgment_games()),
    )
    star, _ = simulate_star(np.random.default_rng(0), rho=0.5)
    compare_widths("simulated star, ρ = 0.5", star)

    print(
        f"\ncoverage of nominal 95% intervals ({args.reps} simulated data sets each; ± is the 95% Monte Carlo margin)"
    )
    coverage(
        "star, no strong verdicts (control: games independent)",
        lambda r, rho: simulate_star(r, rho, strong=0.0),
        args.reps,
        0.0,
        (),
        args.rounds,
        1,
    )
    for rho in (0.0, 0.5):
        coverage(
            "star, 10 models × 300 prompts × 2 games",
            simulate_star,
            args.reps,
            rho,
            (),
            args.rounds,
            1,
        )
    for rho in (0.0, 0.5):
        coverage(
            "model-vs-model + style control, 8 models, 400 prompts × 2 games",
            simulate_vs,
            args.reps // 2,
            rho,
            LENGTH,
            args.rounds // 2,
            2,
        )


if __name__ == "__main__":
    main()
