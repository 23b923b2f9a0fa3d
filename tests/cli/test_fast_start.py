"""`arenahard --version`, `--help` and every command's `--help` start without the heavy libraries.

Checked by what a fresh interpreter has imported, not by a timing, so a loaded machine cannot
make it flaky; `benchmarks/bench_startup.py` prints the times.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from inspect_arenahard.cli import build_parser
from tests.helpers.shared_data import shared

HEAVY = ("torch", "sklearn", "scipy", "inspect_ai", "pandas", "matplotlib", "pyarrow")

PROBE = """
import contextlib, io, sys
from inspect_arenahard.cli import build_parser, main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:]) if sys.argv[1:] else build_parser() and 0
    except SystemExit as exit_:
        code = exit_.code
print("EXIT", code)
print("LOADED", *sorted({name.split(".")[0] for name in sys.modules}))
"""


def _commands() -> list[str]:
    [action] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


def _loaded(*argv: str, exit_code: int = 0) -> set[str]:
    """The top-level packages a fresh interpreter has imported after ``arenahard ARGV``."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True
    ).stdout
    assert f"EXIT {exit_code}" in out, out
    return set(out.rsplit("LOADED", 1)[1].split())


@pytest.mark.parametrize("argv", [["--version"], ["--help"], []], ids=["version", "help", "parser"])
def test_starting_loads_no_heavy_library(argv: list[str]) -> None:
    loaded = _loaded(*argv)
    assert "inspect_arenahard" in loaded
    assert not loaded & set(HEAVY), f"arenahard {' '.join(argv)} imported {loaded & set(HEAVY)}"


@pytest.mark.parametrize("command", _commands())
def test_a_commands_help_loads_no_heavy_library(command: str) -> None:
    loaded = _loaded(command, "--help")
    assert not loaded & set(HEAVY), f"arenahard {command} --help imported {loaded & set(HEAVY)}"


def test_a_command_that_ranks_still_loads_the_statistics() -> None:
    """The probe sees imports: a command past its parser loads scipy (guards the probe itself)."""
    loaded = _loaded("power", "--games", "missing.jsonl", exit_code=2)
    assert "scipy" in loaded


RANKING_PROBE = """
import contextlib, io, sys
from inspect_arenahard.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print("EXIT", code)
print("LOADED", *sorted(sys.modules))
"""


@pytest.mark.shared_data
def test_ranking_a_battle_file_loads_only_what_the_fit_needs() -> None:
    """`leaderboard --battles` ranks a real battle file with numpy, pyarrow and scipy's sparse,
    linear-algebra and special functions: no Inspect, pandas or plotting, and no scipy.stats
    (0.4 s of start-up, a sixth of the whole command on a million battles)."""
    battles = shared("battles", "lmarena_74e8b6f_arena_hard_battles.jsonl")
    argv = ["leaderboard", "--battles", str(battles), "--ci-method", "official", "--rounds", "5"]
    out = subprocess.run(
        [sys.executable, "-c", RANKING_PROBE, *argv], capture_output=True, text=True, check=True
    ).stdout
    assert "EXIT 0" in out, out
    loaded = set(out.rsplit("LOADED", 1)[1].split())
    assert {"scipy.sparse", "scipy.linalg", "pyarrow.json"} <= loaded  # the probe sees the fit
    heavy = {m for m in loaded if m.split(".")[0] in set(HEAVY) - {"scipy", "pyarrow"}}
    assert not heavy, f"leaderboard --battles imported {sorted(heavy)[:5]}"
    assert not {m for m in loaded if m.startswith("scipy.stats")}


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("command", "flags"),
    [("leaderboard", ["--cost"]), ("leaderboard", ["--no-audit"]), ("audit", [])],
    ids=["cost-and-audit", "plain", "audit"],
)
def test_reading_judge_logs_loads_neither_inspect_nor_scikit_learn(
    tmp_path, command: str, flags: list[str]
) -> None:
    """`leaderboard LOGS` and `audit LOGS` read zstd-compressed `.eval` archives, audit the
    recorded answers and cost the runs without importing Inspect (2 s of start-up),
    scikit-learn or scipy.stats: those load only where a full sample's text is vectorised, a log
    is not an archive or is a probe log."""
    from inspect_arenahard.logs.importer import import_judgments

    logs = tmp_path / "logs"
    import_judgments(shared("arena-hard-v0.1"), "gpt-4o", logs)
    archives = sorted(logs.glob("*.eval"))
    assert archives
    rounds = ["--rounds", "5"] if command == "leaderboard" else []
    argv = [command, *map(str, archives), *rounds, *flags]
    out = subprocess.run(
        [sys.executable, "-c", RANKING_PROBE, *argv], capture_output=True, text=True, check=True
    ).stdout
    assert "EXIT 0" in out, out
    loaded = set(out.rsplit("LOADED", 1)[1].split())
    assert "inspect_arenahard.logs.reader" in loaded  # the probe saw the logs read
    heavy = {m.split(".")[0] for m in loaded} & set(HEAVY) - {"scipy"}
    assert not heavy, f"{command} LOGS {' '.join(flags)} imported {sorted(heavy)}"
    assert not {m for m in loaded if m.startswith("scipy.stats")}
