"""Bootstrap refits of a block of resamples at once, for Bradley–Terry with style terms.

The style-controlled counterpart of ``block_refit``: each resample's MLE (θ and γ) is reached by
chord steps H₀⁻¹·∇ℓ from the full-data fit, with the full data's Hessian H₀ (models + features
square), ending where the resample's gradient vanishes (its exact MLE, to ``STEP_TOLERANCE``, as
``fit`` ends). ``fit`` itself takes one chord step and then Newton steps, each of which builds
and factorises a Hessian from every battle; here no Hessian is built, and the rounds of a block
step together:

* rows are battles grouped by model pair; θ_a − θ_b is computed once per pair and spread over
  the pair's rows, and the per-model gradient is summed per pair first (``np.add.reduceat``);
* the style part of η and of the gradient are matrix products with the (rows × features) design
  for the whole block;
* the first step needs no exponential (the win probabilities at the full-data fit are known);
* while every round is still far from its optimum the gradient is computed in single precision
  (as in ``block_refit``; the double-precision steps that follow end at the same optimum);
* a round stops by ``block_refit``'s rule (its last step, or the distance still to go estimated
  from how its steps shrink, below ``STEP_TOLERANCE``).

A round the chord cannot finish on its own terms (its battles no longer link every model or
give a finite MLE, a step too large for H₀, no convergence in ``CHORD_STEPS``) is refitted by
``fit``, as before.

At arena scale (a million battles) even these refits cost tens of milliseconds a round, most of
it passes over the rows with an exponential each. ``OneStepRefit`` takes the one Newton
step from the full-data fit instead, θ̂ + H₀⁻¹·∇ℓ*(θ̂): the resample's gradient at the full fit
needs no exponential (the win probabilities there are known), only its counts times fixed
residuals summed per pair and per feature. It is an approximation (the one-step bootstrap,
first-order equivalent to refitting), with an error of order 1/N; ``bootstrap_fits`` uses it
for designs of at least ``ONE_STEP_ROWS`` rows and ``benchmarks/bench_arena.py`` prints its
error per round against exact refits of the same resamples.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import linalg, sparse
from scipy.special import expit

from inspect_arenahard.stats.block_refit import SINGLE_ABOVE, ChordRounds
from inspect_arenahard.stats.bt import (
    CHORD_STEPS,
    Design,
    Fit,
    finite_and_linked,
    fit,
)
from inspect_arenahard.stats.rank_options import REFITS as REFITS  # re-exported
from inspect_arenahard.stats.rank_options import Refits as Refits

BLOCK_VALUES = 1 << 24
"""Rounds per block are capped so that a block's counts (rows × rounds, two arrays) hold about
this many numbers each."""
MAX_BLOCK_ROUNDS = 16
ONE_STEP_ROWS = 200_000
"""From this many distinct rows (battles, under style control) the bootstrap takes one-step
refits by default (``refits="auto"``): exact refits there cost ~25 ms a round per million rows,
and the one step's error (measured at a million battles: a few hundredths of a point at worst)
is below the Monte Carlo error of the bootstrap's percentiles."""
CHUNK_VALUES = 1 << 18
"""A pass over the rows goes a chunk of rows at a time, so that its temporaries (chunk rows ×
rounds) stay in cache (2 MB in double precision)."""


def pair_difference(design: Design) -> sparse.csr_matrix:
    """Pairs × models: θ_a − θ_b per pair; its transpose sums per-pair values into models."""
    n_pairs = len(design.pair_a)
    pairs = np.arange(n_pairs)
    return sparse.csr_matrix(
        (np.r_[np.ones(n_pairs), -np.ones(n_pairs)], (np.r_[pairs, pairs], np.r_[design.pair_a, design.pair_b])),
        shape=(n_pairs, design.n_models),
    )  # fmt: skip


