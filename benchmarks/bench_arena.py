"""Arena scale: a million model-vs-model battles among 200 models, against the rating libraries
users pick instead, timed in one process.

Synthetic Chatbot-Arena-shaped battles (random pairs, 10% ties, per-answer style metadata with a
length preference), built straight into ``Battles``. It times

* ours: design + exact fit + 1000 bootstrap rounds (target < 5 s); with style control (4
  features) and 1000 rounds (target < 10 s); the same through ``leaderboard`` (which adds
  per-model counts and answer lengths); and sandwich intervals (one fit);
* the style-controlled bootstrap (``style_comparison``; alone with ``--style-only``): one-step
  refits (``OneStepRefit``, what ``--style-refits auto`` takes at this scale), exact block refits
  (``StyleRefit``) and per-round Newton refits on the same resamples: wall and CPU, the ratios,
  the one step's error per round against the exact refit of its resample, the bootstrap's own
  Monte Carlo error for comparison, and arena-rank's contextual Bradley–Terry on the first
  resamples where it is installed (JAX pins numpy: install it in a venv made with
  ``--system-site-packages`` and run this script with that venv's python);
* every solver in the same resampling loop (``resampling_loop``): our resampler draws blocks of
  16 resamples and the solver fits them, each solver alone in its loop with the same seed, so
  all fit the very same resamples (per-pair totals from one sparse product per round for all):
  ours (``BlockRefit``, as ``bootstrap_fits`` runs it); choix's ``ilsr_pairwise_dense`` (its
  solver for dense win matrices; its others take one tuple per battle) on the win matrix,
  warm-started at the full-data fit and from its default start; evalica's Bradley–Terry and
  arena-rank's (LMArena's JAX L-BFGS; 3 rounds) on the weighted distinct battles. Each prints
  the fit-only ratio, the loop ratio (draw included) and its largest |θ − ours| over the rounds;
* a disconnected design (two halves that never meet): the error that names the groups;
* end to end from a file (``--files``, alone with ``--files-only``): the same battles written as a
  Chatbot Arena battle file with and without ``conv_metadata``, read by pyarrow's JSON reader (the
  reference; also memory-mapped, as ours reads it) and by pandas, then by ours in this process
  (read, then BT + 1000 official bootstrap rounds), and by the command itself in a child process
  (``arenahard leaderboard --battles FILE --ci-method official --rounds 1000``, the console script
  beside this interpreter: start-up, imports, read, fit, table), each as wall and CPU time
  (pyarrow reads on every core, and so do our bootstrap's refits, so their wall is below their
  CPU) with the ratios to pyarrow's two reads; with ``--pairs N`` also the command and
  pyarrow's read alternated N times, the median of the side-by-side ratios (the best of each,
  taken a minute apart, can pair a fast moment of a shared machine with a slow one).

Wall times on a shared machine are noisy, so CPU time (one core; BLAS is single-threaded for
every library) is printed beside them; ratios come from the same run.

Measured (2 cores shared with other jobs, best of three runs, wall ≈ CPU): fit + 1000 rounds
1.0 s; style control + 100 rounds 10.0 s; 0.82 GiB. Per round in the loop: ours 0.53 ms fit +
0.36 ms draw; choix warm-started 2.62 + 0.39 ms (ours 4.9x faster per fit, 3.4x per loop
round; 4.6-4.9x and 3.2-3.4x over the three runs), from its default start 2.92 + 0.41 ms
(5.5x, 3.7x); evalica 18.1 ms (34x, 21x); arena-rank 1.47 s (2,700x, 1,600x). With every
solver interleaved in one loop instead (each block handed to all in turn) the choix ratios were
3.9-4.2x and 2.6-2.9x: the other libraries' memory traffic slows our draws and fits more than
choix's compute-bound solves, hence one loop per solver.

    python benchmarks/bench_arena.py                    # everything (a few minutes on 2 cores)
    python benchmarks/bench_arena.py --battles 200000   # quicker
    python benchmarks/bench_arena.py --style-only --arena-rank-rounds 1
    python benchmarks/bench_arena.py --files-only --best-of 3   # the battle-file end to end
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.special import expit
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from inspect_arenahard.logs.battle_files import read_battles_jsonl
from inspect_arenahard.stats.battles import Battles
from inspect_arenahard.stats.block_refit import BlockRefit
from inspect_arenahard.stats.bootstrap import Resampler, bootstrap_fits
from inspect_arenahard.stats.bt import Design, fit
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.ranking import RankingOptions, rank
from inspect_arenahard.stats.style_control import style_matrix

STYLE = ("length", "header", "list", "bold")


def arena_battles(n_models: int, n: int, rng: np.random.Generator) -> Battles:
    """Random pairs from a BT model with a length preference; every battle its own prompt."""
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n)
    b = rng.integers(0, n_models - 1, n)
    b = np.where(b >= a, b + 1, b)

    def style() -> np.ndarray:
        return np.column_stack(
            [rng.lognormal(6, 0.5, n), rng.poisson(1, n), rng.poisson(5, n), rng.poisson(3, n)]
        ).astype(float)

    style_a, style_b = style(), style()
    length = (style_a[:, 0] - style_b[:, 0]) / (style_a[:, 0] + style_b[:, 0])
    p_a = 1 / (1 + np.exp(-(strength[a] - strength[b] + 1.2 * length)))
    points = np.where(rng.random(n) < 0.1, 0.5, (rng.random(n) < p_a).astype(float))
    none = np.full(n, None, dtype=object)
    return Battles(
        models=tuple(f"model-{i:03d}" for i in range(n_models)), a=a, b=b, points=points, weight=np.ones(n),
        question_id=np.arange(n).astype(object), category=none, judge=none, baseline=none, style_a=style_a, style_b=style_b,
    )  # fmt: skip


def write_battle_file(battles: Battles, path: Path, style: bool) -> None:
    """The battles as a Chatbot Arena battle file (counts by kind in ``conv_metadata``)."""
    winner = np.where(
        battles.points == 1, "model_a", np.where(battles.points == 0, "model_b", "tie")
    )
    with path.open("w", encoding="utf-8") as f:
        for i in range(len(battles)):
            row: dict[str, Any] = {
                "question_id": f"{int(battles.question_id[i]):08x}", "model_a": battles.models[battles.a[i]],
                "model_b": battles.models[battles.b[i]], "winner": str(winner[i]),
            }  # fmt: skip
            if style and battles.style_a is not None and battles.style_b is not None:
                meta: dict[str, Any] = {}
                for side, (tokens, headers, lists, bold) in (
                    ("a", battles.style_a[i]),
                    ("b", battles.style_b[i]),
                ):
                    meta[f"sum_assistant_{side}_tokens"] = int(tokens)
                    meta[f"header_count_{side}"] = {
                        "h1": int(headers),
                        "h2": 0,
                        "h3": 0,
                        "h4": 0,
                        "h5": 0,
                        "h6": 0,
                    }
                    meta[f"list_count_{side}"] = {"ordered": int(lists), "unordered": 0}
                    meta[f"bold_count_{side}"] = {"**": int(bold), "__": 0}  # fmt: skip
                row["conv_metadata"] = meta
            f.write(json.dumps(row) + "\n")


def child_command(argv: list[str], repeat: int = 1) -> tuple[float, float]:
    """(wall s, CPU s) of a command in a child process (its user + system time); the run with
    the least wall time of ``repeat``."""
    runs = []
    for _ in range(repeat):
        before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - wall
        runs.append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return min(runs)


def arenahard_script() -> str:
    """The ``arenahard`` console script beside this interpreter (what ``pip install`` writes),
    else the one on PATH: a version manager's shim on PATH adds its own start-up (pyenv's: a
    tenth of a second)."""
    beside = Path(sys.executable).parent / "arenahard"
    return str(beside) if beside.is_file() else "arenahard"


def battle_files(
    battles: Battles, folder: Path, rounds: int, repeat: int = 1, pairs: int = 0
) -> None:
    """End to end from a battle file, with and without style metadata, beside pyarrow and pandas
    reading the same file; ratios to pyarrow in wall and in CPU time. Each figure is the run
    with the least wall time of ``repeat``; with ``pairs``, the command and pyarrow's read are
    also alternated that many times (``alternated``)."""
    import pandas as pd
    import pyarrow.json as pa_json

    best = f", best of {repeat}" if repeat > 1 else ""
    for style in (False, True):
        path = folder / ("battles_style.jsonl" if style else "battles.jsonl")
        if not path.exists():
            write_battle_file(battles, path, style)
        size = path.stat().st_size / 2**20
        print(
            f"\nbattle file, {len(battles):,} battles {'with' if style else 'without'} conv_metadata ({size:,.0f} MiB{best})"
        )
        pa_wall, pa_cpu, _ = timed(
            "  pyarrow.json.read_json (every core)", lambda: pa_json.read_json(path), repeat
        )
        map_wall, map_cpu, _ = timed(
            "  pyarrow.json.read_json, memory-mapped", lambda: read_mapped(path), repeat
        )
        timed("  pandas.read_json(lines=True)", lambda: pd.read_json(path, lines=True), repeat)
        read_wall, read_cpu, read = timed(
            "  ours: read_battles_jsonl", lambda: read_battles_jsonl(path), repeat
        )
        options = RankingOptions(ci_method="official", rounds=rounds)
        fit_wall, fit_cpu, _ = timed(
            f"  ours: BT + {rounds} rounds (rank)", lambda: rank(read, options), repeat
        )
        print(
            f"  {'ours: read + fit':<56} {read_wall + fit_wall:8.2f} s wall {read_cpu + fit_cpu:8.2f} s CPU"
        )
        command = [arenahard_script(), "leaderboard", "--battles", str(path), "--ci-method", "official", "--rounds", str(rounds)]  # fmt: skip
        wall, cpu = child_command(command, repeat)
        print(
            f"  {'arenahard leaderboard --battles (whole command)':<56} {wall:8.2f} s wall {cpu:8.2f} s CPU"
        )
        print(
            f"  whole command / pyarrow read: {wall / pa_wall:.1f}x wall, {cpu / pa_cpu:.1f}x CPU (target <= 6x); "
            f"/ its memory-mapped read: {wall / map_wall:.1f}x wall, {cpu / map_cpu:.1f}x CPU"
        )
        if pairs:
            alternated(command, lambda: pa_json.read_json(path), pairs)
        inside, alone = bootstrap_cpu(path, read, options, repeat)
        print(
            f"  {'bootstrap_fits CPU: inside the command / alone here':<56} {inside:8.2f} s {alone:8.2f} s"
        )


def alternated(command: list[str], reference: Callable[[], Any], pairs: int) -> None:
    """The whole command and the reference read, one after the other ``pairs`` times: each ratio
    compares two runs taken side by side (the machine's speed drifts within minutes, so the
    best of each, taken a minute apart, can pair a fast hour with a slow one); prints the
    median ratio and the range."""
    walls, cpus = [], []
    for _ in range(pairs):
        wall, cpu = time.perf_counter(), time.process_time()
        reference()
        ref_wall, ref_cpu = time.perf_counter() - wall, time.process_time() - cpu
        cmd_wall, cmd_cpu = child_command(command)
        walls.append(cmd_wall / ref_wall)
        cpus.append(cmd_cpu / ref_cpu)
    print(
        f"  alternated {pairs} times, whole command / pyarrow read: median {statistics.median(walls):.1f}x wall "
        f"({min(walls):.1f}-{max(walls):.1f}x), {statistics.median(cpus):.1f}x CPU ({min(cpus):.1f}-{max(cpus):.1f}x)"
    )


def read_mapped(path: Path) -> Any:
    """pyarrow's JSON reader on the file memory-mapped (as ``read_battles_jsonl`` reads it)."""
    import pyarrow as pa
    import pyarrow.json as pa_json

    with pa.memory_map(str(path)) as mapped:
        return pa_json.read_json(mapped)


