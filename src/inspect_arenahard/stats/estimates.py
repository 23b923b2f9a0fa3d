"""Leaderboard rows from battles: Bradley–Terry (Arena-Hard v0.1) or mean score (v2.0), with CIs.

Scores are percentages against the baseline (the baseline itself is 50): for ``bt`` the fitted
win-rate against it, for ``mean`` the model's mean battle score. Rows also carry the battles used
(``n``), the mean answer length and the games excluded, by why (``Exclusions``).

By default every choice that changes the numbers follows the official code of the version that
produced the battles (``official_rules``), so tables compare with published leaderboards:

* unparsed games: the July-2024 v0.1 code drops only the unparsed game (``game``); the 2025 v2.0
  code drops both games of a judgment when either is unparsed (``pair``), so every judgment that
  counts has been seen once in each position and position bias cannot tilt the score;
* style anchor: the official code reports style-controlled scores at the pool's mean style
  difference (``official``); ``equal`` reports them at equal style (see ``style_control``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from itertools import product
from typing import Any

import numpy as np
from scipy.special import logit

from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.bootstrap import bootstrap_fits, percentile_interval
from inspect_arenahard.stats.bt import Design, fit, one_blas_thread, win_rate
from inspect_arenahard.stats.name_codes import cluster_index
from inspect_arenahard.stats.rank_options import (  # the options' vocabularies, re-exported
    CI_METHODS,
    METHODS,
    REFITS,
    UNPARSED_RULES,
    Method,
    Unparsed,
)
from inspect_arenahard.stats.rank_options import (
    CIMethod as CIMethod,
)
from inspect_arenahard.stats.sandwich import (
    cluster_robust_covariance,
    cluster_robust_mean_covariance,
    wald_interval,
    win_rate_interval,
)
from inspect_arenahard.stats.style_control import (
    ANCHORS,
    Anchor,
    at_official_anchor,
    mean_style_difference,
    official_anchor_covariance,
    style_matrix,
)
from inspect_arenahard.stats.style_refit import one_step

OFFICIAL_WARNING = (
    "official: ignores prompt pairing and counts a strong verdict's x3 rows as independent games, "
    "so it is too narrow"
)


@dataclass(frozen=True)
class Rules:
    """How battles become scores; ``official_rules`` gives a version's published choices."""

    method: Method
    unparsed: Unparsed
    style_anchor: Anchor


OFFICIAL: dict[str | None, Rules] = {
    "v0.1": Rules("bt", "game", "official"),
    "v2.0": Rules("mean", "pair", "official"),
}
"""Per version, the rules of its official scoring code (v0.1: July 2024; v2.0: 2025). Runs of
``custom`` data, battle files and logs without a version follow v0.1, whose judge protocol they use."""


def official_rules(version: str | None) -> Rules:
    """The rules of ``version``'s official scoring code (v0.1's for any other version)."""
    return OFFICIAL.get(version, OFFICIAL["v0.1"])


_CHOICES: dict[str, tuple[str, ...]] = {
    "method": METHODS,
    "unparsed": UNPARSED_RULES,
    "style_anchor": ANCHORS,
}


def resolve_rules(
    battles: Battles,
    method: str | None,
    unparsed: str | None,
    style_anchor: str | None,
    style: bool,
) -> Rules:
    """The rules to apply: each one given, else the official choice of the battles' version.

    Battles from versions whose official rules differ need the choice made explicitly, but only
    where it changes the numbers (the unparsed rule with unparsed games, the anchor with style
    control, the method without it: style control is always Bradley–Terry).
    """
    versions = battles.values("version")
    needed = {"method": not style, "unparsed": bool(np.any(~battles.parsed)), "style_anchor": style}
    resolved = {}
    for name, value in {
        "method": method,
        "unparsed": unparsed,
        "style_anchor": style_anchor,
    }.items():
        flag, label = "--" + name.replace("_", "-"), name.replace("_", " ")
        if value is None:
            options = sorted({getattr(official_rules(v), name) for v in versions})
            if len(options) > 1 and needed[name]:
                raise ValueError(
                    f"the battles come from versions {', '.join(sorted(map(str, versions)))}, whose official {label} "
                    f"rules differ ({' vs '.join(options)}); choose one with {flag}"
                )
            value = "bt" if name == "method" and style else options[0]
        elif value not in _CHOICES[name]:
            raise ValueError(f"unknown {label} {value!r}; choose from {', '.join(_CHOICES[name])}")
        resolved[name] = value
    return Rules(**resolved)  # type: ignore[arg-type]


