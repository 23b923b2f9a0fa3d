"""Coverage of every interval the leaderboard prints, simulated with a known truth.

For each design and prompt effect τ ∈ {0, 0.5, 1} it simulates ``--reps`` benchmarks, ranks each
with the project's own code (``stats.ranking.rank``: the default prompt-clustered ``sandwich``
interval and the ``official`` row bootstrap beside it) and prints, per method and interval, the
share of (replication, model) intervals that contain the true score, and their mean half-width.
Target: every default interval covers 93–97% at 95%.

Verdicts follow an ordinal logistic model of the five Arena-Hard labels: the model's latent
advantage in a game is θ_m + u + ε, with u ~ N(0, τ²) a prompt effect shared by the games of one
(prompt, model) and ε logistic per game; cut points ±0.22 and ±1.55 give ~11% ties and ~35%
strong verdicts (weighing 3) near θ = 0. The truth is the estimand's population value (the limit
of the estimator as prompts → ∞), computed by Gauss–Hermite quadrature over u (and, for style
control, a large sample of length differences), never from the simulated data.

Designs:

* ``star`` (Arena-Hard v0.1): 1 baseline + 8 models, 500 prompts, 2 position-swapped games per
  prompt, 2% unparsed verdicts; BT (= the mean score: one fixed baseline), mean with the pair and
  the game rule.
* ``v2``: two categories (500 hard prompts against one baseline, 250 creative-writing prompts
  against another, other strengths), the per-category mean scores and the combined v2.0 score.
* ``style``: the star with a length effect: answers' lengths differ per model, the judge adds
  γ·(length difference); style-controlled BT at the equal and the official anchor.
* ``arena`` (Chatbot Arena): 10 models, 4000 battles, each a random pair judged once on its own
  prompt (no clustering, no strong verdicts): the official bootstrap is honest here and must stay so.

    python benchmarks/bench_coverage.py --reps 500            # the full table (see benchmarks/README.md)
    python benchmarks/bench_coverage.py --reps 20 --designs star   # a quick look
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.combined import COMBINED
from inspect_arenahard.stats.ranking import RankingOptions, rank

CUTS = np.array([-1.55, -0.22, 0.22, 1.55])
"""Latent cut points between the labels much worse, worse, tie, better, much better."""
POINTS = np.array([0.0, 0.0, 0.5, 1.0, 1.0])
WEIGHT = np.array([3.0, 1.0, 1.0, 1.0, 3.0])
TAUS = (0.0, 0.5, 1.0)
NODES, NODE_WEIGHTS = np.polynomial.hermite_e.hermegauss(40)
NODE_WEIGHTS = NODE_WEIGHTS / NODE_WEIGHTS.sum()
UNPARSED = 0.02


def label_probabilities(eta: np.ndarray) -> np.ndarray:
    """P(label) for latent advantages ``eta`` (…, 5): the ordinal logistic model."""
    cdf = expit(CUTS - eta[..., None])  # P(latent < cut)
    return np.diff(
        np.concatenate([np.zeros_like(cdf[..., :1]), cdf, np.ones_like(cdf[..., :1])], -1), axis=-1
    )


def expected(eta: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """(E[weight · points], E[weight]) of one game with advantage ``eta`` + u, u ~ N(0, τ²)."""
    probs = np.einsum(
        "...kl,k->...l", label_probabilities(eta[..., None] + tau * NODES), NODE_WEIGHTS
    )
    return probs @ (WEIGHT * POINTS), probs @ WEIGHT


def star_truth(theta: np.ndarray, tau: float) -> np.ndarray:
    """Score (%) of each model: the weighted share of points in the population."""
    won, total = expected(theta, tau)
    return 100 * won / total


def draw_labels(rng: np.random.Generator, eta: np.ndarray) -> np.ndarray:
    """A label index (0 much worse … 4 much better) per latent advantage."""
    latent = eta + rng.logistic(size=eta.shape)
    return np.searchsorted(CUTS, latent)


@dataclass
class Sim:
    """One simulated benchmark's battles plus the truth of each table (category → model → %)."""

    battles: Battles
    truth: dict[str | None, dict[str, float]]


def _battles(models: list[str], a: np.ndarray, b: np.ndarray, label: np.ndarray, question: np.ndarray,
             category: np.ndarray | None = None, baseline: np.ndarray | None = None,
             style: tuple[np.ndarray, np.ndarray] | None = None, unparsed: np.ndarray | None = None) -> Battles:  # fmt: skip
    """Battles with ``a``'s label (index into the five labels) per game, weights from the label."""
    n = len(a)
    points = POINTS[label].copy()
    if unparsed is not None:
        points[unparsed] = np.nan
    obj = lambda values: np.array(values, dtype=object)  # noqa: E731
    return Battles(
        models=tuple(models), a=a, b=b, points=points, weight=np.where(np.isnan(points), 1.0, WEIGHT[label]),
        question_id=obj(question), category=obj(category if category is not None else [None] * n),
        judge=obj(["sim"] * n), baseline=obj(baseline if baseline is not None else [None] * n),
        style_a=style[0] if style else None, style_b=style[1] if style else None,
        version=obj(["v0.1"] * n), epoch=np.ones(n, dtype=np.int64),
    )  # fmt: skip