TIMED_BOOTSTRAP = """
import sys, time
import inspect_arenahard.stats.estimates as estimates
from inspect_arenahard.cli import main
fits, spent = estimates.bootstrap_fits, []
def timed(*args, **kwargs):
    clock = time.process_time()
    try:
        return fits(*args, **kwargs)
    finally:
        spent.append(time.process_time() - clock)
estimates.bootstrap_fits = timed
main(sys.argv[1:])
print("BOOTSTRAP_CPU", sum(spent), file=sys.stderr)
"""


def bootstrap_cpu(
    path: Path, read: Battles, options: RankingOptions, repeat: int
) -> tuple[float, float]:
    """CPU seconds of ``bootstrap_fits`` inside the command (a child process, its function
    wrapped) and alone in this process on the same battles, interleaved: the least of
    ``repeat`` each. Equal figures mean the command's state (its reader's threads, the parse's
    memory, the frozen heap) costs the bootstrap nothing."""
    import inspect_arenahard.stats.estimates as estimates

    argv = ["leaderboard", "--battles", str(path), "--ci-method", "official", "--rounds", str(options.rounds)]  # fmt: skip
    fits, inside, alone = bootstrap_fits, [], []

    def timed(*args: Any, **kwargs: Any) -> Any:
        clock = time.process_time()
        try:
            return fits(*args, **kwargs)
        finally:
            alone.append(time.process_time() - clock)

    for _ in range(repeat):
        child = subprocess.run(
            [sys.executable, "-c", TIMED_BOOTSTRAP, *argv],
            check=True,
            capture_output=True,
            text=True,
        )
        inside.append(float(child.stderr.rsplit("BOOTSTRAP_CPU", 1)[1]))
        setattr(estimates, "bootstrap_fits", timed)
        try:
            rank(read, options)
        finally:
            setattr(estimates, "bootstrap_fits", fits)
    return min(inside), min(alone)


