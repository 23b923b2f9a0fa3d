"""Reading judge logs: 60 logs × 500 samples through ``logs.read_games`` (headers + sample
summaries) versus the slow reference (reading every full log with ``read_eval_log``), and
``arenahard leaderboard LOGS --cost`` (games, audit flags and cost from one read of each log)
against ``read_games`` alone, with the audit's and the cost's shares apart.

Logs are built from the real arena-hard v0.1 questions and answers in ../shared/data (16 models'
answers, cycled to 60 runs) with full judge explanations, so sizes are realistic.

    python benchmarks/bench_logs.py [--logs 60] [--keep DIR] [--repeat 3] [--gc-threshold N]

Targets: ``read_games`` < 10 s for 60 × 500; ``leaderboard --cost`` ≤ 1.2× ``read_games``.
Prints wall and CPU times (the ratios in CPU seconds hold on a loaded machine) and peak Python
memory (tracemalloc, measured in a separate call). The logs are written by the importer, so
their scores carry the audit and usage records that a leaderboard reads from the summaries.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import random
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path

from inspect_ai.log import read_eval_log

from inspect_arenahard.cli import main as cli_main
from inspect_arenahard.evaluate.dataset import load_answers, load_questions
from inspect_arenahard.judging.games import Game
from inspect_arenahard.logs.importer import _eval_log, _sample, _Source
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.stats.verdict_points import LABELS

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "arena-hard-v0.1"


def build_logs(out: Path, n_logs: int, seed: int = 0) -> None:
    from inspect_ai.log import write_eval_log

    rng = random.Random(seed)
    questions = load_questions(DATA / "question.jsonl")
    files = sorted((DATA / "model_answer").glob("*.jsonl"))
    baseline = load_answers(DATA / "model_answer" / "gpt-4-0314.jsonl")
    answers = {p.stem: load_answers(p) for p in files}
    for i in range(n_logs):
        model = files[i % len(files)].stem
        name = f"{model}-run{i}"
        source = _Source(
            {q.id: q for q in questions},
            {name: answers[model], "gpt-4-0314": baseline},
            "v0.1",
            "gpt-4-0314",
            3,
            "cl100k_base",
        )
        samples = []
        for q in questions:
            games = [
                Game(
                    "openai/gpt-4.1",
                    g,
                    "B" if g == 1 else "A",
                    rng.choice(LABELS),
                    True,
                    1,
                    "judge reasoning " * 120,
                )
                for g in (1, 2)
            ]
            record = {"games": [{"user_prompt": ""}, {"user_prompt": ""}]}
            samples.append(
                _sample(q.id, q.prompt, q.category, name, "gpt-4-0314", games, source, record)
            )
        log = _eval_log(files[i % len(files)], name, "openai/gpt-4.1", "v0.1", samples, 3)
        write_eval_log(log, str(out / f"run{i:03d}.eval"))


def log_folder(keep: Path | None, logs: int, prefix: str) -> Path:
    """``keep`` (or a new temporary folder) holding at least ``logs`` built logs."""
    folder = keep or Path(tempfile.mkdtemp(prefix=prefix))
    folder.mkdir(parents=True, exist_ok=True)
    if len(list(folder.glob("*.eval"))) < logs:
        t = time.perf_counter()
        build_logs(folder, logs)
        print(f"built {logs} logs × 500 samples in {time.perf_counter() - t:.1f}s "
              f"({sum(p.stat().st_size for p in folder.glob('*.eval')) / 2**20:.0f} MiB)")  # fmt: skip
    return folder


def full_read_seconds(folder: Path, logs: int) -> float:
    """Seconds per log of Inspect's full reader (the slow reference), over the first ``logs`` logs."""
    paths = sorted(folder.glob("*.eval"))[:logs]
    t = time.perf_counter()
    for path in paths:
        read_eval_log(str(path))
    return (time.perf_counter() - t) / len(paths)


def read_games_seconds(folder: Path) -> tuple[float, float]:
    """(CPU, wall) seconds of ``read_games`` on ``folder``."""
    t, cpu = time.perf_counter(), time.process_time()
    result = read_games([folder])
    del result  # not kept alive beside the commands timed next (each collection rescans it)
    return time.process_time() - cpu, time.perf_counter() - t


def leaderboard_seconds(folder: Path, flags: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``arenahard leaderboard folder *flags`` (its output discarded)."""
    sink = io.StringIO()
    t, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = cli_main(["leaderboard", str(folder), "--rounds", "10", *flags])
    if code != 0:
        raise SystemExit(f"leaderboard {' '.join(flags)} failed:\n{sink.getvalue()[-2000:]}")
    return time.perf_counter() - t, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", type=int, default=60)
    parser.add_argument("--keep", type=Path, default=None, help="reuse/keep logs in this folder")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each command this many times, keep the least CPU",
    )
    parser.add_argument(
        "--gc-threshold",
        type=int,
        default=None,
        help="an experiment: after the imports, freeze the collector's heap and set its first "
        "threshold to N, for the reference and every command alike (the package never does)",
    )
    args = parser.parse_args()
    folder = log_folder(args.keep, args.logs, "bench-logs-")
    if args.gc_threshold is not None:
        leaderboard_seconds(folder, ["--cost"])  # the imports first: they are frozen with the rest
        gc.collect()
        gc.freeze()
        gc.set_threshold(args.gc_threshold, 10, 10)
        print(f"collector: heap frozen after the imports, first threshold {args.gc_threshold}")

    read_games([folder])  # warm: imports and the file cache, as for every figure below
    timings = []
    for _ in range(args.repeat):
        t, cpu = time.perf_counter(), time.process_time()
        result = read_games([folder])
        games, runs = len(result.games), len(result.runs)
        del result  # not kept alive beside the commands timed next (each collection rescans it)
        timings.append((time.process_time() - cpu, time.perf_counter() - t))
    ours_cpu, ours = min(timings)
    tracemalloc.start()
    read_games([folder])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"read_games: {games} games from {runs} logs in {ours:.2f}s "
          f"({ours_cpu:.2f}s CPU; target < 10 s), peak {peak / 2**20:.0f} MiB")  # fmt: skip
    leaderboard_seconds(folder, ["--cost"])  # warm: the ranking's and the audit's imports
    for flags in ([], ["--cost"], ["--cost", "--no-audit"], ["--no-audit"]):
        # each command alternates with read_games: the machine's speed drifts within minutes,
        # so a ratio compares only timings taken side by side
        commands, references = [], []
        for _ in range(args.repeat):
            references.append(read_games_seconds(folder))
            commands.append(leaderboard_seconds(folder, flags)[::-1])
        cpu, seconds = min(commands)
        ref_cpu, ref = min(references)
        print(f"arenahard leaderboard LOGS {' '.join(flags)}: {seconds:.2f}s = {seconds / ref:.2f}× read_games; "
              f"CPU {cpu:.2f}s = {cpu / ref_cpu:.2f}× {'(target ≤ 1.2×)' if flags == ['--cost'] else ''}"
              f" (read_games beside it: {ref:.2f}s, {ref_cpu:.2f}s CPU)")  # fmt: skip

    measured = min(5, args.logs)
    per_log = full_read_seconds(folder, measured)
    print(f"reference (full read_eval_log): {per_log:.2f}s per log → {per_log * args.logs:.1f}s for {args.logs} logs "
          f"(measured on {measured}); speed-up {per_log * args.logs / ours:.1f}×")  # fmt: skip
    if args.keep is None:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
