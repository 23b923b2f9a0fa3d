"""Bradley–Terry maximum likelihood with an anchor model: a closed form and an exact Newton solver.

Model: P(a beats b) = σ(θ_a − θ_b + x·γ), θ_anchor = 0, with optional style features x (rows
antisymmetric in a/b) and their coefficients γ. A tie is half a win for each side and a row's
weight is its battle count. This is the likelihood of arena-hard v0.1's duplicated design (each
battle once as (a, b, y) and once flipped, a tie as one win each), so the estimates equal an
unpenalized logistic regression on that design; win-rate against the anchor is σ(θ_m), the same
on any Elo scale.

When every battle is against the anchor (and no style term), the likelihood separates per model
and θ_m = logit(points_m / battles_m): scores are exactly (wins + ties/2)/n.

Degenerate data. When some group of models never loses to (or never beats) the rest, the MLE is
infinite. Only then, every pair of models whose battles all went one way receives a tie of
weight ``DEGENERATE_TIE`` (at equal style). An all-wins model with n battles then scores
(n + ε/2)/(n + ε), e.g. 99.9995% for n = 1000: finite, never NaN, and unaffected otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, Literal

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import csgraph
from scipy.special import expit
from threadpoolctl import ThreadpoolController


@cache
def _blas() -> ThreadpoolController:
    """The process's BLAS libraries, found once (a scan costs ~20 ms per ``threadpool_limits``)."""
    return ThreadpoolController()


def one_blas_thread() -> Any:
    """Context: BLAS limited to one thread, for small Newton systems where threads only contend."""
    return _blas().limit(limits=1, user_api="blas")


DEGENERATE_TIE = 0.01
"""Battles' worth of tie added to each one-sided pair, only when the MLE would be infinite."""

MAX_NEWTON_STEPS = 200
STEP_TOLERANCE = 1e-10
"""Newton stops when no parameter moves by more than this (log-odds units)."""
QUADRATIC_STOP = 1e-6
"""A full Newton step no larger than this ends the fit too: near the optimum Newton's error after
a step δ is of order δ² (the logistic likelihood's third derivative is bounded by its second
times the row's |Δη|), so the result is within ~1e-12 of the MLE, one step sooner."""
LINE_SEARCH_ABOVE = 0.5
"""Newton steps larger than this (log-odds units) are checked against the likelihood."""
CHORD_STEPS = 20
"""Bootstrap refits first take steps with the full data's Hessian: up to this many without style
terms (each costs a gradient only), one with them (then Newton: its Hessian is worth building)."""