def exclusion_masks(battles: Battles, left_out: np.ndarray) -> dict[str, np.ndarray]:
    """The rows ``left_out`` split by why, in ``Exclusions``' field order: unparsed games,
    parsed partners the pair rule dropped with them, and games of a model against itself."""
    own = battles.a == battles.b
    parsed = battles.parsed
    return {"unparsed": ~parsed & ~own, "partners": left_out & parsed, "self_games": left_out & own}


def left_out_games(battles: Battles, rule: Unparsed) -> np.ndarray:
    """Mask of the rows left out: unparsed games, and under ``pair`` every game of a judgment
    (question, epoch, judge, model pair) with an unparsed game."""
    unparsed = ~battles.parsed
    if rule == "game" or not unparsed.any():
        return unparsed
    if rule != "pair":
        raise ValueError(f"unknown unparsed rule {rule!r}; choose from {', '.join(UNPARSED_RULES)}")
    keys = [cluster_index(col) for col in (battles.question_clusters(), battles.judge)]
    epoch = np.zeros(len(battles), dtype=np.int64) if battles.epoch is None else battles.epoch
    low, high = np.minimum(battles.a, battles.b), np.maximum(battles.a, battles.b)
    _, judgment = np.unique(np.column_stack([*keys, epoch, low, high]), axis=0, return_inverse=True)
    judgment = judgment.ravel()
    spoiled = np.bincount(judgment, weights=unparsed, minlength=judgment.max() + 1) > 0
    return spoiled[judgment]


@dataclass(frozen=True)
class Exclusions:
    """Games a ranking left out, by why: an unparsed verdict, the parsed partner of an unparsed
    game (the pair rule drops both games of a judgment) or a model against itself (no
    information). Every table and row carries them, so each output can say what it counts."""

    unparsed: int = 0
    partners: int = 0
    self_games: int = 0

    @property
    def total(self) -> int:
        """All games left out."""
        return self.unparsed + self.partners + self.self_games

    def __add__(self, other: Exclusions) -> Exclusions:
        return Exclusions(
            self.unparsed + other.unparsed,
            self.partners + other.partners,
            self.self_games + other.self_games,
        )

    def record(self) -> dict[str, int]:
        """``excluded`` (the total) and its three parts, as JSON/CSV fields."""
        return {
            "excluded": self.total,
            "excluded_unparsed": self.unparsed,
            "excluded_partners": self.partners,
            "excluded_self": self.self_games,
        }

    def describe(self) -> str:
        """``66 games excluded: 34 unparsed, 32 pair-rule partners``; zero parts are left out."""
        parts = [
            f"{n} {label}"
            for n, label in (
                (self.unparsed, "unparsed"),
                (self.partners, "pair-rule partners of unparsed games"),
                (self.self_games, "a model against itself"),
            )
            if n
        ]
        return f"{self.total} games excluded: {', '.join(parts)}"


@dataclass(frozen=True)
class Row:
    """One model's line: ``score``/``lower``/``upper`` in percent against the baseline; ``n`` the
    parsed games it played (a strong verdict counts once here, ``strong_weight`` times in the fit;
    the baseline's ``n`` is all its games); ``exclusions`` its games left out, by why."""

    model: str
    score: float
    lower: float
    upper: float
    n: int
    avg_tokens: float | None
    exclusions: Exclusions = field(default_factory=Exclusions)

    @property
    def excluded(self) -> int:
        """All the model's games left out."""
        return self.exclusions.total

    def record(self) -> dict[str, Any]:
        """The row's fields as a JSON/CSV record, the exclusions as flat ``excluded*`` fields."""
        fields = {k: v for k, v in asdict(self).items() if k != "exclusions"}
        return fields | self.exclusions.record()


