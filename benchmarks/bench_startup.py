"""Start-up cost of the ``arenahard`` command: CPU seconds of ``--version``, ``--help`` and each
command's ``--help`` (the parser is built, nothing runs), beside the interpreter alone and the
libraries a command loads once it runs, timed in the same run.

Each figure is the child process's user + system CPU (``resource.RUSAGE_CHILDREN``), best of
``--repeat`` runs: CPU time rather than wall time, so a machine shared with other jobs changes
it little. Target: ``--help`` and ``--version`` under 1 s. The heavy libraries each command's
parser leaves unloaded are listed (``tests/cli/test_fast_start.py`` asserts it). The ranking
code's imports are timed plain and as the console script loads them (numpy's submodules that
only scipy's start-up touches left unexecuted: ``inspect_arenahard.cli.unused_modules``).

    python benchmarks/bench_startup.py
    python benchmarks/bench_startup.py --repeat 5
    python benchmarks/bench_startup.py --logs LOG [LOG ...]   # also read these judge logs
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys

from inspect_arenahard.cli import build_parser

HEAVY = ("torch", "sklearn", "scipy", "inspect_ai", "pandas", "matplotlib", "pyarrow")
LOADED = "import sys; print(*sorted({n.split('.')[0] for n in sys.modules} & set(%r)))" % (HEAVY,)


def cpu_seconds(argv: list[str], repeat: int) -> float:
    """Best CPU (user + system) of ``repeat`` runs of ``argv`` in a child process."""
    best = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def heavy_loaded(args: list[str]) -> str:
    """The heavy libraries loaded after ``arenahard ARGS`` has parsed its arguments."""
    code = (
        "import contextlib, io, sys\nfrom inspect_arenahard.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    try:\n        main({args!r})\n    except SystemExit:\n        pass\n" + LOADED
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip() or "none"


def commands() -> list[str]:
    """The subcommands as a user types them (``import``, ``report``, ...)."""
    [action] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--logs", nargs="+", default=[], help="judge logs: also time the commands that read them"
    )
    options = parser.parse_args()
    repeat = options.repeat
    python = [sys.executable, "-c"]
    print(f"CPU seconds, best of {repeat} (user + system of the child process)\n")
    print("reference")
    for label, code in [
        ("python -c pass", "pass"),
        ("import numpy", "import numpy"),
        ("import scipy.stats", "import scipy.stats"),
        ("import inspect_ai", "import inspect_ai"),
        ("import inspect_arenahard.stats.ranking", "import inspect_arenahard.stats.ranking"),
        (
            "the same, as the console script loads it",
            "from inspect_arenahard.cli.unused_modules import defer_unused_modules\n"
            "defer_unused_modules()\nimport inspect_arenahard.stats.ranking",
        ),
    ]:
        print(f"  {label:<40} {cpu_seconds([*python, code], repeat):6.2f} s")
    print("\narenahard (the console script)                     heavy libraries loaded")
    for args in [["--version"], ["--help"], *([c, "--help"] for c in commands())]:
        seconds = cpu_seconds(["arenahard", *args], repeat)
        print(f"  {' '.join(args):<40} {seconds:6.2f} s   {heavy_loaded(args)}")
    if options.logs:
        print(f"\nreading {len(options.logs)} judge logs (whole command)")
        for command, flags in [
            ("leaderboard", ["--cost", "--rounds", "10"]),
            ("leaderboard", ["--no-audit", "--rounds", "10"]),
            ("audit", []),
        ]:
            args = [command, *options.logs, *flags]
            seconds = cpu_seconds(["arenahard", *args], repeat)
            label = " ".join([command, "LOGS", *flags])
            print(f"  {label:<40} {seconds:6.2f} s   {heavy_loaded(args)}")


if __name__ == "__main__":
    main()