def timed(label: str, work: Callable[[], Any], repeat: int = 1) -> tuple[float, float, Any]:
    """Run ``work`` ``repeat`` times; print and return the run with the least wall time
    (wall s, CPU s, result)."""
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu, result))
    wall, cpu, result = min(runs, key=lambda run: run[0])
    print(f"{label:<58} {wall:8.2f} s wall {cpu:8.2f} s CPU")
    return wall, cpu, result


def resampling_loop(
    design: Design,
    anchor: int,
    rounds: int,
    block: int,
    solve: Callable[[list[np.ndarray]], np.ndarray],
    seed: int,
) -> tuple[float, float, np.ndarray]:
    """Our resampler draws ``rounds`` resamples, a block of ``block`` at a time, and ``solve``
    fits each block (counts → θ, rounds × models): CPU seconds per round of the draws and of
    the fits, and θ anchored at 0. Every solver runs this loop with the same seed, so it sees
    the very same resamples, alone in its loop as in use (no other library's memory traffic
    between its draws and its fits)."""
    sampler = Resampler(design.cell_weight, np.random.default_rng(seed))
    draw_cpu = fit_cpu = 0.0
    thetas = []
    for start in range(0, rounds, block):
        clock = time.process_time()
        counts = [sampler.draw() for _ in range(min(block, rounds - start))]
        draw_cpu += time.process_time() - clock
        clock = time.process_time()
        theta = solve(counts)
        fit_cpu += time.process_time() - clock
        thetas.append(theta - theta[:, [anchor]])
    return draw_cpu / rounds, fit_cpu / rounds, np.concatenate(thetas)


