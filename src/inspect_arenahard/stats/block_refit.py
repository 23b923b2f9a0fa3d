"""Bootstrap refits of a block of resamples at once, for Bradley–Terry without style terms.

Each resample's MLE is reached as ``fit`` reaches it from the full-data fit: chord steps
H₀⁻¹·∇ℓ with the full data's Hessian H₀, ending where the resample's gradient vanishes (its
exact MLE, to ``STEP_TOLERANCE``). Here the rounds of a block step together, so that numpy's
per-call cost is paid once per block and the work runs over whole arrays:

* per-pair work is one pass over a (pairs × rounds) array, gathered from and summed into models
  by sparse products; the step is one matrix product with H₀⁻¹ for the whole block;
* the first step needs no exponential: at the full-data fit the win probabilities are known and
  the gradient is linear in the counts;
* while every round is still far from its optimum (steps above ``SINGLE_ABOVE``, for at most
  ``SINGLE_STEPS`` steps) the gradient is computed in single precision, twice as fast: its
  rounding moves the iterate by ~1e-5 at most, far below the distance still to go, and the
  double-precision steps that follow start from wherever it left off and end at the same
  optimum;
* a round stops when its last step, or the distance still to go estimated from how fast its
  steps shrink, is below ``STEP_TOLERANCE`` (``_close_enough``).

A round the chord cannot finish on its own terms is refitted by ``fit`` itself, as before:
one whose battles no longer link every model or whose MLE is infinite (NaN or pseudo-ties),
one whose step is too large for the fixed Hessian, one that does not converge.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from scipy import linalg, sparse
from scipy.special import expit

from inspect_arenahard.stats.bt import (
    CHORD_STEPS,
    LINE_SEARCH_ABOVE,
    STEP_TOLERANCE,
    Design,
    Fit,
    finite_and_linked,
    fit,
)

BLOCK_VALUES = 1 << 22
"""Rounds per block are capped so that a block's arrays and counts hold about this many numbers
(32 MB)."""
MAX_BLOCK_ROUNDS = 16
"""Beyond this many rounds a block's (pairs × rounds) arrays outgrow the cache, for no gain."""
SINGLE_ABOVE = 1e-4
"""Gradients are computed in single precision while every round's last step exceeded this
(ten times what single precision's rounding moves the iterate at arena scale), at most
``SINGLE_STEPS`` times."""
SINGLE_STEPS = 2