@dataclass(frozen=True)
class Coefficient:
    """A style coefficient: log-odds per standard deviation of the feature, with its CI."""

    name: str
    value: float
    lower: float
    upper: float


@dataclass(frozen=True)
class Leaderboard:
    """A ranked table (best first). ``unranked`` maps models with no parsed battle to their
    excluded games; ``degenerate`` says pseudo-ties were needed (see ``bt``); ``judges`` are the
    judges pooled; ``exclusions`` counts the games left out, by why."""

    category: str | None
    baseline: str
    method: str
    rounds: int
    ci: float
    rows: tuple[Row, ...]
    style: tuple[Coefficient, ...] = ()
    unranked: dict[str, int] = field(default_factory=dict)
    degenerate: bool = False
    judges: tuple[str, ...] = ()
    exclusions: Exclusions = field(default_factory=Exclusions)
    bootstrap: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    """Per-model official bootstrap scores (%), one per round (empty for the sandwich)."""
    unparsed_rule: str = "game"
    """``game`` or ``pair`` (see the module docstring): whether partners of unparsed games are
    left out too."""
    style_anchor: str | None = None
    """``official`` or ``equal`` for style-controlled tables (``style_control``), else None."""
    ci_method: str = "sandwich"
    clusters: int = 0
    """Prompts the sandwich covariance treats as independent units (0 for the official bootstrap)."""
    covariance: dict[tuple[str, str], float] = field(default_factory=dict, repr=False)
    """Covariance of two models' scores (%²) under the table's interval method, keyed by both
    orders; the baseline's entries are 0. Power analysis reads its variance from here."""
    one_step: bool = False
    """The official bootstrap's rounds are one-step refits, not exact ones (``style_refits``)."""

    @property
    def excluded_games(self) -> int:
        """All games left out (``exclusions.total``)."""
        return self.exclusions.total

    @property
    def unparsed_games(self) -> int:
        """Games left out for an unparsed verdict (``exclusions.unparsed``)."""
        return self.exclusions.unparsed

    def score_covariance(self, a: str, b: str) -> float:
        """Cov(score_a, score_b) in %², the variance when ``a == b``."""
        return self.covariance.get((a, b), 0.0)

    @property
    def interval(self) -> str:
        """Which interval the table shows, in words (printed with every table)."""
        return interval_label(self.ci_method, self.ci, self.rounds, self.clusters, self.one_step)


def interval_label(
    ci_method: str, ci: float, rounds: int, clusters: int, one_step: bool = False
) -> str:
    """``95% CI: prompt-clustered sandwich over 500 prompts``, or the official bootstrap's label
    with its warning (and, where its rounds are one-step refits, saying so)."""
    pct = f"{ci * 100:g}%"
    if ci_method == "sandwich":
        return f"{pct} CI: prompt-clustered sandwich over {clusters} prompts"
    refits = ", one-step refits (--style-refits exact: exact)" if one_step else ""
    return f"{pct} CI: official row bootstrap, {rounds} rounds{refits} ({OFFICIAL_WARNING})"


def resolve_baseline(battles: Battles, requested: str | None = None) -> str:
    """The baseline: ``requested``, else the one the judge records name, else the model in every
    battle. Model-vs-model battles, where the named baselines are also evaluated players (Auto-Arena
    tournaments), are anchored at the most-played model (ties: first by name), and so are battle
    files with no model in every battle (Chatbot Arena). A hybrid design (one fixed baseline plus
    model-vs-model runs) is anchored at the one named baseline that is never evaluated."""
    played = battles.games_per_model()
    in_rows = set(np.flatnonzero(played).tolist())
    if requested is not None:
        if requested not in battles.models or battles.models.index(requested) not in in_rows:
            raise ValueError(
                f"baseline {requested!r} has no battles here; models: {', '.join(battles.models[i] for i in sorted(in_rows))}"
            )
        return requested
    named = sorted(battles.named("baseline"))
    evaluated = _evaluated(battles) if len(named) > 1 else set()
    if set(named) & evaluated:
        fixed = set(named) - evaluated
        if len(fixed) == 1:  # hybrid: the fixed baseline's runs plus model-vs-model runs
            return fixed.pop()
        # model-vs-model battles (a tournament): every player is someone's "baseline"; anchor the
        # scale at the most-played model so its win-rates are the best determined
        return min(named, key=lambda m: (-played[battles.models.index(m)], m))
    if len(named) > 1:
        raise ValueError(
            f"the battles use several baselines ({', '.join(named)}); choose one with --baseline"
        )
    if named:
        return named[0]
    everywhere = [
        m for i, m in enumerate(battles.models) if len(battles) and played[i] == len(battles)
    ]
    if len(everywhere) == 1:
        return everywhere[0]
    if (
        len(battles) and len(battles.categories()) <= 1
    ):  # a battle file (no named baselines) such as Chatbot Arena's
        return min(
            (m for i, m in enumerate(battles.models) if played[i]),
            key=lambda m: (-played[battles.models.index(m)], m),
        )
    raise ValueError("cannot tell which model is the baseline; name it with --baseline")