def pair_points(design: Design) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Cell counts → (points of a, points of b) per pair by one sparse product, as our block
    refit gets its totals (rows are pairs without style features)."""
    cells = np.arange(len(design.cell_row))
    product = sparse.csr_matrix(
        (np.r_[design.cell_points, 1.0 - design.cell_points],
         (np.r_[design.cell_row, design.cell_row + len(design.a)], np.r_[cells, cells])),
        shape=(2 * len(design.a), len(cells)),
    )  # fmt: skip

    def totals(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        both = product @ counts
        return both[: len(design.a)], both[len(design.a) :]

    return totals


def choix_solver(design: Design, init: np.ndarray | None) -> Callable[[np.ndarray], np.ndarray]:
    """choix's ``ilsr_pairwise_dense`` (its solver for dense win matrices; the others take one
    tuple per battle) on the win matrix, started at ``init`` (its default start when None)."""
    import choix

    totals = pair_points(design)

    def solve(counts: np.ndarray) -> np.ndarray:
        won, lost = totals(counts)
        wins = np.zeros((design.n_models, design.n_models))
        wins[design.a, design.b] = won  # a tie is half a win each
        wins[design.b, design.a] = lost
        return choix.ilsr_pairwise_dense(wins, initial_params=init)

    return solve


def evalica_solve(design: Design, counts: np.ndarray) -> np.ndarray:
    import evalica
    import pandas as pd

    keep = counts > 0
    row, points = design.cell_row[keep], design.cell_points[keep]
    winner = np.where(
        points == 1.0,
        evalica.Winner.X,
        np.where(points == 0.0, evalica.Winner.Y, evalica.Winner.Draw),
    )
    result = evalica.bradley_terry(
        design.a[row].tolist(), design.b[row].tolist(), winner.tolist(), index=pd.Index(range(design.n_models)),
        weights=counts[keep].tolist(), tolerance=1e-10, limit=1000,
    )  # fmt: skip
    return np.log(
        result.scores.reindex(range(design.n_models)).to_numpy()
    )  # scores come sorted by value


def arena_rank_solve(design: Design, counts: np.ndarray) -> np.ndarray:
    import jax.numpy as jnp
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    row = design.cell_row  # every cell, empty ones weighing 0: one shape, so JAX compiles once
    dataset = PairDataset(
        competitors=list(design.models), pairs=jnp.asarray(np.column_stack([design.a[row], design.b[row]]).astype(np.int32)),
        outcomes=jnp.asarray(design.cell_points), counts=jnp.asarray(counts), weights=jnp.ones(len(counts)),
        opt_weights=jnp.asarray(counts),
    )  # fmt: skip
    return np.asarray(BradleyTerry(design.n_models).fit(dataset).params["ratings"])


def arena_rank_contextual_solve(
    design: Design, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """arena-rank's contextual (style) Bradley–Terry on the weighted distinct battles, without
    its L2 penalty on the style coefficients (``reg=0``: the same MLE as ours): (θ, γ)."""
    import jax.numpy as jnp
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    row = design.cell_row
    dataset = ContextualPairDataset(
        competitors=list(design.models), pairs=jnp.asarray(np.column_stack([design.a[row], design.b[row]]).astype(np.int32)),
        outcomes=jnp.asarray(design.cell_points), features=jnp.asarray(design.features[row]), weights=jnp.asarray(counts),
    )  # fmt: skip
    model = ContextualBradleyTerry(design.n_models, design.features.shape[1], reg=0.0).fit(dataset)
    return np.asarray(model.params["ratings"]), np.asarray(model.params["coeffs"])


def style_bootstrap(
    design: Design, anchor: int, full: Any, args: argparse.Namespace, seed: int
) -> tuple[float, np.ndarray]:
    """Style-controlled bootstrap on the same resamples three ways: one-step refits
    (``OneStepRefit``, what ``--style-refits auto`` takes at this scale), exact block refits
    (``StyleRefit``, ``--style-refits exact``) and per-round Newton refits (``fit``, the
    reference of both). Prints wall and CPU for the rounds (draws included), the ratios, and
    per round the largest win-rate gap to the exact refit of the same resample; returns (wall
    per one-step round, θ of the exact refits)."""
    rounds, exact_rounds, newton_rounds = args.style_rounds, args.exact_rounds, args.newton_rounds

    def run(count: int, **how: Any) -> tuple[float, float, np.ndarray, np.ndarray]:
        wall, cpu = time.perf_counter(), time.process_time()
        theta, gamma = bootstrap_fits(design, anchor, count, np.random.default_rng(seed), full, **how)  # fmt: skip
        return time.perf_counter() - wall, time.process_time() - cpu, theta, gamma

    wall, one_cpu, theta, gamma = run(rounds, refits="one-step")
    _, exact_cpu, exact_theta, exact_gamma = run(exact_rounds, refits="exact")
    _, newton_cpu, newton_theta, _ = run(newton_rounds, block=False)
    per_round = 100 * np.abs(expit(theta[:exact_rounds]) - expit(exact_theta)).max(axis=1)
    block_gap = 100 * np.abs(expit(exact_theta[:newton_rounds]) - expit(newton_theta)).max()
    one_ms, exact_ms = one_cpu / rounds * 1e3, exact_cpu / exact_rounds * 1e3
    print(
        f"style control bootstrap, {rounds} rounds of one-step refits (--style-refits auto at this scale): "
        f"{wall:.2f} s wall, {one_cpu:.2f} s CPU, draws included ({one_ms:.1f} ms CPU per round)"
    )
    print(
        f"  exact block refits (--style-refits exact): {exact_ms:.1f} ms CPU per round ({exact_rounds} rounds; "
        f"1000 rounds ≈ {exact_ms:.0f} s): one-step {exact_ms / one_ms:.1f}x faster; per-round Newton refits "
        f"(fit): {newton_cpu / newton_rounds * 1e3:.0f} ms per round ({newton_rounds} rounds)"
    )
    print(
        f"  one-step error per round, largest win-rate gap to the exact refit of the same resample (pp), "
        f"over {exact_rounds} rounds: max {per_round.max():.1e}, median {np.median(per_round):.1e}, "
        f"p90 {np.quantile(per_round, 0.9):.1e}; largest |γ gap| {np.abs(gamma[:exact_rounds] - exact_gamma).max():.1e}"
    )  # fmt: skip
    print(f"  exact block refits against per-round Newton refits: largest gap {block_gap:.1e} pp")
    # the bootstrap's own Monte Carlo error: SE of a 2.5% / 97.5% percentile of R rounds,
    # √(p(1 − p)/R) / φ(z_p) · σ for a normal spread σ of the per-model scores
    spread = np.delete(np.std(100 * expit(theta), axis=0), anchor)
    tail = 0.025
    monte_carlo = np.sqrt(tail * (1 - tail) / rounds) / norm.pdf(norm.ppf(tail)) * spread
    print(f"  Monte Carlo SE of a 95% interval's end over {rounds} rounds (normal approximation), per model (pp): "
          f"median {np.median(monte_carlo):.1e}, smallest {monte_carlo.min():.1e}")  # fmt: skip
    return wall / rounds, exact_theta


PEERS = {"evalica": evalica_solve, "arena_rank": arena_rank_solve}
"""Importable module name → per-round solver fed by the shared resampling loop (choix apart)."""


def installed(name: str) -> bool:
    """Whether a peer library (and, for arena-rank, JAX) can be imported."""
    try:
        return importlib.util.find_spec(name) is not None and (
            name != "arena_rank" or importlib.util.find_spec("jax") is not None
        )
    except ImportError:
        return False


def style_comparison(battles: Battles, anchor: int, args: argparse.Namespace) -> None:
    """Style-controlled bootstrap: block refits against exact one-by-one refits, and
    arena-rank's contextual model where it is installed."""
    features = style_matrix(battles.style_a, battles.style_b, battles.weight, STYLE)
    print()
    styled_design = Design.build(
        battles.models, battles.a, battles.b, battles.points, battles.weight, features=features
    )
    styled_full = fit(styled_design, anchor)
    ours_wall, exact_theta = style_bootstrap(styled_design, anchor, styled_full, args, 3)
    if installed("arena_rank"):
        sampler = Resampler(styled_design.cell_weight, np.random.default_rng(3))
        clock, gaps = time.process_time(), []
        for r in range(args.arena_rank_rounds):  # the first resamples of the exact refits
            peer_theta, peer_gamma = arena_rank_contextual_solve(styled_design, sampler.draw())
            gaps.append(np.abs(peer_theta - peer_theta[anchor] - exact_theta[r]).max())
        peer_cpu = (time.process_time() - clock) / args.arena_rank_rounds
        print(f"  arena-rank contextual BT (reg=0): {peer_cpu:.2f} s CPU per round ({args.arena_rank_rounds} rounds; "
              f"1000 rounds ≈ {peer_cpu * 1000 / 60:.0f} min); ours (one-step, wall) faster {peer_cpu / ours_wall:.0f}x; "
              f"max |θ − our exact refits| {max(gaps):.1e} (its L-BFGS stops at gtol 1e-9 of a mean loss)")  # fmt: skip
    else:
        print("  arena-rank: not installed (pip install arena-rank, in a venv with --system-site-packages "
              "if its JAX pins numpy), skipped")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument(
        "--peer-rounds", type=int, default=160, help="rounds of the shared loop (per-round times)"
    )
    parser.add_argument(
        "--style-rounds",
        type=int,
        default=1000,
        help="style-controlled bootstrap rounds (block refits)",
    )
    parser.add_argument(
        "--exact-rounds",
        type=int,
        default=30,
        help="of them refitted exactly (block refits), to measure the one-step error",
    )
    parser.add_argument(
        "--newton-rounds",
        type=int,
        default=3,
        help="of them refitted by per-round Newton (fit), the exact refits' reference",
    )
    parser.add_argument("--arena-rank-rounds", type=int, default=2)
    parser.add_argument(
        "--style-only", action="store_true", help="only the style-controlled bootstrap comparison"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--files", type=Path, metavar="FOLDER",
        help="battle files go here (kept; written when missing; default: a temporary folder)",
    )  # fmt: skip
    parser.add_argument("--files-only", action="store_true", help="only the battle-file end to end")
    parser.add_argument(
        "--best-of", type=int, default=1, metavar="N",
        help="battle-file figures: the run with the least wall time of N",
    )  # fmt: skip
    parser.add_argument(
        "--pairs", type=int, default=0, metavar="N",
        help="battle files: also alternate the command with pyarrow's read N times (median ratio)",
    )  # fmt: skip
    args = parser.parse_args()
    battles = arena_battles(args.models, args.battles, np.random.default_rng(args.seed))
    if args.files_only:
        with tempfile.TemporaryDirectory() as scratch:
            battle_files(battles, args.files or Path(scratch), 1000, args.best_of, args.pairs)
        return
    anchor_name = battles.models[int(np.argmax(np.bincount(np.r_[battles.a, battles.b])))]
    print(
        f"{len(battles):,} battles among {len(battles.models)} models (anchor {anchor_name}, the most played)\n"
    )

    anchor = battles.models.index(anchor_name)

    def fit_and_bootstrap(features: np.ndarray | None, rounds: int) -> None:
        design = Design.build(
            battles.models, battles.a, battles.b, battles.points, battles.weight, features=features
        )
        full = fit(design, anchor)
        bootstrap_fits(design, anchor, rounds, np.random.default_rng(1), full)

    if args.style_only:
        style_comparison(battles, anchor, args)
        return
    wall_bt, cpu_bt, _ = timed(
        "ours: BT fit + 1000 bootstrap rounds (stats level)", lambda: fit_and_bootstrap(None, 1000)
    )
    features = style_matrix(battles.style_a, battles.style_b, battles.weight, STYLE)
    wall_sc, cpu_sc, _ = timed(
        "ours: style control (4 features) fit + 1000 rounds (stats level)",
        lambda: fit_and_bootstrap(features, 1000),
    )
    _, _, table = timed(
        "ours: the same BT table via leaderboard() (+ table building)",
        lambda: leaderboard(battles, rounds=1000, seed=1, ci_method="official"),
    )
    _, _, styled = timed(
        "ours: the same style table via leaderboard()",
        lambda: leaderboard(battles, style=STYLE, rounds=1000, seed=1, ci_method="official"),
    )
    timed(
        "ours: BT fit + sandwich intervals (one fit)",
        lambda: leaderboard(battles, ci_method="sandwich"),
    )
    timed(
        "ours: style control fit + sandwich intervals",
        lambda: leaderboard(battles, style=STYLE, ci_method="sandwich"),
    )

    style_comparison(battles, anchor, args)

    design = Design.build(battles.models, battles.a, battles.b, battles.points, battles.weight)
    full = fit(design, anchor)
    refit = BlockRefit(design, anchor, full)
    rounds = args.peer_rounds
    solvers: dict[str, tuple[Callable[[list[np.ndarray]], np.ndarray], int]] = {}
    if installed("choix"):
        warm = full.theta - full.theta.mean()  # choix's parameters are centred log-strengths
        for label, init in (("choix, warm start", warm), ("choix, default start", None)):
            solve = choix_solver(design, init)
            solvers[label] = (lambda c, f=solve: np.array([f(x) for x in c]), rounds)  # type: ignore[misc]
    else:
        print("choix: not installed (pip install choix), skipped")
    for name, solve in PEERS.items():
        if installed(name):
            laps = rounds if name != "arena_rank" else 3  # seconds per round
            solvers[name] = (lambda c, f=solve: np.array([f(design, x) for x in c]), laps)  # type: ignore[misc]
        else:
            print(f"{name}: not installed (pip install {name.replace('_', '-')}), skipped")
    draw, ours_cpu, ours_theta = resampling_loop(design, anchor, rounds, refit.rounds, refit, 2)
    print(f"\nthe same resampling loop for every solver: {rounds} rounds (same seed, same resamples) in "
          f"blocks of {refit.rounds}; CPU per round: ours {ours_cpu * 1e3:.2f} ms + draw {draw * 1e3:.2f} ms")  # fmt: skip
    for name, (solve, laps) in solvers.items():
        peer_draw, cpu, theta = resampling_loop(design, anchor, laps, refit.rounds, solve, 2)
        gap = float(np.max(np.abs(theta - ours_theta[:laps])))
        print(f"  {name:<22} {cpu * 1e3:7.2f} ms + draw {peer_draw * 1e3:.2f} ms (1000 rounds ≈ {cpu * 1e3:.1f} s); "
              f"max |θ − ours| over {laps} rounds {gap:.1e}; ours faster: fit {cpu / ours_cpu:.1f}x, "
              f"loop (draw included) {(peer_draw + cpu) / (draw + ours_cpu):.1f}x")  # fmt: skip

    halves = battles.select((battles.a < args.models // 2) == (battles.b < args.models // 2))
    try:
        leaderboard(halves, baseline=anchor_name, rounds=1)
    except ValueError as ex:
        print(
            f"\ndisconnected design (two halves never meet) -> ValueError: {str(ex)[:120]} ... {str(ex)[-150:]}"
        )

    with tempfile.TemporaryDirectory() as scratch:
        battle_files(battles, args.files or Path(scratch), 1000, args.best_of, args.pairs)

    print()
    print(f"BT + 1000 rounds: {wall_bt:.2f} s wall, {cpu_bt:.2f} s CPU (target < 5 s)")
    print(f"style control + 1000 rounds: {wall_sc:.2f} s wall, {cpu_sc:.2f} s CPU (target < 10 s); "
          f"coefficients {', '.join(f'{c.name} {c.value:+.3f}' for c in styled.style)}")  # fmt: skip
    print(
        f"top model {table.rows[0].model}: {table.rows[0].score:.1f} [{table.rows[0].lower:.1f}, {table.rows[0].upper:.1f}]"
    )
    print(
        f"process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB (target < 4 GiB; peers included)"
    )


if __name__ == "__main__":
    with threadpool_limits(
        limits=1, user_api="blas"
    ):  # the same single-threaded BLAS for every library
        main()
