"""`arenahard --version`, `--help` and every command's `--help` start without the heavy libraries.

Checked by what a fresh interpreter has imported, not by a timing, so a loaded machine cannot
make it flaky; `benchmarks/bench_startup.py` prints the times.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_commands_names_the_module_of_every_command() -> None:
    """`main` builds only the given command's parser from ``COMMANDS``: it must name every
    command's module, and that parser alone must hold the command the whole parser holds."""
    from inspect_arenahard.cli import COMMANDS

    assert sorted(COMMANDS) == sorted(_commands())
    for command in COMMANDS:
        [action] = [
            a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction)
        ]
        assert list(action.choices) == [command]
        assert action.choices[command].format_help() == _subparser(build_parser(), command)


def test_a_command_starts_without_the_other_commands_modules() -> None:
    """`arenahard leaderboard ...` imports no other command's module, nor the package metadata
    (read only for --version)."""
    probe = PROBE.replace('{name.split(".")[0] for name in sys.modules}', "sys.modules")
    out = subprocess.run(
        [sys.executable, "-c", probe, "leaderboard", "--help"], capture_output=True, text=True
    ).stdout
    assert "EXIT 0" in out, out
    loaded = set(out.rsplit("LOADED", 1)[1].split())
    assert "inspect_arenahard.cli.leaderboard" in loaded
    others = {f"inspect_arenahard.cli.{m}" for m in ("metrics", "judges", "curate", "tournament")}
    assert not loaded & others
    assert "importlib.metadata" not in loaded


def _subparser(parser: argparse.ArgumentParser, command: str) -> str:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices[command].format_help()


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


CONSOLE_EXIT = """
import gc, sys
from inspect_arenahard.cli import console, main
sys.argv = ["arenahard", *sys.argv[1:]]
frozen_after_main = (main(sys.argv[1:]), gc.get_freeze_count())
code = console()
print("MAIN", *frozen_after_main, "CONSOLE", code, gc.get_freeze_count())
"""


@pytest.mark.shared_data
def test_the_console_script_leaves_the_heap_frozen_for_its_exit_and_main_does_not() -> None:
    """The process ends after the console script, so its heap is frozen (the interpreter's last
    collection skips what the command built); ``main`` called in-process leaves the collector
    as it was, and both give the same exit code."""
    battles = shared("battles", "lmarena_74e8b6f_arena_hard_battles.jsonl")
    argv = ["leaderboard", "--battles", str(battles), "--ci-method", "official", "--rounds", "2"]
    out = subprocess.run(
        [sys.executable, "-c", CONSOLE_EXIT, *argv], capture_output=True, text=True, check=True
    ).stdout
    words = out.rsplit("MAIN", 1)[1].split()
    main_code, main_frozen, console_code, console_frozen = map(int, words[:2] + words[3:])
    assert main_code == console_code == 0
    assert main_frozen == 0 and console_frozen > 10_000


