"""A benchmark's scores against a reference ranking (``arenahard metrics``): every quality metric
of ``inspect_arenahard.stats.quality`` on the models both name, each matched model's two
intervals, and what matched nothing — one object that the printed tables and the JSON both read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from inspect_arenahard.stats.quality import QualityMetrics, benchmark_quality, separability
from inspect_arenahard.stats.score_tables import Alignment, ScoreTable, interval_scores

MIN_MODELS = 2
"""Models both sides must share: the metrics compare pairs."""


@dataclass(frozen=True)
class ComparedModel:
    """One matched model: its benchmark score and interval, and its reference's."""

    benchmark_model: str
    reference_model: str
    score: float
    lower: float
    upper: float
    reference_score: float
    reference_lower: float
    reference_upper: float


@dataclass(frozen=True)
class ReferenceComparison:
    """Benchmark against reference at confidence level ``ci``."""

    benchmark: str
    """Where the benchmark scores come from (a file, or the logs and their ranking rules)."""
    reference: str
    ci: float
    metrics: QualityMetrics
    separability_all: float
    """Separability over every benchmark model, matched or not."""
    n_benchmark_models: int
    models: list[ComparedModel]
    """Matched models, best benchmark score first."""
    alignment: Alignment

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``arenahard metrics --json``: the metrics, the models, what did not match."""
        a = self.alignment
        return {
            "benchmark": self.benchmark,
            "reference": self.reference,
            "ci": self.ci,
            "metrics": self.metrics.to_dict(),
            "separability_all_benchmark_models": self.separability_all,
            "n_benchmark_models": self.n_benchmark_models,
            "models": [asdict(m) for m in self.models],
            "only_benchmark": a.only_benchmark,
            "only_reference": a.only_reference,
            "not_in_map": a.not_in_map,
            "unused_map_entries": a.unused_map_entries,
            "map_direction": a.map_direction,
        }


def compare_with_reference(
    bench: ScoreTable, ref: ScoreTable, alignment: Alignment, ci: float
) -> ReferenceComparison:
    """Quality metrics of ``bench`` against ``ref`` over the pairs of ``alignment`` (from
    ``score_tables.align_models``), with intervals at ``ci``; fewer than two pairs is an error."""
    if len(alignment.pairs) < MIN_MODELS:
        raise ValueError(
            f"only {len(alignment.pairs)} model(s) match between {bench.source} and {ref.source}; need {MIN_MODELS}"
        )
    b_names = [b for b, _ in alignment.pairs]
    r_names = [r for _, r in alignment.pairs]
    b = interval_scores(bench, b_names, ci)
    r = interval_scores(ref, r_names, ci)
    everything = interval_scores(bench, bench.models, ci)
    order = sorted(range(len(b_names)), key=lambda k: -b.point[k])
    models = [
        ComparedModel(
            b_names[k], r_names[k], float(b.point[k]), float(b.lower[k]), float(b.upper[k]),
            float(r.point[k]), float(r.lower[k]), float(r.upper[k]),
        )
        for k in order
    ]  # fmt: skip
    return ReferenceComparison(
        benchmark=bench.source,
        reference=ref.source,
        ci=ci,
        metrics=benchmark_quality(b, r),
        separability_all=separability(everything.lower, everything.upper),
        n_benchmark_models=len(bench.models),
        models=models,
        alignment=alignment,
    )
