"""Adaptive judging replayed: games used and decisions of ``stop_when=decided`` and
``stop_at_ci=H`` (betting confidence sequence) against the naive rule that stops when a
fixed-sample interval, looked at after every batch of prompts, is narrow or decisive.

The real judgments in ../shared/data cover 65–130 prompts per model, too few for a full run, so
runs are *shaped like the real ones*: for each real judged model, per-prompt points (both games
pooled, strong verdicts weighing 3) are resampled from its real judgments up to 750 prompts (v2.0's
size), ``--replays`` times (``stop_at_ci`` with its bets tuned to the half-width, as the task
does); plus a synthetic sweep of true win-rates 10–90 (per-prompt points
Beta-distributed with the spread of real ones). The true score of a replay is the mean of the
population it is drawn from.

The naive interval is the normal-approximation 95% interval of the mean (what a percentile
bootstrap of the mean gives at these sizes, without its cost), looked at every ``--batch``
prompts from the 10th.

    python benchmarks/bench_adaptive.py [--replays 500] [--batch 10]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from inspect_arenahard.stats.confidence_sequence import BettingCS  # noqa: E402
from inspect_arenahard.stats.verdict_points import (  # noqa: E402
    STRONG_WEIGHT,
    normalize_label,
    weighted_points,
)

JUDGMENTS = ROOT.parent / "shared" / "data" / "arena-hard-v0.1" / "model_judgment"
PROMPTS = 750
ALPHA = 0.05
Z = 1.959964


def real_populations() -> dict[str, np.ndarray]:
    """Per-prompt points of every real judged model (prompts with at least one parsed game)."""
    out = {}
    for path in sorted(JUDGMENTS.glob("*/*.jsonl")):
        values = []
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            points = weight = 0.0
            # game 1 shows the baseline as A (the model is B); game 2 swaps them
            for game, position in zip(record["games"], ("B", "A")):
                label = normalize_label(game.get("score") or "")
                if label is not None:
                    p, w = weighted_points(label, position, STRONG_WEIGHT)
                    points, weight = points + p, weight + w
            if weight:
                values.append(points / weight)
        if len(values) >= 30:
            out[f"{path.parent.name}/{path.stem}"] = np.array(values)
    return out


def synthetic(mean: float, spread: float, rng: np.random.Generator) -> np.ndarray:
    """A large population of Beta-distributed per-prompt points with this mean and sd (capped
    where a Beta of this mean cannot spread so far)."""
    spread = min(spread, 0.8 * math.sqrt(mean * (1 - mean)))
    k = mean * (1 - mean) / spread**2 - 1
    return rng.beta(mean * k, (1 - mean) * k, size=20000)


def cs_bounds(x: np.ndarray, grid: int, target: float | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The betting CS after each prompt of every replay (bets tuned to ``target`` when given)."""
    cs = BettingCS(ALPHA, grid=grid, shape=(x.shape[1],), target=target)
    lower, upper = np.empty_like(x), np.empty_like(x)
    for t in range(PROMPTS):
        cs.update(x[t])
        lower[t], upper[t] = cs.lower, cs.upper
    return lower, upper


def paths(population: np.ndarray, replays: int, rng: np.random.Generator, grid: int):  # type: ignore[no-untyped-def]
    """Points, CS bounds (untuned bets, as ``stop_when=decided`` uses) and naive bounds after
    each prompt, for every replay (rows: prompts)."""
    x = rng.choice(population, size=(PROMPTS, replays))
    lower, upper = cs_bounds(x, grid)
    n = np.arange(1, PROMPTS + 1)[:, None]
    mean = np.cumsum(x, axis=0) / n
    var = np.maximum(np.cumsum(x**2, axis=0) / n - mean**2, 0) * n / np.maximum(n - 1, 1)
    half = Z * np.sqrt(var / n)
    return x, (lower, upper), (mean - half, mean + half)


def first_stop(stop: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """Prompts used: the first look where ``stop`` holds, else all (per replay)."""
    stop = stop & looks[:, None]
    stop[-1] = True
    return np.argmax(stop, axis=0) + 1


def evaluate(name: str, population: np.ndarray, args: argparse.Namespace, rng: np.random.Generator) -> list[str]:  # fmt: skip
    mu, sd = float(population.mean()), float(population.std())
    x, (lo, hi), (nlo, nhi) = paths(population, args.replays, rng, args.grid)
    every = np.ones(PROMPTS, bool)
    batched = np.zeros(PROMPTS, bool)
    batched[9 :: args.batch] = True
    idx = np.arange(args.replays)
    rows = []
    for d in (5, 10, 20):
        for sign in (-1, 1):
            ref = mu + sign * d / 100
            if not 0 < ref < 1:
                continue
            for rule, (a, b), looks in (("ours", (lo, hi), every), ("naive", (nlo, nhi), batched)):
                used = first_stop((a > ref) | (b < ref), looks)
                at = used - 1
                decided = (a[at, idx] > ref) | (b[at, idx] < ref)
                wrong = decided & ((a[at, idx] > ref) != (mu > ref))
                rows.append(
                    f"{name:42s} {100 * mu:5.1f} decided vs {100 * ref:5.1f} ({sign * d:+d}) {rule:5s} "
                    f"games {used.mean() / PROMPTS:6.1%} p90 {np.percentile(used, 90) / PROMPTS:6.1%} "
                    f"wrong {wrong.mean():6.2%} undecided {(~decided).mean():6.1%}"
                )
    for h in (2.5, 5.0, 8.0):
        oracle = (Z * sd * 100 / h) ** 2
        tuned = cs_bounds(x, args.grid, target=h / 100)  # stop_at_ci tunes its bets to h
        for rule, (a, b), looks in (("ours", tuned, every), ("naive", (nlo, nhi), batched)):
            used = first_stop((b - a) * 50 <= h, looks)
            at = used - 1
            covered = (a[at, idx] <= mu) & (mu <= b[at, idx])
            reached = ((b[at, idx] - a[at, idx]) * 50 <= h).mean()
            rows.append(
                f"{name:42s} {100 * mu:5.1f} stop_at_ci={h:<4g}           {rule:5s} "
                f"games {used.mean() / PROMPTS:6.1%} vs oracle n={oracle:5.0f}: {used.mean() / oracle:5.2f}x "
                f"coverage {covered.mean():6.1%} reached {reached:6.1%}"
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replays", type=int, default=500)
    parser.add_argument("--batch", type=int, default=10, help="naive rule: prompts between looks")
    parser.add_argument("--grid", type=int, default=400, help="candidate means of the betting CS")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    populations = real_populations()
    spread = float(np.mean([p.std() for p in populations.values()]))
    for mean in (0.1, 0.3, 0.5, 0.7, 0.9):
        populations[f"synthetic mean {mean:.0%} (sd {spread:.2f})"] = synthetic(mean, spread, rng)
    print(
        f"{args.replays} replays of {PROMPTS} prompts per population; 95% level; naive looks "
        f"every {args.batch} prompts; betting CS grid {args.grid}"
    )
    for name, population in populations.items():
        for row in evaluate(name, population, args, rng):
            print(row)
    print(f"elapsed {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