@pytest.mark.parametrize("argv", [["--version"], ["leaderboard", "--battles", "BATTLES"]])
def test_output_into_a_closed_pipe_ends_the_console_script_quietly(
    argv: list[str], tmp_path: Path
) -> None:
    """``arenahard … | head`` where ``head`` has gone: status 1 and nothing on stderr (no
    traceback), whether the output is one line or a table."""
    battles = tmp_path / "battles.jsonl"
    models = ["alpha", "beta", "gamma", "delta"]
    rows = [
        {"question_id": f"q{k}", "model_a": models[k % 4], "model_b": models[(k + 1) % 4],
         "winner": ["model_a", "model_b", "tie"][k % 3]}
        for k in range(60)
    ]  # fmt: skip
    battles.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = [str(battles) if arg == "BATTLES" else arg for arg in argv]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes a byte
    try:
        done = subprocess.run(
            [sys.executable, "-c", CONSOLE, *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 1


CONSOLE = """
import sys
from inspect_arenahard.cli import console
sys.argv = ["arenahard", *sys.argv[1:]]
sys.exit(console())
"""


IDLE_THREADS = """
import os, sys
import inspect_arenahard.cli as cli
seen = []
def fake_main():
    seen.append(("numpy" in sys.modules, os.environ.get("OPENBLAS_THREAD_TIMEOUT")))
    return 0
cli.main = fake_main
cli.console()
print("SEEN", *seen[0])
"""


@pytest.mark.parametrize("own", [None, "20"])
def test_the_console_script_tells_openblas_not_to_spin_before_it_loads(own: str | None) -> None:
    """Before any command loads numpy (and with it OpenBLAS), the console script sets the idle
    threads' spin to its least (a user's own setting is kept): OpenBLAS reads it only as it
    loads, and its workers otherwise spin a tenth of a second on loading and after each call."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if own is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = own
    out = subprocess.run(
        [sys.executable, "-c", IDLE_THREADS], capture_output=True, text=True, check=True, env=env
    ).stdout
    numpy_loaded, timeout = out.rsplit("SEEN", 1)[1].split()
    assert numpy_loaded == "False"
    assert timeout == (own or "4")


LAZY_NUMPY = """
import contextlib, io, sys
from inspect_arenahard.cli import console
sys.argv = ["arenahard", *sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()):
    code = console()
ran = ("numpy.f2py.crackfortran", "charset_normalizer", "numpy.testing._private.utils")
print("EXIT", code, "scipy.linalg" in sys.modules)
print("BEFORE", *[name in sys.modules for name in ran])
import numpy as np
np.testing.assert_equal(np.arange(3).sum(), 3)
print("F2PY", np.f2py.crackfortran.__name__)
print("AFTER", *[name in sys.modules for name in ran])
"""


@pytest.mark.shared_data
def test_numpy_modules_only_scipys_start_up_touches_run_only_when_used() -> None:
    """The console script ranks a real battle file without running numpy's f2py (and the
    character-set detector it loads) or testing, which loading scipy touches; read from
    afterwards, each loads and works as usual."""
    battles = shared("battles", "lmarena_74e8b6f_arena_hard_battles.jsonl")
    argv = ["leaderboard", "--battles", str(battles), "--ci-method", "official", "--rounds", "2"]
    out = subprocess.run(
        [sys.executable, "-c", LAZY_NUMPY, *argv], capture_output=True, text=True, check=True
    ).stdout
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert lines["EXIT"] == ["0", "True"], out  # it ranked, with scipy loaded
    assert lines["BEFORE"] == ["False"] * 3, out
    assert lines["F2PY"] == ["numpy.f2py.crackfortran"]
    assert lines["AFTER"] == ["True"] * 3, out


def test_deferring_twice_installs_one_finder_and_spares_loaded_modules() -> None:
    """In-process callers may run the console script repeatedly: one finder, and a module
    already loaded keeps its object."""
    from inspect_arenahard.cli.unused_modules import UnusedModules, defer_unused_modules

    before = [sys.modules.get(name) for name in ("numpy", "numpy.testing")]
    previous = list(sys.meta_path)
    try:
        defer_unused_modules()
        defer_unused_modules()
        assert sum(isinstance(f, UnusedModules) for f in sys.meta_path) == 1
        assert UnusedModules().find_spec("numpy.linalg", None) is None  # only the listed ones
        assert [sys.modules.get(name) for name in ("numpy", "numpy.testing")] == before
    finally:
        sys.meta_path[:] = previous


def test_python_dash_m_runs_the_console_script(tmp_path: Path) -> None:
    """``python -m inspect_arenahard`` is the ``arenahard`` command: the same parser, output and
    exit codes (a user error: status 2 and one line)."""
    version = subprocess.run(
        [sys.executable, "-m", "inspect_arenahard", "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert version.startswith("arenahard ") and "(Inspect " in version
    missing = tmp_path / "missing.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "inspect_arenahard", "leaderboard", "--battles", str(missing)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("arenahard leaderboard: error: ")
    assert str(missing) in done.stderr and len(done.stderr.strip().splitlines()) == 1