class BlockRefit:
    """Refits of resampled cell counts, a block of rounds at a time, from the full-data fit."""

    def __init__(self, design: Design, anchor: int, full: Fit) -> None:
        if not self.applies(design, full):
            raise ValueError("block refits need a design without style terms and a Newton fit")
        assert full.curvature is not None
        self.design, self.anchor, self.full = design, anchor, full
        m, n_pairs, n_cells = design.n_models, len(design.a), len(design.cell_row)
        pairs, cells = np.arange(n_pairs), np.arange(n_cells)
        # rows are pairs here; −η = θ_b − θ_a, and per-model sums Σ_p v_p (e_a − e_b)
        self.minus_eta = sparse.csr_matrix(
            (np.r_[-np.ones(n_pairs), np.ones(n_pairs)], (np.r_[pairs, pairs], np.r_[design.a, design.b])),
            shape=(n_pairs, m),
        )  # fmt: skip
        self.per_model = (-self.minus_eta.T).tocsr()
        self.minus_eta_single = self.minus_eta.astype(np.float32)
        self.per_model_single = self.per_model.astype(np.float32)
        # at the full-data fit: per-model sums of battles × win probability
        p0 = expit(-(self.minus_eta @ full.theta))
        self.expected_at_full = (self.per_model @ sparse.diags(p0)).tocsr()
        # cell counts → (points of a; battles) per pair
        self.points = sparse.csr_matrix(
            (np.r_[design.cell_points, np.ones(n_cells)],
             (np.r_[design.cell_row, design.cell_row + n_pairs], np.r_[cells, cells])),
            shape=(2 * n_pairs, n_cells),
        )  # fmt: skip
        self.points.eliminate_zeros()
        # H₀⁻¹ on the free parameters, zero on the fixed ones: one matrix product per step
        factor, fixed = full.curvature
        self.inverse = linalg.cho_solve(factor, np.eye(m), check_finite=False)
        self.inverse[fixed, :], self.inverse[:, fixed] = 0.0, 0.0
        self.hub, self.hub_pairs = _hub(design)
        self.endpoints = abs(self.minus_eta)  # pairs × models, 1 at both of its models
        self.endpoints_of = self.endpoints.T.tocsr()
        # a resample's battles per pair are whole numbers: exact in single precision below 2²⁴
        self.count_type = np.float32 if design.cell_weight.sum() < 2**23 else np.float64
        self.rounds = int(np.clip(BLOCK_VALUES // (n_cells + 8 * n_pairs), 1, MAX_BLOCK_ROUNDS))

    @staticmethod
    def applies(design: Design, full: Fit) -> bool:
        """No style terms (rows are model pairs) and a full-data Hessian factor to reuse."""
        return design.features.shape[1] == 0 and full.curvature is not None

    def __call__(self, counts: Iterable[np.ndarray]) -> np.ndarray:
        """θ (rounds × models) for each round's cell counts, each the exact MLE."""
        n_pairs, m = len(self.design.a), self.design.n_models
        kept, rows, battles, gradients = [], [], [], []
        for cell_counts in counts:  # the per-round work while the counts are in cache
            row = self.points @ cell_counts  # (points of a; battles) per pair
            won, total = row[:n_pairs], row[n_pairs:]
            grad_won = self.per_model @ won
            kept.append(cell_counts)
            rows.append(row)
            battles.append(total.astype(self.count_type))
            gradients.append(np.concatenate((grad_won, grad_won - self.expected_at_full @ total)))
        linked = self._linked(rows)
        thetas = np.empty((len(kept), m))
        newton = np.flatnonzero(~linked).tolist()
        if linked.any():
            live = np.flatnonzero(linked)
            grads = np.stack([gradients[r] for r in live]).T  # 2 models × rounds
            thetas[live], converged = self._chord(
                np.stack([battles[r] for r in live]).T.copy(),  # pairs × rounds
                grads[:m].copy(),
                grads[m:].copy(),
            )
            newton += live[~converged].tolist()
        for r in newton:
            refit = fit(self.design, self.anchor, kept[r], init=self.full, disconnected="nan")
            thetas[r] = refit.theta
        return thetas

    def _chord(
        self, battles: np.ndarray, grad_won: np.ndarray, grad: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """θ (rounds × models) by chord steps from the full-data fit, given battles per pair
        (pairs × rounds), the won part of the gradient and the gradient at the full-data fit
        (models × rounds); and which rounds converged (the others: a step too large for H₀,
        or not converged in ``CHORD_STEPS``)."""
        chord = ChordRounds(self.full.theta, battles.shape[1])
        for step in range(CHORD_STEPS):
            keep = chord.take(self.inverse @ grad)
            if chord.finished:
                break
            if keep is not None:
                grad_won, battles = grad_won[:, keep], np.compress(keep, battles, axis=1)
            theta = chord.params
            if step < SINGLE_STEPS and chord.smallest_step() > SINGLE_ABOVE:
                grad = grad_won - self._expected(theta.astype(np.float32), battles)
            else:
                grad = grad_won - self._expected(theta, battles)
        return chord.out, chord.converged

    def _expected(self, theta: np.ndarray, battles: np.ndarray) -> np.ndarray:
        """Per model and round, Σ over its pairs of battles × σ(±η): the gradient's other half
        (in ``theta``'s precision)."""
        single = theta.dtype == np.float32
        minus_eta = self.minus_eta_single if single else self.minus_eta
        expected = minus_eta @ theta
        with np.errstate(over="ignore"):
            np.exp(expected, out=expected)
        expected += 1.0
        np.divide(battles, expected, out=expected)
        per_model = self.per_model_single if single else self.per_model
        return per_model @ expected

    def _linked(self, rows: list[np.ndarray]) -> np.ndarray:
        """Per round (points of a; battles per pair): do they link every model and give a
        finite MLE? Yes when the pairs with points on both sides link every model (each such
        pair is a two-way link, so every model reaches every other: Zermelo's condition). That
        shows at one look when the hub is two-way with every other model, else by spreading
        from the hub along two-way pairs; the rounds it leaves are checked in full (one-way
        cycles count too)."""
        n_pairs = len(self.design.a)
        linked = np.zeros(len(rows), dtype=bool)
        if len(self.hub_pairs) == self.design.n_models - 1:
            hub_won, hub_battles = self.hub_pairs, self.hub_pairs + n_pairs
            linked[:] = [
                row[hub_won].min() > 0 and (row[hub_battles] - row[hub_won]).min() > 0
                for row in rows
            ]
        rest = np.flatnonzero(~linked)
        if len(rest):
            won_battles = np.stack([rows[r] for r in rest]).T
            won, lost = won_battles[:n_pairs], won_battles[n_pairs:] - won_battles[:n_pairs]
            spanning = self._two_way_spanning(won, lost)
            for j, r in enumerate(rest):
                linked[r] = spanning[j] or finite_and_linked(
                    self.design, self.anchor, won[:, j].copy(), lost[:, j].copy()
                )
        return linked

    def _two_way_spanning(self, won: np.ndarray, lost: np.ndarray) -> np.ndarray:
        """Per round: do the pairs with points on both sides link every model? A breadth-first
        spread from the hub, one level per two sparse products over the block."""
        two_way = ((won > 0) & (lost > 0)).astype(float)
        reached = np.zeros((self.design.n_models, won.shape[1]))
        reached[self.hub] = 1.0
        while True:
            touching = self.endpoints @ reached  # per pair, how many of its two models are reached
            grown = (self.endpoints_of @ (two_way * touching) > 0) | (reached > 0)
            if np.array_equal(grown, reached > 0):
                return grown.all(axis=0)
            reached = grown.astype(float)


class ChordRounds:
    """A block's rounds while chord steps run: their parameters (parameters × rounds, one
    column per round still stepping), which have stopped and where, and their last two step
    sizes. A round stops when ``_close_enough`` (converged) or when its step is too large for a
    fixed Hessian (then refitted by ``fit``); its column is dropped once a quarter of the
    columns have stopped (until then it keeps stepping from the start, harmlessly)."""

    def __init__(self, start: np.ndarray, rounds: int) -> None:
        self.start = start
        self.params = np.repeat(start[:, None], rounds, axis=1)
        self.out = np.empty((rounds, len(start)))
        self.converged = np.zeros(rounds, dtype=bool)
        self.live = np.arange(rounds)  # the round of each column
        self.going = np.ones(rounds, dtype=bool)
        self.last, self.before = np.full(rounds, np.nan), np.full(rounds, np.nan)

    def take(self, delta: np.ndarray) -> np.ndarray | None:
        """Add each column's step; the mask of the columns kept when some were dropped (the
        caller drops them from its own arrays too), else None."""
        size = np.abs(delta).max(axis=0, initial=0.0)
        self.params += delta
        done = self.going & _close_enough(size, self.last, self.before)
        stop = done | (self.going & ~(size < LINE_SEARCH_ABOVE))
        keep = None
        if stop.any():
            self.out[self.live[done]], self.converged[self.live[done]] = (
                self.params[:, done].T,
                True,
            )
            self.params[:, stop] = self.start[:, None]
            self.going &= ~stop
            if self.going.any() and self.going.sum() <= 0.75 * len(self.going):
                keep = self.going
                self.live, self.params = self.live[keep], self.params[:, keep]
                size, self.last = size[keep], self.last[keep]
                self.going = np.ones(len(self.live), dtype=bool)
        self.before, self.last = self.last, size
        return keep

    @property
    def finished(self) -> bool:
        """Whether every round has stopped."""
        return not self.going.any()

    def smallest_step(self) -> float:
        """The smallest last step among the rounds still stepping."""
        return float(self.last[self.going].min())


def _close_enough(size: np.ndarray, last: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Per round: the step just taken was below ``STEP_TOLERANCE``, or steps shrink steadily
    and the distance still to go is: at most size · q / (1 − q) if every later step shrinks by
    q, taken here as twice the larger of the last two ratios (≤ ½) for safety (one ratio alone
    can come out low when the error changes direction)."""
    q = 2 * np.maximum(size / last, last / before)  # NaN on the first two steps
    return (size < STEP_TOLERANCE) | ((q <= 0.5) & (size * q < STEP_TOLERANCE * (1 - q)))


def _hub(design: Design) -> tuple[int, np.ndarray]:
    """The model to check resamples' links from, and its pairs: among those with the most
    partners, the one least likely to lose a two-way record in a resample (its smallest points
    on either side of a pair are the largest)."""
    won, lost = design.totals()
    m = design.n_models
    partners = np.bincount(design.a, minlength=m) + np.bincount(design.b, minlength=m)
    low = np.minimum(won, lost)
    weakest = np.full(m, np.inf)
    np.minimum.at(weakest, design.a, low)
    np.minimum.at(weakest, design.b, low)
    hub = int(np.lexsort((weakest, partners))[-1])
    return hub, np.flatnonzero((design.a == hub) | (design.b == hub))