def star_games(rng: np.random.Generator, theta: np.ndarray, prompts: int, tau: float,
               offset: int = 0, extra: np.ndarray | None = None) -> dict[str, np.ndarray]:  # fmt: skip
    """Two swapped games per (prompt, model) against the baseline (index 0); labels from the
    model's side turned into ``a``'s side. ``extra``: a per-game latent shift (style)."""
    m = len(theta)
    model = np.tile(np.repeat(np.arange(1, m + 1), 2), prompts)
    question = np.repeat(np.arange(prompts) + offset, 2 * m)
    u = tau * rng.standard_normal((prompts, m))
    eta = theta[model - 1] + u[question - offset, model - 1] + (0 if extra is None else extra)
    label = draw_labels(rng, eta)  # from the model's side
    model_is_a = np.tile([True, False], prompts * m)  # game 1: model shown first
    a = np.where(model_is_a, model, 0)
    b = np.where(model_is_a, 0, model)
    return {"a": a, "b": b, "label": np.where(model_is_a, label, 4 - label), "question": question,
            "unparsed": rng.random(len(a)) < UNPARSED}  # fmt: skip


def star(rng: np.random.Generator, tau: float) -> Sim:
    theta = np.linspace(-1.2, 1.2, 8)
    g = star_games(rng, theta, 500, tau)
    models = ["base", *(f"m{i}" for i in range(8))]
    battles = _battles(models, g["a"], g["b"], g["label"], g["question"], unparsed=g["unparsed"])
    truth = dict(zip(models[1:], star_truth(theta, tau)))
    return Sim(battles, {None: truth | {"base": 50.0}})


V2_PROMPTS = {"hard_prompt": 500, "creative_writing": 250}


def v2(rng: np.random.Generator, tau: float) -> Sim:
    """Two categories with their own baselines (hard: base_h, creative: base_c) and strengths."""
    models = ["base_c", "base_h", *(f"m{i}" for i in range(8))]
    thetas = {
        "hard_prompt": np.linspace(-1.5, 1.0, 8),
        "creative_writing": np.linspace(1.0, -0.5, 8),
    }
    parts, truth, offset = [], {}, 0
    for category, (baseline, prompts) in zip(thetas, ((1, 500), (0, 250))):
        g = star_games(rng, thetas[category], prompts, tau, offset)
        remap = np.r_[baseline, np.arange(2, 10)]
        g["a"], g["b"] = remap[g["a"]], remap[g["b"]]
        g["category"] = np.full(len(g["a"]), category, dtype=object)
        g["baseline"] = np.full(len(g["a"]), models[baseline], dtype=object)
        parts.append(g)
        truth[category] = dict(zip(models[2:], star_truth(thetas[category], tau))) | {
            models[baseline]: 50.0
        }
        offset += prompts
    cat = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    battles = _battles(models, cat["a"], cat["b"], cat["label"], cat["question"], cat["category"],
                       cat["baseline"], unparsed=cat["unparsed"])  # fmt: skip
    share = {c: n / sum(V2_PROMPTS.values()) for c, n in V2_PROMPTS.items()}
    truth[COMBINED] = {m: sum(share[c] * truth[c][m] for c in share) for m in models[2:]}
    return Sim(battles, truth)


STYLE_GAMMA = 1.0
"""Latent advantage per unit of the normalised length difference (L_a − L_b)/(L_a + L_b)."""
STYLE_LOG_LENGTH = np.linspace(-0.2, 1.0, 8)
"""Each model's mean log length relative to the baseline (the baseline's is 0): most models
answer longer, so the official anchor (the pool's mean length difference) differs from equal style."""


