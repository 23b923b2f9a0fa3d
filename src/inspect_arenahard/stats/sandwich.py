"""Cluster-robust (sandwich) covariance of a Bradley–Terry fit, clustered by prompt.

One fit instead of hundreds of bootstrap refits. The games of one prompt are not independent
(the two positions, several judges, the same pair of answers), so the model-based covariance
H⁻¹ understates the uncertainty and a battle-level bootstrap does too. The cluster-robust
estimator treats prompts, not games, as the independent units:

    V = c · H⁻¹ (Σ_g s_g s_gᵀ) H⁻¹,   s_g = Σ_{i ∈ g} w_i (y_i − p_i) z_i,   H = Σ_i w_i p_i (1 − p_i) z_i z_iᵀ

where z_i = e_a − e_b (plus the row's style features), y_i the points of ``a`` (a tie is ½),
w_i the battle weight and p_i the fitted probability; the anchor's column is left out (θ_anchor
= 0). ``c = G / (G − 1)`` for G clusters is the usual small-sample factor of maximum-likelihood
models (Stata's ``vce(cluster)``; statsmodels adds a further (N − 1)/(N − K), negligible here).
Intervals are Wald intervals on the log-odds scale, mapped to win-rates through the logistic
function, so they stay inside (0, 100) and are asymmetric like the bootstrap's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, sparse
from scipy.special import expit, ndtri

from inspect_arenahard.stats.bt import one_blas_thread
from inspect_arenahard.stats.name_codes import SortedNameCodes, cluster_index


@dataclass(frozen=True)
class Sandwich:
    """Covariance of (θ, γ): ``covariance`` is (models + features)², zero in the anchor's row and
    column; ``clusters`` is the number of independent units (prompts) it was computed from."""

    covariance: np.ndarray
    clusters: int

    def standard_errors(self) -> np.ndarray:
        """Square roots of the diagonal, clipped at zero against rounding."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))


def cluster_robust_covariance(
    a: np.ndarray,
    b: np.ndarray,
    points: np.ndarray,
    weight: np.ndarray,
    clusters: np.ndarray | SortedNameCodes,
    theta: np.ndarray,
    gamma: np.ndarray | None = None,
    features: np.ndarray | None = None,
    anchor: int = 0,
    small_sample: bool = True,
) -> Sandwich:
    """Sandwich covariance of the MLE (``theta``, ``gamma``) of battles ``a`` vs ``b``.

    Battles are the fitted rows (parsed games), ``clusters`` any labels (prompt ids); rows with
    the same label are one cluster. ``small_sample`` applies G / (G − 1). With fewer than 2
    clusters the covariance is undefined (NaN): the table then shows no interval.
    """
    # small dense algebra: BLAS threads only contend, and spin on for a while after each call
    with one_blas_thread():
        n_models = len(theta)
        k = 0 if features is None else features.shape[1]
        gamma = np.zeros(0) if gamma is None else gamma
        x = np.zeros((len(a), 0)) if features is None else np.asarray(features, dtype=float)
        eta = theta[a] - theta[b] + (x @ gamma if k else 0.0)
        prob = expit(eta)
        design = _row_design(a, b, x, n_models)
        free = np.r_[np.flatnonzero(np.arange(n_models) != anchor), n_models + np.arange(k)]
        design = design[:, free]
        curvature = weight * prob * (1.0 - prob)
        hessian = (design.T @ design.multiply(curvature[:, None])).toarray()
        group = cluster_index(clusters)
        n_groups = int(group.max()) + 1 if len(group) else 0
        if n_groups < 2:  # one prompt says nothing about prompt-to-prompt variation
            return Sandwich(
                covariance=np.full((n_models + k, n_models + k), np.nan), clusters=n_groups
            )
        residual = weight * (points - prob)
        member = sparse.csr_matrix(
            (residual, (group.ravel(), np.arange(len(a)))), shape=(n_groups, len(a))
        )
        scores = (
            member @ design
        )  # one summed score vector per cluster, sparse: a prompt involves few models
        bread = _inverse(hessian)
        meat = (scores.T @ scores).toarray()
        cov_free = bread @ meat @ bread
        if small_sample:
            cov_free *= n_groups / (n_groups - 1)
        covariance = np.zeros((n_models + k, n_models + k))
        covariance[np.ix_(free, free)] = cov_free
        return Sandwich(covariance=covariance, clusters=n_groups)


