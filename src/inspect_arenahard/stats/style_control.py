"""Style control (Arena-Hard paper, appendix A.2): Bradley–Terry with style-difference terms.

Per battle and per feature, a normalised difference between the two answers, positive when
``a``'s answer has more of it:

* length: (L_a − L_b) / (L_a + L_b) of the token counts;
* header, list, bold: densities d = count / (tokens + 1), then (d_a − d_b) / (d_a + d_b + 1).

Each feature is z-scored over the duplicated design (every battle in both orientations). There
its mean is 0 by construction, so the scale is the weighted root mean square. Centring on the
battles as oriented instead would add a hidden constant to every logit, a position-bias term
the model strengths cannot absorb when the baseline sits on either side. Scores are then the
win-rates at equal style (all features 0); coefficients are log-odds per standard deviation.

Anchors. The official arena-hard-auto code instead z-scores each feature over the battles
oriented model − baseline and reports the model strengths as they stand: the win-rate against
the baseline at the pool's *mean* style difference. With every battle against the baseline both
are exact maximum-likelihood fits of the same model, a constant logit shift apart (γ·μ, μ the
mean standardised difference); ``official`` applies that shift, ``equal`` does not. The equal
anchor does not move when the pool changes: dropping verbose models from a pool moves every
official score, because the pool's mean length difference moves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np

from inspect_arenahard.stats.battles import STYLE_COLUMNS

FEATURES: tuple[str, ...] = ("length", "header", "list", "bold")
GROUPS: dict[str, tuple[str, ...]] = {"length": ("length",), "markdown": ("header", "list", "bold")}
"""Names accepted by ``--style-control``, besides the single features."""
Anchor = Literal["official", "equal"]
ANCHORS: tuple[str, ...] = ("official", "equal")
ANCHOR_MEANING: dict[str, str] = {
    "official": "win-rate at the pool's mean style difference, as arena-hard-auto reports",
    "equal": "win-rate at equal style",
}


def parse_features(spec: str | Iterable[str]) -> tuple[str, ...]:
    """Features named by ``"length,markdown"`` (groups or single features), in canonical order."""
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    chosen: set[str] = set()
    for name in names:
        if name in GROUPS:
            chosen.update(GROUPS[name])
        elif name in FEATURES:
            chosen.add(name)
        else:
            raise ValueError(
                f"unknown style feature {name!r}; choose from {', '.join([*GROUPS, *FEATURES[1:]])}"
            )
    return tuple(f for f in FEATURES if f in chosen)


def raw_features(style_a: np.ndarray, style_b: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """``(n, len(names))`` normalised differences, exactly antisymmetric in a and b."""
    tokens_a, tokens_b = style_a[:, 0], style_b[:, 0]
    columns = []
    for name in names:
        if name == "length":
            columns.append(_ratio(tokens_a - tokens_b, tokens_a + tokens_b))
        else:
            col = STYLE_COLUMNS.index({"header": "headers", "list": "lists", "bold": "bold"}[name])
            dens_a, dens_b = style_a[:, col] / (tokens_a + 1), style_b[:, col] / (tokens_b + 1)
            columns.append((dens_a - dens_b) / (dens_a + dens_b + 1))
    return np.column_stack(columns) if columns else np.zeros((len(style_a), 0))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where both answers are empty."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def standardize(
    features: np.ndarray, weight: np.ndarray, names: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """(features / scale, scale): scale is the weighted RMS, i.e. the SD over the duplicated design.

    A feature that is 0 in every battle cannot be estimated: an error naming it.
    """
    scale = np.sqrt(weight @ features**2 / weight.sum())
    flat = [n for n, s in zip(names, scale) if not s > 0]
    if flat:
        raise ValueError(
            f"style feature {', '.join(flat)} is equal for both answers in every battle; leave it out of --style-control"
        )
    return features / scale, scale


def style_matrix(
    style_a: np.ndarray | None,
    style_b: np.ndarray | None,
    weight: np.ndarray,
    names: tuple[str, ...],
) -> np.ndarray:
    """Standardised feature matrix for battles with per-answer style metadata (see module docstring)."""
    if style_a is None or style_b is None:
        raise ValueError(
            "style control needs per-answer style metadata, and these battles have none"
        )
    missing = int(np.sum(np.isnan(style_a).any(axis=1) | np.isnan(style_b).any(axis=1)))
    if missing:
        raise ValueError(
            f"style control needs style metadata for every answer; {missing} battles lack it"
        )
    return standardize(raw_features(style_a, style_b, names), weight, names)[0]


def mean_style_difference(
    features: np.ndarray, a: np.ndarray, b: np.ndarray, weight: np.ndarray, anchor: int
) -> np.ndarray:
    """μ: the weighted mean standardised difference (model − baseline) over the battles against
    ``anchor``, the point at which the official anchor reports win-rates (module docstring)."""
    against = (a == anchor) | (b == anchor)
    if not against.any():
        return np.zeros(features.shape[1])
    sign = np.where(
        b[against] == anchor, 1.0, -1.0
    )  # rows are a − b: flip those with the baseline as a
    w = weight[against]
    return (w * sign) @ features[against] / w.sum()


def at_official_anchor(
    theta: np.ndarray, gamma: np.ndarray, mean_difference: np.ndarray, anchor: int
) -> np.ndarray:
    """θ + γ·μ for every model but ``anchor``: strengths at the pool's mean style difference.

    Works on one fit (``theta`` (models,), ``gamma`` (features,)) or on bootstrap stacks
    (``(rounds, models)``, ``(rounds, features)``).
    """
    shift = np.expand_dims(gamma @ mean_difference, -1)
    return theta + np.where(np.arange(theta.shape[-1]) != anchor, shift, 0.0)


def official_anchor_covariance(
    covariance: np.ndarray, mean_difference: np.ndarray, anchor: int
) -> np.ndarray:
    """Covariance of ``at_official_anchor``'s strengths (models²) from that of (θ, γ).

    The shift is linear, θ'_i = θ_i + μ·γ (μ held at its full-data value, as in the bootstrap), so
    Cov θ' = S Cov(θ, γ) Sᵀ with S = [I | 1μᵀ] off the anchor row; the anchor stays at 0 ± 0.
    A zero μ (the equal anchor) gives the θ block unchanged.
    """
    k = len(mean_difference)
    n = covariance.shape[0] - k
    shift = np.zeros((n, n + k))
    shift[:, :n] = np.eye(n)
    shift[np.arange(n) != anchor, n:] = mean_difference
    return shift @ covariance @ shift.T
