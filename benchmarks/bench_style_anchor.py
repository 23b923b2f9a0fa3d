"""Style-control anchors: how much each moves with the pool, and how far 50 L-BFGS steps stop short.

The pool: the 16 real v0.1 answer sets in ../shared/data (15 models + the gpt-4-0314 baseline),
with their real per-answer style metadata, judged by a deterministic synthetic judge (seeded):
P(model beats baseline) = σ(q_m + β·length + 0.5·bold-density difference), q_m the logit of the
model's published v0.1 score, β = 1 and 3, strong verdicts 30%, ties 10%, 1.5% unparsed games.
For style control on length alone and on length + markdown it prints

* pool dependence: both anchors' style-controlled scores (length + markdown) on the full pool and
  after removing the two longest-answer models; the mean and largest move of the 13 models left;
* convergence: the official code fits with torch's L-BFGS (lr 1, at most 50 iterations, no line
  search, coefficients starting at 0.5, the baseline with its own column); that optimizer on the
  same z-scored design, and scipy's L-BFGS run to convergence, against our exact Newton optimum
  (largest score difference, largest gradient component). Needs torch for the first line.

    python benchmarks/bench_style_anchor.py
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.style_control import FEATURES, raw_features

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "arena-hard-v0.1"
BASELINE = "gpt-4-0314"
LABELS = {(True, True): "B>>A", (True, False): "B>A", (False, True): "A>>B", (False, False): "A>B"}


def published() -> dict[str, float]:
    """Published v0.1 scores (%), the 2024-07-31 table and, for models it lacks, the 2025 fork's."""
    scores: dict[str, float] = {}
    for name in (
        "meltemi_arena_hard_leaderboard_20250217.csv",
        "arena_hard_leaderboard_20240731.csv",
    ):
        with (DATA / "leaderboard" / name).open(encoding="utf-8") as handle:
            scores |= {row["model"]: float(row["score"]) for row in csv.DictReader(handle)}
    return scores


def answers(model: str) -> dict[str, dict]:
    with (DATA / "model_answer" / f"{model}.jsonl").open(encoding="utf-8") as handle:
        return {r["question_id"]: r["conv_metadata"] for r in map(json.loads, handle)}


def pool_games(length_effect: float, seed: int = 0) -> list[dict]:
    """Two games per (model, question): game 1 shows the model as B, game 2 as A."""
    rng = np.random.default_rng(seed)
    scores, base = published(), answers(BASELINE)
    games = []
    for path in sorted((DATA / "model_answer").glob("*.jsonl")):
        model = path.stem
        if model == BASELINE:
            continue
        quality = np.log(scores[model] / (100 - scores[model]))
        for qid, meta in answers(model).items():
            style = np.array(
                [
                    [
                        meta["token_len"],
                        *(
                            sum(meta[k].values())
                            for k in ("header_count", "list_count", "bold_count")
                        ),
                    ]
                ],
                float,
            )
            other = np.array(
                [
                    [
                        base[qid]["token_len"],
                        *(
                            sum(base[qid][k].values())
                            for k in ("header_count", "list_count", "bold_count")
                        ),
                    ]
                ],
                float,
            )
            length, bold = raw_features(style, other, ("length", "bold"))[0]
            p_model = 1 / (1 + np.exp(-(quality + length_effect * length + 0.5 * bold)))
            for number, position in ((1, "B"), (2, "A")):
                roll = rng.random()
                if roll < 0.1:
                    label: str | None = "A=B"
                else:
                    model_wins = rng.random() < p_model
                    label = LABELS[(model_wins == (position == "B"), rng.random() < 0.3)]
                if rng.random() < 0.015:
                    label = None
                games.append({
                    "question_id": qid, "model": model, "baseline": BASELINE, "judge": "synthetic", "category": None,
                    "game": number, "model_position": position, "label": label, "version": "v0.1",
                    "style": {"model": meta, "baseline": base[qid]},
                })  # fmt: skip
    return games


def scores(
    games: list[dict], anchor: str, features: tuple[str, ...] = FEATURES
) -> dict[str, float]:
    table = leaderboard(from_games(games), style=features, rounds=1, seed=0, style_anchor=anchor)
    return {r.model: r.score for r in table.rows if r.model != BASELINE}