def cluster_robust_mean_covariance(
    n_models: int,
    a: np.ndarray,
    b: np.ndarray,
    points: np.ndarray,
    weight: np.ndarray,
    clusters: np.ndarray | SortedNameCodes,
    anchor: int,
    small_sample: bool = True,
) -> tuple[np.ndarray, np.ndarray, int]:
    """(score %, covariance of the score shares, clusters) of the mean method.

    A model's score is the ratio p_m = Σ_i w_i y_im / Σ_i w_i over its games (y_im its points);
    its influence per cluster is u_gm = Σ_{i ∈ g} w_i (y_im − p_m) / W_m, and the covariance
    G/(G − 1) Σ_g u_g u_gᵀ. With one fixed baseline p_m = σ(θ_m) of the star design and this is
    exactly the Bradley–Terry sandwich mapped to the win-rate scale. The anchor is fixed at 50.
    """
    side = np.r_[a, b]
    y = np.r_[points, 1.0 - points]
    w = np.r_[weight, weight]
    group = cluster_index(clusters)
    group = np.r_[group.ravel(), group.ravel()]
    n_groups = int(group.max()) + 1 if len(group) else 0
    total = np.bincount(side, weights=w, minlength=n_models)
    share = np.bincount(side, weights=w * y, minlength=n_models) / total
    influence = sparse.csr_matrix(
        (w * (y - share[side]) / total[side], (group, side)), shape=(n_groups, n_models)
    )
    covariance = (influence.T @ influence).toarray()
    if n_groups < 2:  # one prompt says nothing about prompt-to-prompt variation
        covariance[:] = np.nan
    elif small_sample:
        covariance *= n_groups / (n_groups - 1)
    covariance[anchor, :] = covariance[:, anchor] = 0.0
    share[anchor] = 0.5
    return 100 * share, covariance, n_groups


def wald_interval(estimate: np.ndarray, se: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided normal interval estimate ± z·se at confidence ``ci``."""
    if not 0 < ci < 1:
        raise ValueError(f"confidence level must be between 0 and 1, got {ci}")
    z = float(ndtri(0.5 + ci / 2))
    return estimate - z * se, estimate + z * se


def win_rate_interval(
    theta: np.ndarray, se: np.ndarray, ci: float
) -> tuple[np.ndarray, np.ndarray]:
    """Win-rate interval (%) from a log-odds Wald interval (the anchor, se 0, gets 50–50)."""
    low, high = wald_interval(theta, se, ci)
    return 100 * expit(low), 100 * expit(high)


def _row_design(a: np.ndarray, b: np.ndarray, x: np.ndarray, n_models: int) -> sparse.csr_matrix:
    """Sparse rows z_i = [e_a − e_b, x_i]."""
    n, k = x.shape
    rows = np.arange(n)
    strengths = sparse.csr_matrix(
        (np.r_[np.ones(n), -np.ones(n)], (np.r_[rows, rows], np.r_[a, b])), shape=(n, n_models)
    )
    return sparse.hstack([strengths, sparse.csr_matrix(x)], format="csr") if k else strengths


def _inverse(hessian: np.ndarray) -> np.ndarray:
    """H⁻¹ by Cholesky; a singular H (a model that won or lost everything) by pseudo-inverse."""
    try:
        return linalg.cho_solve(linalg.cho_factor(hessian), np.eye(len(hessian)))
    except linalg.LinAlgError:
        return np.linalg.pinv(hessian)