def _length_difference(
    rng: np.random.Generator, model: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Token counts of the model's and the baseline's answers, and their normalised difference."""
    own = np.exp(6.5 + STYLE_LOG_LENGTH[model - 1] + 0.4 * rng.standard_normal(len(model)))
    base = np.exp(6.5 + 0.4 * rng.standard_normal(len(model)))
    return np.c_[own, base], (own - base) / (own + base)


def style(rng: np.random.Generator, tau: float, truth: dict[str, dict[str, float]]) -> Sim:
    theta = np.linspace(-1.2, 1.2, 8)
    m, prompts = 8, 500
    model_of_answer = np.tile(np.arange(1, m + 1), prompts)
    lengths, diff = _length_difference(rng, model_of_answer)
    per_game = np.repeat(
        np.arange(prompts * m), 2
    )  # both games of a (prompt, model) see the same answers
    g = star_games(rng, theta, prompts, tau, extra=STYLE_GAMMA * diff[per_game])
    tokens_model, tokens_base = lengths[per_game, 0], lengths[per_game, 1]
    zeros = np.zeros(len(per_game))
    model_style = np.c_[tokens_model, zeros, zeros, zeros]
    base_style = np.c_[tokens_base, zeros, zeros, zeros]
    model_is_a = g["a"] != 0
    style_a = np.where(model_is_a[:, None], model_style, base_style)
    style_b = np.where(model_is_a[:, None], base_style, model_style)
    models = ["base", *(f"m{i}" for i in range(8))]
    battles = _battles(models, g["a"], g["b"], g["label"], g["question"], style=(style_a, style_b),
                       unparsed=g["unparsed"])  # fmt: skip
    return Sim(battles, truth)


def style_truth(tau: float, draws: int = 40000) -> dict[str, dict[str, float]]:
    """Population limits of the weighted style-controlled BT fit: θ*, γ* maximise the expected
    weighted log-likelihood over a large sample of length differences (quadrature over u); the
    equal anchor reports σ(θ*), the official one σ(θ* + γ*·E_w[x])."""
    rng = np.random.default_rng(12345)
    theta = np.linspace(-1.2, 1.2, 8)
    model = np.repeat(np.arange(1, 9), draws)
    _, x = _length_difference(rng, model)
    won, total = expected(theta[model - 1] + STYLE_GAMMA * x, tau)
    lost = total - won

    def loss(params: np.ndarray) -> float:
        eta = params[model - 1] + params[8] * x
        return -float(np.sum(won * log_expit(eta) + lost * log_expit(-eta))) / len(x)

    def grad(params: np.ndarray) -> np.ndarray:
        eta = params[model - 1] + params[8] * x
        r = won - total * expit(eta)
        return -np.r_[np.bincount(model - 1, r, minlength=8), r @ x] / len(x)

    best = minimize(
        loss, np.r_[theta, STYLE_GAMMA], jac=grad, method="BFGS", options={"gtol": 1e-10}
    ).x
    pooled = float(
        total @ x / total.sum()
    )  # the official anchor: μ pooled over every model's battles
    names = [f"m{i}" for i in range(8)]
    return {
        "equal": dict(zip(names, 100 * expit(best[:8]))) | {"base": 50.0},
        "official": dict(zip(names, 100 * expit(best[:8] + best[8] * pooled))) | {"base": 50.0},
    }


ARENA_MODELS = 10


def arena(rng: np.random.Generator, tau: float, truth: dict[str, float]) -> Sim:
    """Chatbot Arena: random pairs, one game per battle and prompt, no strong verdicts."""
    n = 4000
    theta = np.linspace(-1.0, 1.0, ARENA_MODELS)
    a = rng.integers(0, ARENA_MODELS, n)
    b = (a + rng.integers(1, ARENA_MODELS, n)) % ARENA_MODELS
    label = draw_labels(rng, theta[a] - theta[b] + tau * rng.standard_normal(n))
    label = np.select([label == 0, label == 4], [1, 3], label)  # wins and losses weigh 1
    models = [f"p{i}" for i in range(ARENA_MODELS)]
    return Sim(_battles(models, a, b, label, np.arange(n)), {None: truth})


def arena_truth(tau: float) -> dict[str, float]:
    """BT fitted to the expected outcome of every ordered pair (uniform pairs): the population
    limit, as win-rate against p0 (the baseline the ranking is asked for)."""
    theta = np.linspace(-1.0, 1.0, ARENA_MODELS)
    pa, pb = np.meshgrid(np.arange(ARENA_MODELS), np.arange(ARENA_MODELS), indexing="ij")
    keep = pa != pb
    pa, pb = pa[keep], pb[keep]
    probs = np.einsum(
        "...kl,k->...l",
        label_probabilities((theta[pa] - theta[pb])[:, None] + tau * NODES),
        NODE_WEIGHTS,
    )
    points = probs[:, 3:].sum(1) + 0.5 * probs[:, 2]

    def loss(t: np.ndarray) -> float:
        full = np.r_[0.0, t]
        eta = full[pa] - full[pb]
        return -float(np.sum(points * log_expit(eta) + (1 - points) * log_expit(-eta)))

    t = minimize(loss, theta[1:] - theta[0], method="BFGS", options={"gtol": 1e-10}).x
    return dict(zip([f"p{i}" for i in range(ARENA_MODELS)], 100 * expit(np.r_[0.0, t])))


@dataclass(frozen=True)
class Case:
    """One (method, interval) of a design: ranking options and which table's truth it is scored on."""

    method: str
    options: RankingOptions
    truth_key: Callable[[str | None], str | None] = lambda category: category


def cases(design: str, rounds: int) -> Iterator[Case]:
    for ci_method in ("sandwich", "official"):
        base = RankingOptions(ci_method=ci_method, rounds=rounds, seed=None)  # type: ignore[arg-type]
        if design == "star":
            yield Case("BT", _with(base, method="bt", unparsed="game"))
            yield Case("mean, pair rule", _with(base, method="mean", unparsed="pair"))
            yield Case("mean, game rule", _with(base, method="mean", unparsed="game"))
        elif design == "v2":
            yield Case(
                "mean (pair rule): categories + combined",
                _with(base, method="mean", unparsed="pair"),
            )
            yield Case("BT: categories + combined", _with(base, method="bt", unparsed="pair"))
        elif design == "style":
            for anchor in ("equal", "official"):
                yield Case(f"style-controlled BT, {anchor} anchor",
                           _with(base, style_control="length", style_anchor=anchor, unparsed="game"),
                           truth_key=lambda _c, a=anchor: a)  # fmt: skip
        else:
            yield Case("BT", _with(base, method="bt", baseline="p0"))


def _with(options: RankingOptions, **fields: object) -> RankingOptions:
    from dataclasses import replace

    return replace(options, **fields)  # type: ignore[arg-type]


def run(
    design: str, reps: int, rounds: int, seed: int
) -> list[tuple[str, str, float, str, float, float, int]]:
    rows = []
    for tau in TAUS:
        rng = np.random.default_rng([seed, int(tau * 10), hash(design) % 1000])
        fixed: dict[str, dict[str, float]] | dict[str, float] | None = None
        if design == "style":
            fixed = style_truth(tau)
        elif design == "arena":
            fixed = arena_truth(tau)
        hits: dict[tuple[str, str, str], list[float]] = defaultdict(list)
        widths: dict[tuple[str, str, str], list[float]] = defaultdict(list)
        start = time.perf_counter()
        for _ in range(reps):
            if design == "star":
                sim = star(rng, tau)
            elif design == "v2":
                sim = v2(rng, tau)
            elif design == "style":
                sim = style(rng, tau, fixed)  # type: ignore[arg-type]
            else:
                sim = arena(rng, tau, fixed)  # type: ignore[arg-type]
            for case in cases(design, rounds):
                for table in rank(sim.battles, case.options).tables:
                    truth = sim.truth[case.truth_key(table.category)]
                    part = (
                        "combined"
                        if table.category == COMBINED
                        else "per category"
                        if table.category
                        else "all"
                    )
                    key = (case.method, case.options.ci_method, part)
                    for row in table.rows:
                        if row.model == table.baseline or row.upper <= row.lower:
                            continue  # anchors: no uncertainty
                        hits[key].append(float(row.lower <= truth[row.model] <= row.upper))
                        widths[key].append((row.upper - row.lower) / 2)
        seconds = time.perf_counter() - start
        for (method, ci_method, part), h in hits.items():
            rows.append((design, method + ("" if part == "all" else f" [{part}]"), tau, ci_method,
                         100 * float(np.mean(h)), float(np.mean(widths[(method, ci_method, part)])), len(h)))  # fmt: skip
        print(f"  {design} τ={tau}: {reps} replications in {seconds:.0f} s", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--reps", type=int, default=500, help="replications per design and τ (default 500)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=100,
        help="official bootstrap rounds (default 100, as published)",
    )
    parser.add_argument("--designs", default="star,v2,style,arena")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    results = []
    for design in args.designs.split(","):
        results += run(design, args.reps, args.rounds, args.seed)
    print(
        f"\n95% intervals, {args.reps} replications per cell; coverage % (mean half-width, points)"
    )
    print("| design | method [table] | interval | τ = 0 | τ = 0.5 | τ = 1 |")
    print("|---|---|---|---|---|---|")
    keyed: dict[tuple[str, str, str], dict[float, tuple[float, float]]] = defaultdict(dict)
    for design, method, tau, ci_method, coverage, half, _ in results:
        keyed[(design, method, ci_method)][tau] = (coverage, half)
    for (design, method, ci_method), by_tau in keyed.items():
        label = "**sandwich** (default)" if ci_method == "sandwich" else "official (row bootstrap)"
        cells = " | ".join(f"{by_tau[t][0]:.1f}% ({by_tau[t][1]:.2f})" for t in TAUS)
        print(f"| {design} | {method} | {label} | {cells} |")
    defaults = [c for *_, ci_method, c, _, _ in results if ci_method == "sandwich"]
    print(f"\ndefault intervals: coverage {min(defaults):.1f}–{max(defaults):.1f}% (target 93–97%)")


if __name__ == "__main__":
    main()
