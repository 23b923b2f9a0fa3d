"""One score across categories: the prompt-weighted average of per-category scores, each against
that category's own baseline (Arena-Hard v2.0: o3-mini for hard prompts, gemini-2.0-flash for
creative writing).

Definition. With n_c prompts in category c (N in all) and S_c a model's score in c,

    S = Σ_c (n_c / N) · S_c

is the model's expected score on a prompt drawn uniformly from the whole benchmark, judged
against that prompt's baseline: the number the v2.0 per-category tables would give if the
benchmark were one category with a baseline chosen per prompt. It keeps each category's own
anchor (win-rates against different baselines are not comparable strengths, so no pooled
Bradley–Terry fit can mix them without modelling the baselines), and it weighs categories by
their share of prompts rather than equally, so the 250-prompt creative-writing set is not given
the weight of the 500 hard prompts.

Uncertainty. Categories hold disjoint prompts, so their estimates are independent:
* bootstrap: the combined sample of round r is Σ_c w_c S_c^(r) after shuffling each category's
  rounds (the category tables draw from equally seeded generators, which would otherwise pair
  their rounds), and the interval is its percentile interval;
* sandwich: Cov S = Σ_c w_c² Cov S_c (each table's prompt-clustered score covariance, by the
  delta method), and a Wald interval clipped to [0, 100].

A model missing from some category has no combined score; it is listed, not imputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.special import ndtri

from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.bootstrap import percentile_interval
from inspect_arenahard.stats.estimates import Exclusions, Leaderboard, Row, sample_covariance

COMBINED = "combined"
"""Category label of the combined table."""


def prompts_per_category(battles: Battles) -> dict[str, int]:
    """Distinct prompts with at least one parsed game, per category: the combined score's weights."""
    parsed = battles.select(battles.parsed)
    return {c: len(set(parsed.where(category=c).question_id.tolist())) for c in parsed.categories()}


def combine(
    tables: Sequence[Leaderboard], prompts: Mapping[str, int], seed: int | None = 0
) -> tuple[Leaderboard, list[str]]:
    """The combined table of per-category ``tables`` and the models left out (not in every category).

    ``prompts`` maps each category to its number of prompts (the weights).
    """
    if len(tables) < 2 or any(t.category is None for t in tables):
        raise ValueError("a combined score needs two or more per-category tables")
    if len({(t.method, t.ci, t.ci_method, t.rounds) for t in tables}) > 1:
        raise ValueError(
            "per-category tables must share method, CI level and CI method to be combined"
        )
    names = [str(t.category) for t in tables]
    missing_prompts = [n for n in names if prompts.get(n, 0) <= 0]
    if missing_prompts:
        raise ValueError(f"no prompt count for categories {', '.join(missing_prompts)}")
    weight = np.array([prompts[n] for n in names], dtype=float)
    weight /= weight.sum()
    by_model = [{r.model: r for r in t.rows} for t in tables]
    everywhere = sorted(set.intersection(*(set(rows) for rows in by_model)))
    left_out = sorted(set().union(*by_model) - set(everywhere))
    first = tables[0]
    score = np.array([weight @ [rows_c[m].score for rows_c in by_model] for m in everywhere])
    covariance = sum(
        (w**2 * np.array([[t.score_covariance(x, y) for y in everywhere] for x in everywhere])
         for w, t in zip(weight, tables)),
        np.zeros((len(everywhere), len(everywhere))),
    )  # fmt: skip
    if first.ci_method == "sandwich":
        half = float(ndtri(0.5 + first.ci / 2)) * np.sqrt(np.diag(covariance))
        lower, upper = np.clip(score - half, 0, 100), np.clip(score + half, 0, 100)
    else:
        lower, upper, covariance = _bootstrap_bounds(everywhere, tables, weight, first.ci, seed)
    rows = []
    for i, model in enumerate(everywhere):
        parts = [rows_c[model] for rows_c in by_model]
        tokens = [p.avg_tokens for p in parts if p.avg_tokens is not None]
        rows.append(
            Row(
                model=model,
                score=float(score[i]),
                lower=float(lower[i]),
                upper=float(upper[i]),
                n=sum(p.n for p in parts),
                avg_tokens=float(np.mean(tokens)) if tokens else None,
                exclusions=sum((p.exclusions for p in parts), Exclusions()),
            )
        )
    rows.sort(key=lambda r: (-r.score, r.model))
    anchors = ", ".join(
        f"{n}: {t.baseline} ({100 * w:.1f}% of prompts)" for n, t, w in zip(names, tables, weight)
    )
    table = Leaderboard(
        category=COMBINED, baseline=f"each category's own — {anchors}", method=first.method, rounds=first.rounds, ci=first.ci,
        rows=tuple(rows), judges=first.judges, exclusions=sum((t.exclusions for t in tables), Exclusions()),
        unparsed_rule=first.unparsed_rule,
        ci_method=first.ci_method, clusters=sum(t.clusters for t in tables),
        one_step=any(t.one_step for t in tables),
        covariance={(x, y): float(covariance[i, j]) for i, x in enumerate(everywhere) for j, y in enumerate(everywhere)},
    )  # fmt: skip
    return table, left_out


def _bootstrap_bounds(
    models: list[str],
    tables: Sequence[Leaderboard],
    weight: np.ndarray,
    ci: float,
    seed: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval and covariance of the combined official bootstrap samples."""
    rng = np.random.default_rng(seed)
    rounds = min(len(next(iter(t.bootstrap.values()))) for t in tables)
    total = np.zeros((rounds, len(models)))
    for w, table in zip(weight, tables):
        order = rng.permutation(
            rounds
        )  # independent categories: break the shared-seed pairing of rounds
        total += w * np.column_stack([table.bootstrap[m][:rounds][order] for m in models])
    return (*percentile_interval(total, ci), sample_covariance(total))