def pool_dependence(games: list[dict], features: tuple[str, ...], detail: bool) -> None:
    tokens = {
        r.model: r.avg_tokens or 0.0 for r in leaderboard(from_games(games), rounds=1, seed=0).rows
    }
    verbose = sorted((m for m in tokens if m != BASELINE), key=lambda m: -tokens[m])[:2]
    smaller = [g for g in games if g["model"] not in verbose]
    print(f"style control: {', '.join(features)}; pool: {len(tokens) - 1} models + {BASELINE}; removing the two "
          "longest-answer models: " + ", ".join(f"{m} ({tokens[m]:.0f} tokens)" for m in verbose))  # fmt: skip
    if detail:
        print(
            f"{'model':32s} {'official full':>13s} {'without':>8s} {'move':>6s} | {'equal full':>10s} {'without':>8s} {'move':>6s}"
        )
    moves: dict[str, list[float]] = {"official": [], "equal": []}
    full = {a: scores(games, a, features) for a in moves}
    reduced = {a: scores(smaller, a, features) for a in moves}
    for model in sorted(reduced["official"], key=lambda m: -full["official"][m]):
        row = []
        for anchor in moves:
            move = reduced[anchor][model] - full[anchor][model]
            moves[anchor].append(move)
            row.append(f"{full[anchor][model]:13.2f} {reduced[anchor][model]:8.2f} {move:+6.2f}")
        if detail:
            print(f"{model:32s} {row[0]} | {row[1][3:]}")
    for anchor, values in moves.items():
        print(
            f"  {anchor:8s} anchor: mean move {np.mean(values):+.2f} pp, mean |move| {np.mean(np.abs(values)):.2f} pp, "
            f"largest |move| {np.max(np.abs(values)):.2f} pp"
        )


def official_design(games: list[dict]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """One row per parsed game from the model's side (frequency weight 3 for a strong verdict):
    model indicator columns, then the style differences z-scored over the rows (official)."""
    kept = [g for g in games if g["label"] is not None]
    battles = from_games(kept)
    models = sorted({g["model"] for g in kept})
    model_is_a = np.array([g["model_position"] == "A" for g in kept])
    diff = raw_features(battles.style_a, battles.style_b, FEATURES)  # type: ignore[arg-type]
    diff[~model_is_a] *= -1
    y = np.where(model_is_a, battles.points, 1 - battles.points)
    w = battles.weight
    x = np.zeros((len(kept), len(models) + len(FEATURES)))
    x[np.arange(len(kept)), [models.index(g["model"]) for g in kept]] = 1
    mean = np.average(diff, axis=0, weights=w)
    x[:, len(models) :] = (diff - mean) / np.sqrt(np.average((diff - mean) ** 2, axis=0, weights=w))
    return models, x, y, w


def convergence(games: list[dict]) -> None:
    models, x, y, w = official_design(games)
    exact = scores(games, "official")

    def report(label: str, fitted: dict[str, float], gradient: float) -> None:
        gap = max(abs(fitted[m] - exact[m]) for m in models)
        print(
            f"  {label}: largest score difference to our exact fit {gap:.3f} pp, largest gradient component {gradient:.1e}"
        )

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        eta = x @ beta
        return float(w @ (np.logaddexp(0, eta) - y * eta)), x.T @ (w * (1 / (1 + np.exp(-eta)) - y))

    converged = minimize(
        loss,
        np.zeros(x.shape[1]),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100000, "ftol": 1e-15, "gtol": 1e-10},
    )
    report(f"scipy L-BFGS run to convergence ({converged.nit} iterations)",
           {m: 100 / (1 + np.exp(-b)) for m, b in zip(models, converged.x)}, float(np.max(np.abs(converged.jac))))  # fmt: skip
    try:
        import torch
    except ImportError:
        print("  (torch not installed: the official optimizer's 50-step fit is not measured)")
        return
    # the official optimizer settings: torch L-BFGS, lr 1, at most 50 iterations, tolerances 1e-9,
    # no line search, every coefficient starting at 0.5, the baseline with its own column (+1 model, −1 baseline)
    full = np.hstack([x[:, : len(models)], -np.ones((len(x), 1)), x[:, len(models) :]])
    xt, yt, wt = (
        torch.tensor(v, dtype=torch.float32) for v in (full, y, w)
    )  # float32, as the official tensors
    beta = torch.full((full.shape[1],), 0.5, dtype=torch.float32, requires_grad=True)
    optimizer = torch.optim.LBFGS(
        [beta], lr=1.0, max_iter=50, tolerance_grad=1e-9, tolerance_change=1e-9
    )

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        eta = xt @ beta
        value = (wt * (torch.nn.functional.softplus(eta) - yt * eta)).sum()
        value.backward()
        return value

    optimizer.step(closure)
    coef = beta.detach().numpy()
    relative = coef[: len(models)] - coef[len(models)]
    gradient = loss(np.r_[relative, coef[len(models) + 1 :]])[1]
    report("torch L-BFGS with the official settings (50 iterations)",
           {m: 100 / (1 + np.exp(-b)) for m, b in zip(models, relative)}, float(np.max(np.abs(gradient))))  # fmt: skip


def main() -> None:
    for length_effect in (1.0, 3.0):
        games = pool_games(length_effect)
        print(f"judge: length effect {length_effect} log-odds per unit of (L_m − L_b)/(L_m + L_b); "
              f"{len(games)} games, {sum(g['label'] is None for g in games)} unparsed")  # fmt: skip
        pool_dependence(games, ("length",), detail=False)
        pool_dependence(games, FEATURES, detail=length_effect == 1.0)
        convergence(games)
        print()


if __name__ == "__main__":
    main()