class StyleRefit:
    """Refits of resampled cell counts under style control, a block of rounds at a time."""

    def __init__(self, design: Design, anchor: int, full: Fit) -> None:
        if not self.applies(design, full):
            raise ValueError("style refits need a design with style terms and a Newton fit")
        assert full.curvature is not None
        self.design, self.anchor, self.full = design, anchor, full
        m, k, n_rows = design.n_models, design.features.shape[1], len(design.a)
        n_pairs = len(design.pair_a)
        self.m, self.k, self.n_pairs = m, k, n_pairs
        starts = design.pair_starts
        sizes = np.diff(np.r_[starts, n_rows])
        difference = pair_difference(design)
        self.difference, self.per_model = difference, difference.T.tocsr()
        self.abs_per_model = abs(self.per_model)
        features = np.ascontiguousarray(design.features)  # rows × features
        upper = np.triu_indices(k)
        self.upper = upper
        self.p_full = expit(np.repeat(difference @ full.theta, sizes) + features @ full.gamma)
        # cell counts → (points of a; battles) per row
        cells = np.arange(len(design.cell_row))
        self.points = sparse.csr_matrix(
            (np.r_[design.cell_points, np.ones(len(cells))],
             (np.r_[design.cell_row, design.cell_row + n_rows], np.r_[cells, cells])),
            shape=(2 * n_rows, len(cells)),
        )  # fmt: skip
        self.points.eliminate_zeros()
        self.count_type = np.float32 if design.cell_weight.sum() < 2**23 else np.float64
        self.rounds = int(np.clip(BLOCK_VALUES // max(n_rows, 1), 1, MAX_BLOCK_ROUNDS))
        # chunks of whole pairs: (rows, pairs, each pair's first row within the chunk, features
        # (single and double precision), the features' products (upper triangle))
        target = max(CHUNK_VALUES // self.rounds, 1)
        edges = np.unique(np.r_[np.searchsorted(starts, np.arange(0, n_rows, target)), n_pairs])
        self.chunks: list[_Chunk] = []
        for first, end in zip(edges[:-1], edges[1:]):
            rows = slice(int(starts[first]), int(starts[end]) if end < n_pairs else n_rows)
            x = features[rows]
            self.chunks.append(
                _Chunk(
                    rows=rows,
                    pairs=slice(int(first), int(end)),
                    sizes=sizes[first:end],
                    starts=starts[first:end] - starts[first],
                    x=x,
                    x_single=x.astype(np.float32),
                    xt=np.ascontiguousarray(x.T),
                    xt_single=np.ascontiguousarray(x.T.astype(np.float32)),
                    products=np.ascontiguousarray(x[:, upper[0]] * x[:, upper[1]]),
                    p_full=self.p_full[rows],
                )
            )
        self.fixed = full.curvature[1]
        self.buffers: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def applies(design: Design, full: Fit) -> bool:
        """Style terms, a full-data Hessian factor to reuse, and every model placed."""
        return (
            design.features.shape[1] > 0
            and full.curvature is not None
            and not full.degenerate
            and bool(np.isfinite(full.theta).all())
        )

    def __call__(self, counts: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(θ rounds × models, γ rounds × features) for each round's cell counts, each the
        exact MLE of that resample."""
        design, n_rows = self.design, len(self.design.a)
        kept = list(counts)
        if self.buffers is None or len(kept) > len(self.buffers[0]):  # reused: no page faults
            self.buffers = (
                np.empty((max(len(kept), self.rounds), n_rows), dtype=self.count_type),
                np.empty((max(len(kept), self.rounds), n_rows), dtype=self.count_type),
            )
        won, battles = self.buffers[0][: len(kept)], self.buffers[1][: len(kept)]
        linked = np.empty(len(kept), dtype=bool)
        for r, cell_counts in enumerate(kept):
            if design.cells_are_rows:  # (typical: every battle its own row)
                np.multiply(cell_counts, design.cell_points, out=won[r], casting="unsafe")
                battles[r] = cell_counts
            else:
                row = self.points @ cell_counts
                won[r], battles[r] = row[:n_rows], row[n_rows:]
            pair_won = design.pair_totals(won[r])
            pair_lost = design.pair_totals(battles[r]) - pair_won
            linked[r] = finite_and_linked(design, self.anchor, pair_won, pair_lost)
        thetas = np.empty((len(kept), self.m))
        gammas = np.empty((len(kept), self.k))
        newton = np.flatnonzero(~linked).tolist()
        if linked.any():
            live = np.flatnonzero(linked)
            if len(live) < len(kept):
                won, battles = won[live], battles[live]
            params, converged = self._chord(won, battles)
            thetas[live], gammas[live] = params[:, : self.m], params[:, self.m :]
            newton += live[~converged].tolist()
        for r in newton:
            refit = fit(self.design, self.anchor, kept[r], init=self.full, disconnected="nan")
            thetas[r], gammas[r] = refit.theta, refit.gamma
        return thetas, gammas

    def _chord(self, won: np.ndarray, battles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(θ, γ) per round (rounds × parameters) by chord steps from the full-data fit, given
        points of a and battles per row (rounds × rows); and which rounds converged.

        The chord's matrix is each round's own Hessian: at the full-data fit for the first step
        (which is then Newton's), and once more after it, so that later steps contract by the
        change of curvature over what is left of the way (about 1e-3 per step at arena scale)
        instead of by the resampling noise in H₀ as well (about 0.06)."""
        chord = ChordRounds(np.r_[self.full.theta, self.full.gamma], won.shape[0])
        gradient, inverse = self._pass(None, won, battles, hessian=True)  # no exp at the start
        for step in range(CHORD_STEPS):
            keep = chord.take(np.einsum("rij,jr->ir", inverse, gradient))
            if chord.finished:
                break
            if keep is not None:
                won, battles, inverse = won[keep], battles[keep], inverse[keep]
            if step == 0:  # far from the optimum: single precision, and the Hessian refreshed
                single = chord.smallest_step() > SINGLE_ABOVE
                gradient, inverse = self._pass(
                    chord.params, won, battles, hessian=True, single=single
                )
            else:
                gradient, _ = self._pass(chord.params, won, battles)
        return chord.out, chord.converged

    def _pass(
        self,
        params: np.ndarray | None,
        won: np.ndarray,
        battles: np.ndarray,
        hessian: bool = False,
        single: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """One pass over the rows at ``params`` (parameters × rounds; None: the full-data fit):
        ∇ℓ (parameters × rounds, summed in double precision) and, with ``hessian``, each
        round's inverse Hessian (rounds × parameters²; else an empty array)."""
        m, k, rounds = self.m, self.k, won.shape[0]
        by_pair = np.empty((rounds, self.n_pairs))
        style = np.zeros((rounds, k))
        n_upper = len(self.upper[0])
        if hessian:
            weight = np.empty((rounds, self.n_pairs))
            cross = np.empty((k, rounds, self.n_pairs))
            products = np.zeros((rounds, n_upper))
        if params is not None:
            dtype = np.float32 if single else np.float64
            minus_difference = np.ascontiguousarray((self.difference @ -params[:m]).T, dtype=dtype)
            minus_gamma = np.ascontiguousarray(-params[m:].T, dtype=dtype)  # rounds × features
        for chunk in self.chunks:
            rows, pairs = chunk.rows, chunk.pairs
            if params is None:
                expected = battles[:, rows] * chunk.p_full
            else:  # battles / (1 + e^(−η)), in place
                xt = chunk.xt_single if single else chunk.xt
                denominator = np.repeat(minus_difference[:, pairs], chunk.sizes, axis=1)
                denominator += minus_gamma @ xt
                np.exp(denominator, out=denominator)
                denominator += 1.0
                expected = np.divide(battles[:, rows], denominator, out=denominator)
            residual = won[:, rows] - expected
            by_pair[:, pairs] = np.add.reduceat(residual, chunk.starts, axis=1, dtype=np.float64)
            style += residual @ (chunk.x_single if residual.dtype == np.float32 else chunk.x)
            if hessian:  # battles · p(1 − p) = expected − expected² / battles
                curvature = expected.astype(np.float64)
                curvature -= curvature**2 / np.maximum(battles[:, rows], 1.0)
                weight[:, pairs] = np.add.reduceat(curvature, chunk.starts, axis=1)
                for j in range(k):
                    cross[j][:, pairs] = np.add.reduceat(
                        curvature * chunk.xt[j], chunk.starts, axis=1
                    )
                products += curvature @ chunk.products
        gradient = np.r_[self.per_model @ by_pair.T, style.T]
        if not hessian:
            return gradient, np.empty(0)
        return gradient, self._inverse_hessians(weight, cross, products)

    def _inverse_hessians(
        self, weight: np.ndarray, cross: np.ndarray, products: np.ndarray
    ) -> np.ndarray:
        """Per round, the inverse of the (negative) Hessian from its per-pair curvature (rounds
        × pairs), per-pair curvature × features (features × rounds × pairs) and features ×
        features (rounds × upper triangle), zero on the fixed parameters."""
        m, rounds = self.m, weight.shape[0]
        size = m + self.k
        design = self.design
        hessians = np.zeros((rounds, size * size))
        hessians[:, design.pair_a * size + design.pair_b] = -weight
        hessians[:, design.pair_b * size + design.pair_a] = -weight
        hessians = hessians.reshape(rounds, size, size)
        diagonal = np.arange(m)
        hessians[:, diagonal, diagonal] = (self.abs_per_model @ weight.T).T
        side = np.stack([(self.per_model @ c.T).T for c in cross], axis=-1)  # rounds × m × k
        hessians[:, :m, m:] = side
        hessians[:, m:, :m] = side.transpose(0, 2, 1)
        hessians[:, m + self.upper[0], m + self.upper[1]] = products
        hessians[:, m + self.upper[1], m + self.upper[0]] = products
        hessians[:, self.fixed, :], hessians[:, :, self.fixed] = 0.0, 0.0
        hessians[:, self.fixed, self.fixed] = 1.0
        inverse = np.linalg.inv(hessians)
        inverse[:, self.fixed, :], inverse[:, :, self.fixed] = 0.0, 0.0
        return inverse


def one_step(design: Design, refits: str) -> bool:
    """Whether a bootstrap of ``design`` takes one-step refits under the ``refits`` choice:
    never without style terms; ``auto`` from ``ONE_STEP_ROWS`` distinct rows on."""
    if design.features.shape[1] == 0:
        return False
    return refits == "one-step" or (refits == "auto" and len(design.a) >= ONE_STEP_ROWS)


class OneStepRefit:
    """One Newton step per resample from the full-data fit, with the full data's Hessian:
    θ* ≈ θ̂ + H₀⁻¹·Σ_c n*_c (y_c − p̂_c) z_c, where n*_c are the resample's cell counts and z_c
    the cell's row of the design (e_a − e_b, features). A resample whose battles no longer link
    every model or give a finite MLE is refitted by ``fit`` (NaN or pseudo-ties, as exactly)."""

    def __init__(self, design: Design, anchor: int, full: Fit) -> None:
        if not StyleRefit.applies(design, full):
            raise ValueError("one-step refits need a design with style terms and a Newton fit")
        assert full.curvature is not None
        factor, fixed = full.curvature
        self.design, self.anchor, self.full, self.m = design, anchor, full, design.n_models
        size = self.m + design.features.shape[1]
        inverse = linalg.cho_solve(factor, np.eye(size), check_finite=False)
        inverse[fixed, :], inverse[:, fixed] = 0.0, 0.0
        self.inverse = inverse
        self.params = np.r_[full.theta, full.gamma]
        self.per_model = pair_difference(design).T.tocsr()  # per-pair sums → per model
        p_row = expit(
            (full.theta[design.pair_a] - full.theta[design.pair_b])[design.pair]
            + design.features @ full.gamma
        )
        self.residual = design.cell_points - p_row[design.cell_row]
        self.features_t = np.ascontiguousarray(design.features.T)  # features × rows
        self.rounds = int(np.clip(BLOCK_VALUES // max(len(design.a), 1), 1, MAX_BLOCK_ROUNDS))

    def __call__(self, counts: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(θ rounds × models, γ rounds × features), one step from the full fit for each
        round's cell counts."""
        design, n_rows = self.design, len(self.design.a)
        kept = list(counts)
        by_pair = np.empty((len(kept), len(design.pair_a)))
        style = np.empty((len(kept), self.features_t.shape[0]))
        refit: list[int] = []
        row, won = np.empty(len(design.cell_row)), np.empty(len(design.cell_row))
        for r, cell_counts in enumerate(kept):
            np.multiply(cell_counts, self.residual, out=row)
            np.multiply(cell_counts, design.cell_points, out=won)
            row_sums: np.ndarray = row
            won_sums: np.ndarray = won
            battles: np.ndarray = cell_counts
            if not design.cells_are_rows:
                row_sums = np.bincount(design.cell_row, weights=row, minlength=n_rows)
                won_sums = np.bincount(design.cell_row, weights=won, minlength=n_rows)
                battles = np.bincount(design.cell_row, weights=cell_counts, minlength=n_rows)
            by_pair[r] = np.add.reduceat(row_sums, design.pair_starts)
            style[r] = self.features_t @ row_sums
            pair_won = design.pair_totals(won_sums)
            if not finite_and_linked(
                design, self.anchor, pair_won, design.pair_totals(battles) - pair_won
            ):
                refit.append(r)
        gradient = np.c_[(self.per_model @ by_pair.T).T, style]
        params = self.params + gradient @ self.inverse  # H₀⁻¹ is symmetric
        thetas, gammas = params[:, : self.m], params[:, self.m :]
        for r in refit:
            exact = fit(design, self.anchor, kept[r], init=self.full, disconnected="nan")
            thetas[r], gammas[r] = exact.theta, exact.gamma
        return thetas, gammas


@dataclass(frozen=True)
class _Chunk:
    """Rows of whole pairs that one step of a pass works on."""

    rows: slice
    pairs: slice
    sizes: np.ndarray
    starts: np.ndarray
    x: np.ndarray
    x_single: np.ndarray
    xt: np.ndarray
    xt_single: np.ndarray
    products: np.ndarray
    p_full: np.ndarray