def _evaluated(battles: Battles) -> set[str]:
    """Models that appear as the evaluated side (not the row's named baseline) of some battle."""
    sides = np.where(
        np.array([battles.models[i] for i in battles.a], dtype=object) == battles.baseline,
        battles.b,
        battles.a,
    )
    return {battles.models[i] for i in np.unique(sides)}


@dataclass(frozen=True)
class Interval:
    """How to compute intervals: ``ci_method`` at level ``ci``; ``rounds`` and ``rng`` serve the
    official bootstrap only."""

    ci_method: str
    ci: float
    rounds: int
    rng: np.random.Generator
    refits: str = "auto"
    """Style-controlled bootstrap refits: ``exact``, ``one-step`` or ``auto`` (see
    ``inspect_arenahard.stats.style_refit.one_step``)."""


@dataclass(frozen=True)
class Estimate:
    """One method's scores (%) per ranked model with their interval and covariance: the one
    result type of ``bt_estimate`` and ``mean_estimate``."""

    score: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    covariance: np.ndarray
    samples: np.ndarray
    """Official bootstrap scores (rounds × models); empty for the sandwich."""
    clusters: int = 0
    coefficients: tuple[Coefficient, ...] = ()
    degenerate: bool = False
    one_step: bool = False
    """The official bootstrap's rounds are one-step refits (style control at scale)."""


def bt_estimate(
    data: Battles,
    anchor: int,
    interval: Interval,
    style: tuple[str, ...] = (),
    style_anchor: str = "official",
) -> Estimate:
    """Bradley–Terry win-rates against ``anchor`` from counted battles (every model plays),
    optionally style-controlled (``style``)."""
    features = style_matrix(data.style_a, data.style_b, data.weight, style) if style else None
    design = Design.build(data.models, data.a, data.b, data.points, data.weight, features=features)
    with one_blas_thread():  # a (models + features)² system: threads only contend
        full = fit(design, anchor)
    mu = (
        mean_style_difference(features, data.a, data.b, data.weight, anchor)
        if features is not None and style_anchor == "official"
        else np.zeros(len(style))
    )
    theta = at_official_anchor(full.theta, full.gamma, mu, anchor) if style else full.theta
    score = 100 * win_rate(theta)
    if interval.ci_method == "sandwich":
        sandwich = cluster_robust_covariance(
            data.a, data.b, data.points, data.weight, data.question_clusters(), full.theta, full.gamma,
            features, anchor,
        )  # fmt: skip
        theta_cov = official_anchor_covariance(sandwich.covariance, mu, anchor)
        lower, upper = win_rate_interval(theta, np.sqrt(np.diag(theta_cov)), interval.ci)
        slope = score * (1 - score / 100)  # d score / d θ, in %
        covariance = slope[:, None] * theta_cov * slope[None, :]
        g_low, g_up = wald_interval(
            full.gamma, sandwich.standard_errors()[len(theta) :], interval.ci
        )
        samples, clusters = np.zeros((0, len(theta))), sandwich.clusters
    else:
        thetas, gammas = bootstrap_fits(
            design, anchor, interval.rounds, interval.rng, full, refits=interval.refits
        )
        if style:
            thetas = at_official_anchor(thetas, gammas, mu, anchor)
        samples, clusters = 100 * win_rate(thetas), 0
        (lower, upper), (g_low, g_up) = (
            percentile_interval(samples, interval.ci),
            percentile_interval(gammas, interval.ci),
        )
        covariance = sample_covariance(samples)
    coefficients = tuple(
        Coefficient(n, float(v), float(lo), float(hi))
        for n, v, lo, hi in zip(style, full.gamma, g_low, g_up)
    )
    return Estimate(
        score=score, lower=lower, upper=upper, covariance=covariance, samples=samples,
        clusters=clusters, coefficients=coefficients, degenerate=full.degenerate,
        one_step=interval.ci_method != "sandwich" and one_step(design, interval.refits),
    )  # fmt: skip


