"""Score tables (a benchmark's or a reference's scores per model) and matching their model names.

Pure: tables built from logs or read from files (``inspect_arenahard.report.score_table_files``) meet
here, and the quality and judge analyses compare them. Model names that cannot be matched are
returned in lists, never dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from inspect_arenahard.stats.bootstrap import percentile_interval
from inspect_arenahard.stats.quality import DEFAULT_CI, IntervalScores, variance_from_interval


@dataclass(frozen=True)
class ModelEntry:
    """One model's score with whatever uncertainty information the source had; ``ci`` is the
    confidence level of ``lower``/``upper`` (files hold 95% intervals)."""

    model: str
    score: float
    lower: float | None = None
    upper: float | None = None
    samples: np.ndarray | None = None
    variance: float | None = None
    ci: float = DEFAULT_CI


@dataclass(frozen=True)
class ScoreTable:
    """Scores of several models from one source (a file, or logs aggregated on the fly)."""

    source: str
    entries: dict[str, ModelEntry]

    @property
    def models(self) -> list[str]:
        """Model names in the table's order."""
        return list(self.entries)


def leaderboard_scores(source: str, table: Any) -> ScoreTable:
    """A leaderboard computed from logs (``stats.leaderboard.Leaderboard``) as a score table,
    with its official bootstrap samples, or the prompt-clustered variance of its scores."""
    return ScoreTable(
        source,
        {
            r.model: ModelEntry(
                r.model,
                r.score,
                r.lower,
                r.upper,
                samples=table.bootstrap.get(r.model),
                variance=table.score_covariance(r.model, r.model) if not table.bootstrap else None,
                ci=table.ci,
            )
            for r in table.rows
        },
    )


@dataclass(frozen=True)
class Alignment:
    """Which benchmark model is which reference model, and what matched nothing."""

    pairs: list[tuple[str, str]]
    only_benchmark: list[str]
    only_reference: list[str]
    not_in_map: list[tuple[str, str]] = field(default_factory=list)
    map_direction: str | None = None
    unused_map_entries: list[str] = field(default_factory=list)

    @property
    def renamed(self) -> list[tuple[str, str]]:
        """(benchmark name, reference name) of the pairs matched under different names."""
        return [(b, r) for b, r in self.pairs if b != r]


def _fold_index(names: Iterable[str]) -> dict[str, str]:
    """casefolded name → name, for names whose casefold is unique."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.casefold(), []).append(name)
    return {fold: group[0] for fold, group in groups.items() if len(group) == 1}


def _lookup(name: str, exact: set[str], folded: dict[str, str]) -> str | None:
    return name if name in exact else folded.get(name.casefold())


def _orient(name_map: Mapping[str, str], benchmark: list[str]) -> tuple[dict[str, str], str]:
    """The map as benchmark→reference: keys are taken as benchmark names unless the values
    name more benchmark models (a reference→benchmark file such as the notebook's)."""
    bench = _fold_index(benchmark)
    keys_hit = sum(k.casefold() in bench for k in name_map)
    values_hit = sum(v.casefold() in bench for v in name_map.values())
    if values_hit > keys_hit:
        flipped: dict[str, str] = {}
        for key, value in name_map.items():
            if value.casefold() in flipped:
                raise ValueError(
                    f"name map sends both {flipped[value.casefold()]!r} and {key!r} to {value!r}"
                )
            flipped[value.casefold()] = key
        return flipped, "reference->benchmark"
    return {k.casefold(): v for k, v in name_map.items()}, "benchmark->reference"


def align_models(
    benchmark: Iterable[str],
    reference: Iterable[str],
    name_map: Mapping[str, str] | None = None,
    only_mapped: bool = False,
) -> Alignment:
    """Match benchmark names to reference names.

    A name in the alias map is translated first (the map's direction is detected: whichever of
    its keys or values name more benchmark models are taken as benchmark names), then matched
    exactly, then case-insensitively. With ``only_mapped`` the comparison is restricted to
    models named in the map (the paper notebook's shared model set); matched pairs outside it
    are listed in ``not_in_map``.
    """
    benchmark, reference = list(benchmark), list(reference)
    exact, folded = set(reference), _fold_index(reference)
    directed, direction = _orient(name_map, benchmark) if name_map else ({}, None)
    pairs: list[tuple[str, str]] = []
    only_benchmark: list[str] = []
    not_in_map: list[tuple[str, str]] = []
    claimed: dict[str, str] = {}
    used: set[str] = set()
    for name in benchmark:
        mapped = directed.get(name.casefold())
        match = _lookup(mapped if mapped is not None else name, exact, folded)
        if match is None:
            only_benchmark.append(name)
            continue
        if match in claimed:
            raise ValueError(
                f"benchmark models {claimed[match]!r} and {name!r} both match reference model {match!r}"
            )
        claimed[match] = name
        if mapped is not None:
            used.add(name.casefold())
        elif only_mapped:
            not_in_map.append((name, match))
            continue
        pairs.append((name, match))
    only_reference = [name for name in reference if name not in claimed]
    unused = [f"{k} -> {v}" for k, v in directed.items() if k not in used]
    return Alignment(pairs, only_benchmark, only_reference, not_in_map, direction, unused)


def interval_scores(
    table: ScoreTable, models: Iterable[str], ci: float = DEFAULT_CI
) -> IntervalScores:
    """Arrays for ``benchmark_quality``: intervals are bootstrap percentiles at ``ci`` when the
    model has samples, else the given lower/upper (only if they are ``ci`` intervals);
    mean/variance come from the samples, else the score and the given variance or the normal
    variance implied by the interval."""
    point, lower, upper, mean, var = [], [], [], [], []
    for model in models:
        entry = table.entries[model]
        if entry.samples is not None:
            lo, hi = (float(x) for x in percentile_interval(entry.samples, ci))
            m, v = float(np.mean(entry.samples)), float(np.var(entry.samples))
        else:
            if not math.isclose(ci, entry.ci):
                raise ValueError(
                    f"{table.source}: model {model!r} has no bootstrap 'results', so only its given "
                    f"{entry.ci:.0%} interval is known; a {ci:.0%} interval needs bootstrap samples"
                )
            lo, hi = entry.lower, entry.upper  # type: ignore[assignment]
            m = entry.score
            v = (
                entry.variance
                if entry.variance is not None
                else variance_from_interval(lo, hi, entry.ci)
            )
        point.append(entry.score)
        lower.append(lo)
        upper.append(hi)
        mean.append(m)
        var.append(v)
    return IntervalScores(*(np.array(a, dtype=float) for a in (point, lower, upper, mean, var)))
