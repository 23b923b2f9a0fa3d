"""A share of games with a prompt-clustered interval: games on one prompt are not independent
(the same answers, judged twice), so the variance is computed over prompts, and the interval is
a Wilson score interval on the design-effect-adjusted count, which stays inside [0, 1] and does
not collapse to a point when every game went one way."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from inspect_arenahard.stats.name_codes import cluster_index as cluster_index  # re-exported
from inspect_arenahard.stats.quality import DEFAULT_CI


@dataclass(frozen=True)
class Share:
    """``hits`` of ``n`` games (or swapped pairs) on ``prompts`` prompts, with its interval."""

    hits: int
    n: int
    prompts: int
    value: float
    lower: float
    upper: float

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-safe: NaN (no games) becomes None."""
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in vars(self).items()
        }

    def text(self) -> str:
        """``62% [51%, 71%] of 81``, or ``- of 0``."""
        if not self.n:
            return "- of 0"
        return f"{100 * self.value:.0f}% [{100 * self.lower:.0f}%, {100 * self.upper:.0f}%] of {self.n}"


def clustered_variance(hits: np.ndarray, clusters: Sequence[Hashable]) -> float:
    """Variance of the mean of ``hits`` with games clustered by prompt (the sandwich estimator of
    an intercept-only regression, with the G/(G−1) small-sample factor)."""
    return _clustered_variance(hits, cluster_index(clusters))


def _clustered_variance(hits: np.ndarray, index: np.ndarray) -> float:
    n = len(hits)
    groups = int(index.max()) + 1 if n else 0
    if groups < 2:
        return math.nan
    residual_sums = np.bincount(index, weights=hits - hits.mean(), minlength=groups)
    return float(groups / (groups - 1) * np.sum(residual_sums**2) / n**2)


def clustered_share(
    hits: Sequence[bool] | np.ndarray, clusters: Sequence[Hashable], ci: float = DEFAULT_CI
) -> Share:
    """The share of true ``hits`` with a ``ci`` interval that accounts for games on one prompt
    being alike: Wilson's interval at the effective sample size n / design effect (the number of
    prompts when every game went one way, where the design effect cannot be estimated)."""
    return share_by_cluster(hits, cluster_index(clusters) if len(clusters) else None, ci)


def share_by_cluster(
    hits: Sequence[bool] | np.ndarray, index: np.ndarray | None, ci: float = DEFAULT_CI
) -> Share:
    """``clustered_share`` with each game's cluster already an index (``cluster_index``'s:
    0 … clusters − 1 in the clusters' sorted order; None without games), as a game table gives
    it without turning every prompt back into a name."""
    from scipy.special import ndtri  # the normal quantile; scipy.stats costs 0.4 s to import

    values = np.asarray(hits, dtype=float)
    n = len(values)
    if n == 0 or index is None:
        return Share(0, 0, 0, math.nan, math.nan, math.nan)
    prompts = int(index.max()) + 1
    p = float(values.mean())
    binomial = p * (1 - p) / n
    clustered = _clustered_variance(values, index)
    if binomial > 0 and math.isfinite(clustered):  # games alike within a prompt count less
        n_eff = n / max(clustered / binomial, 1.0 / n)
    else:  # every game went one way (or one prompt): the design effect is unknown, count prompts
        n_eff = float(prompts)
    z = float(ndtri(0.5 + ci / 2))
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2))
    return Share(int(values.sum()), n, prompts, p, max(0.0, centre - half), min(1.0, centre + half))