def mean_estimate(data: Battles, anchor: int, interval: Interval) -> Estimate:
    """Mean battle score (%) per model from its own side (the anchor fixed at 50).

    With one fixed baseline this is the star-design Bradley–Terry estimate, so its sandwich
    interval is the same logistic Wald interval; the official interval resamples each model's
    expanded battle rows on their own (N_m draws), as Arena-Hard v2.0 does.
    """
    cells, score = _mean_cells(data, anchor)
    if interval.ci_method == "sandwich":
        _, cov_share, clusters = cluster_robust_mean_covariance(
            len(data.models), data.a, data.b, data.points, data.weight, data.question_clusters(), anchor
        )  # fmt: skip
        p = score / 100
        with np.errstate(invalid="ignore", divide="ignore"):
            se_logit = np.where((p > 0) & (p < 1), np.sqrt(np.diag(cov_share)) / (p * (1 - p)), 0.0)
            lower, upper = win_rate_interval(logit(p), se_logit, interval.ci)
        return Estimate(
            score=score, lower=lower, upper=upper, covariance=1e4 * cov_share,
            samples=np.zeros((0, len(score))), clusters=clusters,
        )  # fmt: skip
    samples = _mean_bootstrap(cells, anchor, interval.rounds, interval.rng)
    lower, upper = percentile_interval(samples, interval.ci)
    return Estimate(
        score=score,
        lower=lower,
        upper=upper,
        covariance=sample_covariance(samples),
        samples=samples,
    )


def sample_covariance(samples: np.ndarray) -> np.ndarray:
    """Covariance of bootstrap scores (rounds with a NaN left out)."""
    kept = samples[~np.isnan(samples).any(axis=1)]
    m = samples.shape[1]
    if len(kept) < 2:
        return np.zeros((m, m))
    with one_blas_thread():  # (1000 × 200 rounds: 2 ms; waking BLAS threads costs 10-50 ms)
        return np.atleast_2d(np.cov(kept, rowvar=False))