@dataclass(frozen=True)
class Design:
    """Battles collapsed for fitting: distinct rows (a < b, features), their model pairs, and
    resampling cells.

    A cell is the set of expanded battle rows with the same distinct row and the same points for
    ``a``; ``cell_weight`` is their number. Resampling battles with replacement is resampling
    cells (see ``bootstrap``), and any resample's fit needs only per-row totals. ``pair`` maps a
    row to its model pair (``pair_a[i]`` < ``pair_b[i]``); without features rows are pairs.
    """

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    features: np.ndarray
    pair: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    cell_row: np.ndarray
    cell_points: np.ndarray
    cell_weight: np.ndarray

    @classmethod
    def build(
        cls,
        models: tuple[str, ...],
        a: np.ndarray,
        b: np.ndarray,
        points: np.ndarray,
        weight: np.ndarray,
        features: np.ndarray | None = None,
    ) -> Design:
        """Orient every battle so that a < b (points → 1 − points, features → −features) and merge."""
        n_models = len(models)
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        if np.any(a == b):
            raise ValueError("a model cannot battle itself")
        if np.any(~np.isin(points, (0.0, 0.5, 1.0))):
            raise ValueError("battle points must be 1 (win), 0.5 (tie) or 0 (loss)")
        if np.any(weight <= 0):
            raise ValueError("battle weights must be positive")
        flip = a > b
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        points = np.abs(flip - np.asarray(points, dtype=float))  # 1 − points where flipped
        if features is not None and features.shape[1]:
            keys = np.column_stack([lo, hi, np.where(flip[:, None], -features, features)])
            rows, row_of = _distinct_rows(keys, lo * n_models + hi)
            row_a, row_b = rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64)
            row_x = np.asfortranarray(
                rows[:, 2:]
            )  # column-major: the solver reads features by column
        else:
            pair_ids, row_of = _unique(lo * n_models + hi, n_models * n_models)
            row_a, row_b, row_x = (
                pair_ids // n_models,
                pair_ids % n_models,
                np.zeros((len(pair_ids), 0)),
            )
        pairs, pair_of = _unique(row_a * n_models + row_b, n_models * n_models)
        row_of = row_of.ravel()
        cell_ids, cell_of = _unique(
            row_of * 3 + np.rint(points * 2).astype(np.int64), 3 * len(row_a)
        )
        return cls(
            models=tuple(models),
            a=row_a,
            b=row_b,
            features=row_x,
            pair=pair_of.ravel(),
            pair_a=pairs // n_models,
            pair_b=pairs % n_models,
            cell_row=cell_ids // 3,
            cell_points=(cell_ids % 3) / 2.0,
            cell_weight=np.bincount(cell_of.ravel(), weights=weight),
        )

    def totals(self, cell_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per distinct row: (points of a, points of b), weighted by ``cell_weight`` (default: the data's)."""
        cw = self.cell_weight if cell_weight is None else cell_weight
        n = len(self.a)
        if self.cells_are_rows:  # typical under style control: every battle its own row
            won = cw * self.cell_points
            return won, cw - won
        won = np.bincount(self.cell_row, weights=cw * self.cell_points, minlength=n)
        lost = np.bincount(self.cell_row, weights=cw * (1.0 - self.cell_points), minlength=n)
        return won, lost

    @cached_property
    def cells_are_rows(self) -> bool:
        """Whether every row has one cell (then per-row totals need no grouping)."""
        return len(self.cell_row) == len(self.a)  # cell_row is sorted and covers every row

    @cached_property
    def pair_starts(self) -> np.ndarray:
        """First row of each pair (rows are grouped by pair, every pair has one)."""
        return np.r_[0, np.flatnonzero(self.pair[1:] != self.pair[:-1]) + 1]

    def pair_totals(self, row_values: np.ndarray) -> np.ndarray:
        """Per-pair sums of per-row values."""
        if len(self.pair) == len(self.pair_a):
            return row_values
        return np.add.reduceat(row_values, self.pair_starts)

    @property
    def n_models(self) -> int:
        """Length of ``models``: the size of the per-model coefficient vector."""
        return len(self.models)

    @cached_property
    def connected(self) -> bool:
        """Whether the battles link every model to every other (then so does any resample that
        keeps every pair, which spares the bootstrap a graph search per round)."""
        return bool(_component_of(self.n_models, 0, self.pair_a, self.pair_b).all())

    def is_star(self, anchor: int) -> bool:
        """True when every battle involves the anchor and there is no style term (closed form)."""
        return self.features.shape[1] == 0 and bool(np.all((self.a == anchor) | (self.b == anchor)))


def _unique(ids: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(ids, return_inverse=True)`` of whole numbers in [0, ``bound``): by marking
    them in a table, no sort, where the table is no larger than a few times ``ids``."""
    if bound > 4 * len(ids) + 4096:
        values, inverse = np.unique(ids, return_inverse=True)
        return values, inverse.ravel()
    present = np.zeros(bound, dtype=bool)
    present[ids] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[ids]


def _distinct_rows(keys: np.ndarray, pair_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``keys`` ordered by ``pair_key``, and each input row's index among them.

    Rows are compared as raw bytes (one sort of fixed-width records, several times faster than
    ``np.unique(axis=0)`` at a million rows), then ordered by pair so the solver can sum them
    per pair in one pass.
    """
    keys = np.ascontiguousarray(keys, dtype=float)
    records = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, first, row_of = np.unique(records, return_index=True, return_inverse=True)
    order = np.argsort(pair_key[first], kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return keys[first[order]], rank[row_of.ravel()]


@dataclass(frozen=True)
class Fit:
    """Log-odds strengths ``theta`` (anchor 0, NaN for models not connected to it in a resample),
    style coefficients ``gamma``, Newton steps taken (0: closed form), and whether pseudo-ties
    were needed. ``curvature`` keeps the Cholesky factor of the final Hessian (and the fixed
    parameters) so that refits of resamples can reuse it (see ``_System.chord``)."""

    theta: np.ndarray
    gamma: np.ndarray
    steps: int
    degenerate: bool
    curvature: tuple[tuple[np.ndarray, bool], np.ndarray] | None = field(
        default=None, repr=False, compare=False
    )


def win_rate(theta: np.ndarray) -> np.ndarray:
    """Predicted win-rate of each model against the anchor (θ_anchor = 0)."""
    return expit(theta)


def star_theta(won: np.ndarray, lost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form θ of models whose only battles are against the anchor, and the degenerate mask.

    ``won``/``lost`` are each model's points and the anchor's points (any leading shape, e.g.
    bootstrap rounds). A model with points on one side only gets ``DEGENERATE_TIE`` (see module
    docstring); a model with no battles gets NaN.
    """
    one_sided = (won == 0) ^ (lost == 0)
    pseudo = np.where(one_sided, DEGENERATE_TIE / 2, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.log(won + pseudo) - np.log(lost + pseudo)
    return theta, one_sided


def fit(
    design: Design,
    anchor: int,
    cell_weight: np.ndarray | None = None,
    init: Fit | None = None,
    disconnected: Literal["raise", "nan"] = "raise",
) -> Fit:
    """Maximum-likelihood θ (and γ) with θ_anchor = 0, exact to ``STEP_TOLERANCE``.

    Uses the closed form when ``design.is_star(anchor)``, Newton's method otherwise. Models with
    no path of battles to the anchor cannot be placed on its scale: an error naming them, or NaN
    with ``disconnected="nan"`` (used inside bootstrap resamples).
    """
    won, lost = design.totals(cell_weight)
    if design.is_star(anchor):
        return _fit_star(design, anchor, won, lost, disconnected)
    m = design.n_models
    pair_won, pair_lost = design.pair_totals(won), design.pair_totals(lost)
    reach, in_play, one_sided, degenerate = _linked(design, anchor, pair_won, pair_lost)
    _check_reach(design, reach, disconnected)
    a, b, xt, pair = (
        design.a,
        design.b,
        design.features.T,
        design.pair,
    )  # xt: features by row, C order
    rows = won + lost > 0 if in_play.all() else in_play[pair] & (won + lost > 0)
    if not rows.all():  # a resample leaves about a third of the rows empty: skip them in every step
        keep = np.flatnonzero(rows)
        a, b, pair, won, lost = a[keep], b[keep], pair[keep], won[keep], lost[keep]
        xt = np.compress(rows, xt, axis=1)
    if degenerate:  # a DEGENERATE_TIE tie, at equal style, for each one-sided pair
        extra = np.flatnonzero(one_sided)
        tie = np.full(len(extra), DEGENERATE_TIE / 2)
        a, b, pair = (
            np.r_[a, design.pair_a[extra]],
            np.r_[b, design.pair_b[extra]],
            np.r_[pair, extra],
        )
        xt = np.hstack([xt, np.zeros((xt.shape[0], len(extra)))])
        won, lost = np.r_[won, tie], np.r_[lost, tie]
    free = reach.copy()
    free[anchor] = False
    theta0 = np.zeros(m) if init is None else np.nan_to_num(init.theta) * free
    gamma0 = np.zeros(xt.shape[0]) if init is None else init.gamma
    system = _System(a, b, xt, won, lost, pair, design.pair_a, design.pair_b, free)
    params, steps, done = np.r_[theta0, gamma0].astype(float), 0, False
    if init is not None and init.curvature is not None and not degenerate:
        factor, fixed = init.curvature
        if np.array_equal(fixed, system.fixed):
            params, steps, done = system.chord(params, factor, 1 if xt.shape[0] else CHORD_STEPS)
    if done:
        theta, gamma = params[:m], params[m:]
    else:
        theta, gamma, newton_steps = system.solve(params[:m], params[m:])
        steps += newton_steps
    theta[~reach] = np.nan
    curvature = None if system.factor is None else (system.factor, system.fixed)
    return Fit(theta=theta, gamma=gamma, steps=steps, degenerate=degenerate, curvature=curvature)


def finite_and_linked(
    design: Design, anchor: int, pair_won: np.ndarray, pair_lost: np.ndarray
) -> bool:
    """Whether points per pair (e.g. a resample's) link every model to the anchor and give a
    finite MLE: then ``fit`` needs neither NaN nor pseudo-ties for them."""
    reach, _, _, degenerate = _linked(design, anchor, pair_won, pair_lost)
    return bool(reach.all()) and not degenerate


def _linked(
    design: Design, anchor: int, pair_won: np.ndarray, pair_lost: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(models linked to the anchor, pairs in play, one-sided pairs in play, whether the MLE is
    infinite) for the given points per pair."""
    m = design.n_models
    present = pair_won + pair_lost > 0
    if present.all() and design.connected:
        reach = np.ones(m, dtype=bool)
    else:
        reach = _component_of(m, anchor, design.pair_a[present], design.pair_b[present])
    in_play = present & reach[design.pair_a] & reach[design.pair_b]
    one_sided = in_play & ((pair_won > 0) ^ (pair_lost > 0))
    degenerate = bool(one_sided.any()) and not _strongly_connected(
        m,
        reach,
        design.pair_a[in_play],
        design.pair_b[in_play],
        pair_won[in_play] > 0,
        pair_lost[in_play] > 0,
    )
    return reach, in_play, one_sided, degenerate


def _fit_star(
    design: Design, anchor: int, won: np.ndarray, lost: np.ndarray, disconnected: str
) -> Fit:
    other = np.where(design.a == anchor, design.b, design.a)
    mine, theirs = np.where(design.a == anchor, lost, won), np.where(design.a == anchor, won, lost)
    theta = np.full(design.n_models, np.nan)
    theta[anchor] = 0.0
    theta[other], one_sided = star_theta(mine, theirs)
    reach = ~np.isnan(theta)
    _check_reach(design, reach, disconnected)
    return Fit(theta=theta, gamma=np.zeros(0), steps=0, degenerate=bool(np.any(one_sided)))


def _component_of(n_models: int, anchor: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mask of the models linked to ``anchor`` by a chain of battles."""
    graph = sparse.coo_matrix((np.ones(len(a)), (a, b)), shape=(n_models, n_models))
    _, labels = csgraph.connected_components(graph, directed=False)
    return labels == labels[anchor]


def _strongly_connected(
    n_models: int,
    members: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    a_scored: np.ndarray,
    b_scored: np.ndarray,
) -> bool:
    """Whether the graph "i took points from j" is strongly connected on ``members``.

    That is the condition for a finite MLE (Zermelo; Ford 1957). Quick sufficient case first: a
    member that both took points from and gave points to every other member links them all.
    """
    both = a_scored & b_scored
    two_way = np.bincount(a[both], minlength=n_models) + np.bincount(b[both], minlength=n_models)
    if two_way[members].max(initial=0) >= members.sum() - 1:
        return True
    heads, tails = np.r_[a[a_scored], b[b_scored]], np.r_[b[a_scored], a[b_scored]]
    graph = sparse.coo_matrix((np.ones(len(heads)), (heads, tails)), shape=(n_models, n_models))
    _, labels = csgraph.connected_components(graph, directed=True, connection="strong")
    return len(np.unique(labels[members])) == 1


def components(design: Design) -> list[tuple[str, ...]]:
    """Groups of models linked by chains of battles, largest first (one group: a connected design)."""
    graph = sparse.coo_matrix(
        (np.ones(len(design.pair_a)), (design.pair_a, design.pair_b)), shape=(design.n_models,) * 2
    )
    _, labels = csgraph.connected_components(graph, directed=False)
    groups = [
        tuple(design.models[i] for i in np.flatnonzero(labels == g)) for g in np.unique(labels)
    ]
    return sorted(groups, key=lambda g: (-len(g), g))


def _check_reach(design: Design, reach: np.ndarray, disconnected: str) -> None:
    """Strengths across models no battle chain links are undefined: name the groups instead."""
    if disconnected == "raise" and not reach.all():
        names = ", ".join(design.models[i] for i in np.flatnonzero(~reach))
        groups = components(design)
        listing = "; ".join(f"{{{', '.join(g)}}}" for g in groups)
        raise ValueError(
            f"no chain of battles links {names} to the baseline; their scores are undefined. "
            f"The battles form {len(groups)} separate groups: {listing}. Rank each group on its own "
            "(--baseline one of its models, on the battles within it), or add battles between the groups"
        )


class _System:
    """The likelihood of one set of rows, maximised over θ[free] and γ by Newton's method.

    Second derivatives are summed per model pair first, so a step costs a few passes over the
    rows plus work on the (models + features)² matrix.
    """

    def __init__(
        self,
        a: np.ndarray,
        b: np.ndarray,
        xt: np.ndarray,
        won: np.ndarray,
        lost: np.ndarray,
        pair: np.ndarray,
        pair_a: np.ndarray,
        pair_b: np.ndarray,
        free: np.ndarray,
    ) -> None:
        self.a, self.b, self.xt, self.won, self.weight = (
            a,
            b,
            np.ascontiguousarray(xt),
            won,
            won + lost,
        )
        self.pair, self.pair_a, self.pair_b = pair, pair_a, pair_b
        self.rows_are_pairs = len(pair) == len(pair_a) and bool(
            np.all(pair == np.arange(len(pair)))
        )
        # rows grouped by pair (as Design builds them): pair sums by one sequential reduceat
        grouped = len(pair) > 0 and not self.rows_are_pairs and bool(np.all(pair[1:] >= pair[:-1]))
        self.starts = np.r_[0, np.flatnonzero(pair[1:] != pair[:-1]) + 1] if grouped else None
        self.m, self.k = len(free), xt.shape[0]
        self.solve_for = np.r_[np.flatnonzero(free), self.m + np.arange(self.k)]
        self.fixed = np.flatnonzero(~free)
        self.factor: tuple[np.ndarray, bool] | None = None
        size = self.m + self.k
        self.upper, self.lower = (
            pair_a * size + pair_b,
            pair_b * size + pair_a,
        )  # flat Hessian positions

    def eta(self, params: np.ndarray) -> np.ndarray:
        theta = params[: self.m]
        eta = theta[self.a] - theta[self.b]
        return eta + params[self.m :] @ self.xt if self.k else eta

    def log_likelihood(self, eta: np.ndarray) -> float:
        """Σ won·η − Σ weight·log(1 + e^η), computed without overflow."""
        softplus = np.maximum(eta, 0.0) + np.log1p(np.exp(-np.abs(eta)))
        return float(self.won @ eta - self.weight @ softplus)

    def pair_sums(self, row_values: np.ndarray) -> np.ndarray:
        if self.rows_are_pairs:
            return row_values
        if self.starts is None:
            return np.bincount(self.pair, row_values, len(self.pair_a))
        sums = np.zeros(len(self.pair_a))
        sums[self.pair[self.starts]] = np.add.reduceat(row_values, self.starts)
        return sums

    def per_model(self, by_pair: np.ndarray) -> np.ndarray:
        """Σ over pairs of value·(e_a − e_b)."""
        return np.bincount(self.pair_a, by_pair, self.m) - np.bincount(self.pair_b, by_pair, self.m)

    def _probabilities(self, eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(gradient of the log-likelihood, expected wins per row)."""
        with np.errstate(over="ignore"):
            prob = 1.0 / (1.0 + np.exp(-eta))  # numpy's exp is vectorised; expit is not
        expected = self.weight * prob
        resid = self.won - expected
        grad = np.r_[self.per_model(self.pair_sums(resid)), self.xt @ resid]
        grad[self.fixed] = 0.0
        return grad, prob

    def chord(
        self, params: np.ndarray, factor: tuple[np.ndarray, bool], max_steps: int
    ) -> tuple[np.ndarray, int, bool]:
        """Steps H₀⁻¹·∇ℓ with a fixed Hessian H₀ (the full data's, already factorised): (params,
        steps taken, converged). Converged means no step moved a parameter by ``STEP_TOLERANCE``:
        the same end point as Newton's (∇ℓ = 0), at the cost of a gradient per step. A resample's
        Hessian is within a few percent of H₀, so the error shrinks about twentyfold per step. A
        large step is not taken (Newton, with its line search, takes over from there)."""
        params = params.copy()
        for step_count in range(1, max_steps + 1):
            grad, _ = self._probabilities(self.eta(params))
            delta = linalg.cho_solve(factor, grad, check_finite=False)[self.solve_for]
            size = float(np.max(np.abs(delta), initial=0.0))
            if not size < LINE_SEARCH_ABOVE:
                return params, step_count - 1, False
            params[self.solve_for] += delta
            if size < STEP_TOLERANCE:
                return params, step_count, True
        return params, max_steps, False

    def newton_step(self, eta: np.ndarray) -> np.ndarray:
        m, k = self.m, self.k
        grad, prob = self._probabilities(eta)
        expected = self.weight * prob
        curv = expected - expected * prob
        flat = np.zeros((m + k) ** 2)
        curv_by_pair = self.pair_sums(curv)
        flat[self.upper] = -curv_by_pair
        flat[self.lower] = -curv_by_pair
        hess = flat.reshape(m + k, m + k)
        hess[np.arange(m), np.arange(m)] = np.bincount(self.pair_a, curv_by_pair, m) + np.bincount(
            self.pair_b, curv_by_pair, m
        )
        if k:
            vxt = self.xt * curv
            side = np.column_stack([self.per_model(self.pair_sums(vxt[j])) for j in range(k)])
            hess[:m, m:], hess[m:, :m], hess[m:, m:] = side, side.T, vxt @ self.xt.T
        # fixed θ (the anchor, unreachable models): an identity row and column keep their step 0
        hess[self.fixed, :], hess[:, self.fixed] = 0.0, 0.0
        hess[self.fixed, self.fixed] = 1.0
        try:
            self.factor = linalg.cho_factor(hess, check_finite=False)
            step = linalg.cho_solve(self.factor, grad, check_finite=False)
        except linalg.LinAlgError:
            self.factor = None
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        return step[self.solve_for]

    def solve(self, theta: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Newton steps until none moves a parameter by ``STEP_TOLERANCE`` (or ``QUADRATIC_STOP``).

        A step moving some parameter by more than ``LINE_SEARCH_ABOVE`` is halved until the
        likelihood rises; smaller steps lie where the quadratic model is accurate and are taken
        whole. Either way the end point is where the gradient vanishes: the exact MLE.
        """
        params = np.r_[theta, gamma].astype(float)
        eta = self.eta(params)
        for step_count in range(1, MAX_NEWTON_STEPS + 1):
            delta = self.newton_step(eta)
            size = float(np.max(np.abs(delta), initial=0.0))
            trial = params.copy()
            trial[self.solve_for] += delta
            if size < QUADRATIC_STOP:
                return trial[: self.m], trial[self.m :], step_count
            trial_eta = self.eta(trial)
            if size > LINE_SEARCH_ABOVE:
                current = self.log_likelihood(eta)
                scale = 1.0
                while (
                    self.log_likelihood(trial_eta) < current - 1e-12 * abs(current) and scale > 1e-6
                ):
                    scale /= 2
                    trial = params.copy()
                    trial[self.solve_for] += scale * delta
                    trial_eta = self.eta(trial)
                size *= scale
            params, eta = trial, trial_eta
            if size < STEP_TOLERANCE:
                return params[: self.m], params[self.m :], step_count
        raise ValueError(
            f"Bradley–Terry fit did not converge in {MAX_NEWTON_STEPS} Newton steps "
            "(style features may separate the outcomes)"
        )
