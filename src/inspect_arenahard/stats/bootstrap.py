"""Bootstrap over battles, done on resampling cells instead of rows.

Arena-hard resamples its expanded battle rows (a strong verdict is three rows) with replacement,
N draws for N rows, and refits. The number of draws falling in each group of rows is then
multinomial with the groups' summed probabilities, so drawing one multinomial count per cell
(``Design.cell_weight``) gives the same distribution of resamples at a fraction of the cost, and
the fit of a resample needs only those counts.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
from scipy.special import pdtr

from inspect_arenahard.stats.block_refit import BlockRefit
from inspect_arenahard.stats.bt import Design, Fit, fit, one_blas_thread, star_theta
from inspect_arenahard.stats.style_refit import REFITS, OneStepRefit, StyleRefit, one_step

T = TypeVar("T")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


FIT_THREADS = max(1, min(usable_cores(), 4))
"""Blocks of resamples ``BlockRefit`` draws and fits at once, each on its own thread (the
draws one block after another, so they are those of one thread; a block's refits release
the GIL in their products and share no buffers with another's)."""


class Resampler:
    """Bootstrap counts per cell: N = round(Σ weight) draws with probabilities ∝ weight.

    Two exact samplers of the same distribution: a multinomial over cells (cost ∝ cells, best
    when cells are few, e.g. model pairs), or N uniform draws over the expanded rows, counted per
    cell (cost ∝ N, best when nearly every row is its own cell, e.g. under style control; needs
    integer weights). Non-integer weights (a fractional ``--strong-weight``) use the multinomial
    with N rounded to the nearest integer.

    A single multinomial draw is made by Poisson splitting, a few times faster than numpy's
    sequential binomials: Poisson counts with total mean N − 2√N are, given their sum S, a
    multinomial of S draws; when S ≤ N (98% of the time; otherwise redraw) the N − S draws
    still missing are added one by one, which makes a multinomial of exactly N draws. With
    integer weights the Poisson counts come from ``PoissonTable`` (inversion, ~5× numpy's).
    """

    def __init__(self, cell_weight: np.ndarray, rng: np.random.Generator) -> None:
        total = float(cell_weight.sum())
        self.rng, self.draws, self.cells = rng, int(round(total)), len(cell_weight)
        self.probabilities = cell_weight / total
        integral = bool(np.all(cell_weight == np.round(cell_weight)))
        by_row = integral and self.draws < 4 * self.cells
        self.cell_of_row = (
            np.repeat(np.arange(self.cells), cell_weight.astype(np.int64)) if by_row else None
        )
        self.rows_are_cells = by_row and self.draws == self.cells
        """Every cell one row (weights all 1, as under style control): a draw is its cell."""
        self.cumulative = np.cumsum(self.probabilities)
        self.cumulative /= self.cumulative[-1]
        # guide for the missing draws: slot j of 2^k ≥ cells starts at the first cell past j/2^k
        self.slots = 1 << max(self.cells - 1, 1).bit_length()
        self.guide = np.searchsorted(
            self.cumulative, np.arange(self.slots) / self.slots, side="right"
        )
        self.mean = max(self.draws - 2.0 * self.draws**0.5, 0.0)
        self.table = (
            PoissonTable(cell_weight, self.mean / total) if integral and not by_row else None
        )

    def draw(self, rounds: int | None = None, integers: bool = False) -> np.ndarray:
        """Counts of shape ``(cells,)``, or ``(rounds, cells)`` (one multinomial call: a
        different random stream from ``rounds`` single draws); with ``integers`` the counts of
        the draws over rows stay integers (the same values, without a conversion)."""
        if self.cell_of_row is None and rounds is None:
            return self._poisson_split()
        if self.cell_of_row is None:
            return self.rng.multinomial(self.draws, self.probabilities, size=rounds).astype(float)
        shape = (rounds, self.draws) if rounds else self.draws
        picks = self.rng.integers(0, self.draws, shape)
        if not self.rows_are_cells:
            picks = self.cell_of_row[picks]
        if rounds is None:
            counts = np.bincount(picks, minlength=self.cells)
            return counts if integers else counts.astype(float)
        return np.stack([np.bincount(p, minlength=self.cells) for p in picks]).astype(float)

    def _poisson_split(self) -> np.ndarray:
        while (drawn := int((counts := self._poisson()).sum())) > self.draws:
            pass
        counts = counts.astype(float)  # (the table's counts may be 16-bit)
        if missing := self.draws - drawn:
            np.add.at(counts, self._pick_cells(self.rng.random(missing)), 1.0)
        return counts

    def _pick_cells(self, u: np.ndarray) -> np.ndarray:
        """The cell of each uniform ``u``: ``searchsorted(cumulative, u, "right")``, found from
        the guide slot (exact: u · 2^k is) by a step or two instead of a binary search."""
        index = self.guide[(u * self.slots).astype(np.int64)]
        behind = np.flatnonzero(self.cumulative[index] <= u)
        while len(behind):
            index[behind] += 1
            behind = behind[self.cumulative[index[behind]] <= u[behind]]
        return index

    def _poisson(self) -> np.ndarray:
        if self.table is not None:
            return self.table.draw(self.rng)
        return self.rng.poisson(self.probabilities * self.mean)


class PoissonTable:
    """Poisson(weight · scale) counts for many cells whose weights take few integer values, by
    inversion: one uniform u per cell, and the count is the number of cdf values ≤ u. Tails beyond
    1e-16 are cut (below float resolution).

    Each weight's unit interval is cut into ``SLOTS`` equal slots. A slot that no cdf value falls
    inside gives the count by one look-up (u · SLOTS is exact: a power of two); the 1% of slots
    that hold one are cut again into ``SUBSLOTS``, and the rare sub-slot that still holds one
    steps up the exact cdf from its lower end.
    """

    SLOTS = 2048
    SUBSLOTS = 64

    def __init__(self, cell_weight: np.ndarray, scale: float) -> None:
        values, self.group = np.unique(cell_weight, return_inverse=True)
        cdfs, tables, subtables, opened = [], [], [], 0
        for lam in values * scale:
            support = np.arange(int(np.ceil(lam + 12 * np.sqrt(lam) + 40)))
            cdf = pdtr(support, lam)  # Poisson cdf (scipy.stats's own; importing it costs 0.4 s)
            cdf[-1] = 1.0
            cdfs.append(cdf)
            table = _slot_counts(cdf, np.arange(self.SLOTS + 1)[None, :] / self.SLOTS)[0]
            open_slots = np.flatnonzero(table < 0)
            table[open_slots] = -1 - (opened + np.arange(len(open_slots)))  # → its sub-table
            opened += len(open_slots)
            tables.append(table)
            sub_edges = open_slots[:, None] * self.SUBSLOTS + np.arange(self.SUBSLOTS + 1)
            subtables.append(_slot_counts(cdf, sub_edges / (self.SLOTS * self.SUBSLOTS)).ravel())
        sizes = np.array([len(c) for c in cdfs])
        start = np.r_[0, np.cumsum(sizes)[:-1]]  # each weight's block in the flat cdf
        self.cdf = np.concatenate(cdfs)
        table, subtable = np.concatenate(tables), np.concatenate(subtables)
        small = max(sizes.max(), opened) < 2**15  # then 16 bits hold every entry
        self.table = table.astype(np.int16 if small else np.int32)  # (and the table stays in cache)
        self.subtable = subtable.astype(self.table.dtype)
        self.cell_start = start[self.group]
        self.cell_slot = self.group * self.SLOTS

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One Poisson count per cell (16- or 32-bit integers), from one uniform per cell."""
        scaled = rng.random(len(self.group))
        scaled *= self.SLOTS
        slot = scaled.astype(np.intp)
        slot += self.cell_slot
        counts = np.take(self.table, slot)
        inside = np.flatnonzero(counts < 0)
        if len(inside):  # u's fraction within its slot picks the sub-slot (exact arithmetic)
            sub = (scaled[inside] - (slot[inside] - self.cell_slot[inside])) * self.SUBSLOTS
            block = -1 - counts[inside].astype(np.intp)  # (the table may hold 16-bit numbers)
            found = np.take(self.subtable, block * self.SUBSLOTS + sub.astype(np.intp))
            deeper = np.flatnonzero(found < 0)
            if len(deeper):
                cells = inside[deeper]
                u, start = scaled[cells] / self.SLOTS, self.cell_start[cells]
                index = start - 1 - found[deeper]
                behind = np.flatnonzero(self.cdf[index] <= u)
                while len(behind):
                    index[behind] += 1
                    behind = behind[self.cdf[index[behind]] <= u[behind]]
                found[deeper] = index - start
            counts[inside] = found
        return counts


def _slot_counts(cdf: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """For each row of slot edges (slots [e_j, e_j+1) of u): the count of cdf values ≤ u where no
    cdf value falls inside the slot, else −1 − the count at the slot's start."""
    low = np.searchsorted(cdf, edges[:, :-1], side="right")
    high = np.searchsorted(cdf, edges[:, 1:], side="left")
    return np.where(low == high, low, -1 - low)


def percentile_interval(samples: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided percentile interval over axis 0 (linear interpolation), ignoring NaN rounds."""
    if not 0 < ci < 1:
        raise ValueError(f"confidence level must be between 0 and 1, got {ci}")
    tail = (1 - ci) / 2 * 100
    if samples.size == 0:
        return np.zeros(samples.shape[1:]), np.zeros(samples.shape[1:])
    # the same numbers; numpy's NaN-aware version works column by column in Python, 3x slower
    quantiles = np.nanpercentile if np.isnan(samples).any() else np.percentile
    bounds = quantiles(samples, [tail, 100 - tail], axis=0)
    return bounds[0], bounds[1]


def bootstrap_fits(
    design: Design,
    anchor: int,
    rounds: int,
    rng: np.random.Generator,
    init: Fit,
    block: bool = True,
    refits: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """θ (rounds × models) and γ (rounds × features) refitted on ``rounds`` resamples.

    The closed form is vectorised over all rounds at once; other designs are refitted from
    ``init`` (the full-data fit) a block of rounds at a time (``BlockRefit`` without style
    terms, ``FIT_THREADS`` blocks at once; ``StyleRefit`` with them), or with ``block=False`` by ``fit`` one round at a time
    (the same MLEs, slower: the reference the block refits are checked and timed against).
    With style terms, ``refits`` picks exact refits (``exact``), one Newton step from the full
    fit (``one-step``, see ``OneStepRefit``), or the one step from ``ONE_STEP_ROWS`` rows on
    (``auto``). Models cut off from the anchor in a resample get NaN.
    """
    if refits not in REFITS:
        raise ValueError(f"unknown refits {refits!r}; choose from {', '.join(REFITS)}")
    sampler = Resampler(design.cell_weight, rng)
    if design.is_star(anchor):
        counts = sampler.draw(rounds)
        won = _per_row(design, counts * design.cell_points)
        lost = _per_row(design, counts * (1.0 - design.cell_points))
        mine = np.where(design.a == anchor, lost, won)
        theirs = np.where(design.a == anchor, won, lost)
        thetas = np.zeros((rounds, design.n_models))
        thetas[:, np.where(design.a == anchor, design.b, design.a)] = star_theta(mine, theirs)[0]
        return thetas, np.zeros((rounds, 0))
    thetas = np.empty((rounds, design.n_models))
    gammas = np.empty((rounds, design.features.shape[1]))
    with one_blas_thread():  # small Newton systems: threads only contend
        if block and BlockRefit.applies(design, init):
            block_refit = BlockRefit(design, anchor, init)
            start = 0
            for fitted in drawn_and_fitted(
                sampler, rounds, block_refit.rounds, block_refit, FIT_THREADS
            ):
                thetas[start : start + len(fitted)] = fitted
                start += len(fitted)
            return thetas, gammas
        if block and StyleRefit.applies(design, init):
            style_refit: StyleRefit | OneStepRefit = (
                OneStepRefit(design, anchor, init)
                if one_step(design, refits)
                else StyleRefit(design, anchor, init)
            )
            whole = isinstance(style_refit, OneStepRefit)  # it takes integer counts as they are
            start = 0
            for drawn in drawn_ahead(sampler, rounds, style_refit.rounds, integers=whole):
                done = slice(start, start + len(drawn))
                thetas[done], gammas[done] = style_refit(drawn)
                start += len(drawn)
            return thetas, gammas
        for r in range(rounds):
            refit = fit(design, anchor, sampler.draw(), init=init, disconnected="nan")
            thetas[r], gammas[r] = refit.theta, refit.gamma
    return thetas, gammas


def drawn_ahead(
    sampler: Resampler, rounds: int, block: int, integers: bool = False
) -> Iterator[list[np.ndarray]]:
    """``rounds`` draws in blocks of ``block``, the next block drawn on a second thread while
    the caller fits this one (numpy's generator and ``bincount`` release the GIL): the very
    draws, in the same order, of drawing them one after the other."""
    sizes = _block_sizes(rounds, block)

    def draws(count: int) -> list[np.ndarray]:
        return [sampler.draw(integers=integers) for _ in range(count)]

    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = pool.submit(draws, sizes[0]) if sizes else None
        for following in [*sizes[1:], 0]:
            assert ahead is not None
            counts = ahead.result()
            ahead = pool.submit(draws, following) if following else None
            yield counts


def drawn_and_fitted(
    sampler: Resampler,
    rounds: int,
    block: int,
    refit: Callable[[list[np.ndarray]], T],
    threads: int,
) -> Iterator[T]:
    """``refit`` of ``rounds`` draws in blocks of ``block``, in order, on ``threads`` threads
    that each draw a block and fit it: the blocks are drawn one after another (in turn, so the
    draws are those of one thread) while the other threads fit theirs. Every thread both draws
    and fits, so no core waits on a thread that only draws (which left one of two cores idle
    while the fits were behind, or contended with them on a third thread)."""
    sizes = _block_sizes(rounds, block)
    turn = threading.Lock()
    blocks = iter(range(len(sizes)))  # taken under the lock: block k is the k-th drawn

    def drawn_then_fitted() -> tuple[int, T]:
        with turn:
            k = next(blocks)
            counts = [sampler.draw() for _ in range(sizes[k])]
        return k, refit(counts)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        running = deque(pool.submit(drawn_then_fitted) for _ in range(min(threads, len(sizes))))
        submitted, following = len(running), 0
        done: dict[int, T] = {}  # fitted blocks waiting for the ones drawn before them
        while running:
            k, fitted = running.popleft().result()
            done[k] = fitted
            if submitted < len(sizes):
                running.append(pool.submit(drawn_then_fitted))
                submitted += 1
            while following in done:
                yield done.pop(following)
                following += 1


def _block_sizes(rounds: int, block: int) -> list[int]:
    """The sizes of ``rounds`` taken ``block`` at a time (the last block may be short)."""
    return [min(block, rounds - start) for start in range(0, rounds, block)]


def _per_row(design: Design, cell_values: np.ndarray) -> np.ndarray:
    """Sum ``(rounds, cells)`` values into ``(rounds, rows)``."""
    out = np.zeros((cell_values.shape[0], len(design.a)))
    np.add.at(out.T, design.cell_row, cell_values.T)
    return out