def leaderboard(
    battles: Battles,
    baseline: str | None = None,
    method: Method | None = None,
    style: tuple[str, ...] = (),
    rounds: int = 100,
    seed: int | None = None,
    ci: float = 0.95,
    category: str | None = None,
    unparsed: Unparsed | None = None,
    style_anchor: Anchor | None = None,
    ci_method: str = "sandwich",
    style_refits: str = "auto",
) -> Leaderboard:
    """Rank every model with at least one counted battle; ``style`` names style-control features.

    ``method``, ``unparsed`` and ``style_anchor`` default to the official rules of the battles'
    version (``resolve_rules``). ``ci_method`` is ``sandwich`` (prompt-clustered, the default;
    ``rounds`` and ``seed`` unused) or ``official`` (the published row bootstrap, whose
    style-controlled rounds are exact or one-step refits by ``style_refits``).
    """
    rules = resolve_rules(battles, method, unparsed, style_anchor, bool(style))
    if ci_method not in CI_METHODS:
        raise ValueError(f"unknown CI method {ci_method!r}; choose from {', '.join(CI_METHODS)}")
    if style and rules.method != "bt":
        raise ValueError("style control applies to the Bradley–Terry method (--method bt)")
    if rounds < 1:
        raise ValueError(f"bootstrap rounds must be at least 1, got {rounds}")
    base = resolve_baseline(battles, baseline)
    left_out = left_out_games(battles, rules.unparsed)
    counted = ~left_out
    games = battles.games_per_model(counted)
    why = exclusion_masks(battles, left_out)
    excluded = {k: battles.games_per_model(mask) for k, mask in why.items()}
    per_model = [
        Exclusions(*(int(excluded[k][i]) for k in why)) for i in range(len(battles.models))
    ]
    ranked = np.flatnonzero(games > 0)
    used = battles.select(counted)
    remap = np.full(len(battles.models), -1)
    remap[ranked] = np.arange(len(ranked))
    models = tuple(battles.models[i] for i in ranked)
    if base not in models:
        raise ValueError(f"baseline {base!r} has no parsed battles")
    if len(ranked) == len(battles.models):  # every model ranked: the codes stay as they are
        data = replace(used, models=models)
    else:
        data = replace(used, models=models, a=remap[used.a], b=remap[used.b])
    anchor = models.index(base)
    if style_refits not in REFITS:
        raise ValueError(f"unknown refits {style_refits!r}; choose from {', '.join(REFITS)}")
    interval = Interval(ci_method, ci, rounds, np.random.default_rng(seed), style_refits)
    estimate = (
        bt_estimate(data, anchor, interval, style, rules.style_anchor)
        if rules.method == "bt"
        else mean_estimate(data, anchor, interval)
    )
    tokens = battles.avg_tokens()
    rows = [
        Row(
            model=battles.models[i],
            score=float(estimate.score[j]),
            lower=float(estimate.lower[j]),
            upper=float(estimate.upper[j]),
            n=int(games[i]),
            avg_tokens=None if np.isnan(tokens[i]) else float(tokens[i]),
            exclusions=per_model[i],
        )
        for j, i in enumerate(ranked)
    ]
    rows.sort(key=lambda r: (-r.score, r.model))
    unranked = {
        m: per_model[i].total
        for i, m in enumerate(battles.models)
        if games[i] == 0 and per_model[i].total > 0
    }
    return Leaderboard(
        category=category,
        baseline=base,
        method=rules.method,
        rounds=rounds if ci_method == "official" else 0,
        ci=ci,
        rows=tuple(rows),
        style=estimate.coefficients,
        unranked=unranked,
        degenerate=estimate.degenerate,
        judges=tuple(sorted(battles.named("judge"))),
        exclusions=Exclusions(*(int(np.sum(mask)) for mask in why.values())),
        bootstrap={m: estimate.samples[:, j] for j, m in enumerate(models)}
        if len(estimate.samples)
        else {},
        unparsed_rule=rules.unparsed,
        style_anchor=rules.style_anchor if style else None,
        ci_method=ci_method,
        clusters=estimate.clusters,
        one_step=estimate.one_step,
        covariance=dict(zip(product(models, models), estimate.covariance.ravel().tolist())),
    )


def _mean_cells(data: Battles, anchor: int) -> tuple[np.ndarray, np.ndarray]:
    """Each model's weighted battles by its own points (loss, tie, win), and its mean score (%);
    the anchor is fixed at 50."""
    m, a, b, points, weight = len(data.models), data.a, data.b, data.points, data.weight
    side_points = np.r_[points, 1.0 - points]
    cell = np.r_[a, b] * 3 + np.rint(side_points * 2).astype(np.int64)
    cells = np.bincount(cell, weights=np.r_[weight, weight], minlength=3 * m).reshape(m, 3)
    score = 100 * (cells @ MEAN_VALUES) / cells.sum(axis=1)
    score[anchor] = 50.0
    return cells, score


MEAN_VALUES = np.array([0.0, 0.5, 1.0])
"""Points of the loss, tie and win cells of ``_mean_cells``."""


def _mean_bootstrap(
    cells: np.ndarray, anchor: int, rounds: int, rng: np.random.Generator
) -> np.ndarray:
    """The official bootstrap of the mean scores (rounds × models): each model's expanded battle
    rows are resampled on their own (N_m draws), as in Arena-Hard v2.0; the anchor stays at 50."""
    totals = cells.sum(axis=1)
    draws = rng.multinomial(
        np.rint(totals).astype(np.int64), cells / totals[:, None], size=(rounds, len(cells))
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        samples = 100 * (draws @ MEAN_VALUES) / draws.sum(axis=2)
    samples[:, anchor] = 50.0
    return samples
