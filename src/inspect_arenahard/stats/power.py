"""How many prompts a benchmark needs to tell two models apart, from the variance of its intervals.

Power reads the same variance as the leaderboard intervals (``stats.ranking``: prompt-clustered
by default), so "pairs separated" here is exactly what the printed intervals show. A model's
score S_m over n_m prompts has variance Var S_m; σ_m = √(n_m Var S_m) is the spread of one
prompt's contribution, and with n prompts the standard error is σ_m/√n. Two criteria:

* ``ci_overlap``: the two models' intervals do not overlap (the separability criterion of the
  Arena-Hard paper): Δ > z(σ_a + σ_b)/√n;
* ``paired``: a two-sided z-test on the difference, which uses that both models answer the
  same prompts: Var(S_a − S_b) = Var S_a + Var S_b − 2 Cov(S_a, S_b), σ_d = √(n Var(S_a − S_b)),
  and Δ > z·σ_d/√n.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from inspect_arenahard.stats.estimates import Leaderboard
from inspect_arenahard.stats.quality import DEFAULT_CI, z_value
from inspect_arenahard.stats.ranking import RankingOptions, rank


def prompts_needed(sigma_a: float, sigma_b: float, delta: float, ci: float = DEFAULT_CI) -> int:
    """Smallest n for which two models ``delta`` apart have non-overlapping ``ci`` intervals."""
    return _needed(z_value(ci) * (sigma_a + sigma_b), delta)


def prompts_needed_paired(sigma_diff: float, delta: float, ci: float = DEFAULT_CI) -> int:
    """Smallest n for which a paired z-test separates two models ``delta`` apart."""
    return _needed(z_value(ci) * sigma_diff, delta)


def _needed(spread: float, delta: float) -> int:
    if delta <= 0:
        raise ValueError(f"delta must be positive, got {delta}")
    return max(1, math.ceil((spread / delta) ** 2 - 1e-9))


@dataclass(frozen=True)
class ModelSpread:
    """One model's score, its standard error and the per-prompt spread it implies."""

    model: str
    n_prompts: int
    mean: float
    se: float
    sd: float


@dataclass(frozen=True)
class PowerReport:
    """Per-model spread, prompts needed for ``delta`` under both criteria, and how many of the
    current pairs are already separated; ``interval`` says which variance it used."""

    delta: float
    ci: float
    interval: str
    models: list[ModelSpread]
    typical_sd: float
    typical_sd_diff: float
    n_prompts: int
    prompts_needed_ci_overlap: int | None
    """None without a measured model (e.g. games on a single prompt: no prompt-clustered variance)."""
    prompts_needed_paired: int | None
    """None without a pair of models (nothing to pair)."""
    min_delta_ci_overlap: float
    min_delta_paired: float
    n_pairs: int
    pairs_separated_ci_overlap: int
    pairs_separated_paired: int

    def to_dict(self) -> dict[str, Any]:
        """As a dict, for the JSON outputs."""
        return asdict(self)


def _rms(values: list[float]) -> float:
    return float(np.sqrt(np.mean(np.square(values)))) if values else math.nan


def power_analysis(
    table: Leaderboard, prompts: Mapping[str, set[Any]], delta: float
) -> PowerReport:
    """Power from a table's score covariance; ``prompts[model]`` are the prompts it was scored
    on. Anchors (zero variance: the baseline) are left out: they are not measured (with none
    measured, the figures are NaN/None rather than an error, so a report still renders). "Typical"
    spreads are root-mean-squares over models (σ) and model pairs (σ_d); n is the median
    prompt count."""
    if delta <= 0:
        raise ValueError(f"delta must be positive, got {delta}")
    z = z_value(table.ci)
    rows = {r.model: r for r in table.rows if table.score_covariance(r.model, r.model) > 0}
    spreads = []
    for model in sorted(rows):
        n = len(prompts.get(model, ()))
        se = math.sqrt(table.score_covariance(model, model))
        spreads.append(ModelSpread(model, n, rows[model].score, se, se * math.sqrt(n)))
    sd_diffs, sep_ci, sep_paired = [], 0, 0
    for a, b in itertools.combinations(spreads, 2):
        ra, rb = rows[a.model], rows[b.model]
        sep_ci += ra.lower > rb.upper or rb.lower > ra.upper
        var_d = a.se**2 + b.se**2 - 2 * table.score_covariance(a.model, b.model)
        se_d = math.sqrt(max(var_d, 0.0))
        shared = len(prompts.get(a.model, set()) & prompts.get(b.model, set()))
        sd_diffs.append(se_d * math.sqrt(shared))
        sep_paired += abs(a.mean - b.mean) > z * se_d
    typical_sd = _rms([s.sd for s in spreads])
    typical_sd_diff = _rms(sd_diffs)
    n = int(np.median([s.n_prompts for s in spreads])) if spreads else 0
    return PowerReport(
        delta=delta,
        ci=table.ci,
        interval=table.interval,
        models=spreads,
        typical_sd=typical_sd,
        typical_sd_diff=typical_sd_diff,
        n_prompts=n,
        prompts_needed_ci_overlap=prompts_needed(typical_sd, typical_sd, delta, table.ci)
        if spreads
        else None,
        prompts_needed_paired=prompts_needed_paired(typical_sd_diff, delta, table.ci)
        if sd_diffs
        else None,
        min_delta_ci_overlap=2 * z * typical_sd / math.sqrt(n) if n else math.nan,
        min_delta_paired=z * typical_sd_diff / math.sqrt(n) if n and sd_diffs else math.nan,
        n_pairs=len(spreads) * (len(spreads) - 1) // 2,
        pairs_separated_ci_overlap=int(sep_ci),
        pairs_separated_paired=int(sep_paired),
    )


def power_per_judge(
    records: Iterable[Mapping[str, Any]], options: RankingOptions, delta: float
) -> dict[str, PowerReport]:
    """``power_analysis`` of each judge's overall table (``rank`` with ``options``), judges
    in name order: a judge's verdicts are the measurement, so their variances are not pooled."""
    records = list(records)
    judges = sorted({str(r["judge"]) for r in records if r.get("judge") is not None})
    out = {}
    for judge in judges:
        if options.judge and judge not in options.judge:
            continue
        ranking = rank(records, replace(options, judge=[judge]))
        parsed = ranking.battles.select(ranking.battles.parsed)
        prompts: dict[str, set[Any]] = {}
        for side in (parsed.a, parsed.b):
            for model, question in zip(side, parsed.question_id):
                prompts.setdefault(parsed.models[model], set()).add(question)
        out[judge] = power_analysis(ranking.overall, prompts, delta)
    return out
