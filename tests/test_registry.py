"""Guards: the bare task name resolves from any directory, and the wheel ships its data."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers.inspect_cli import inspect_eval_cli
from tests.helpers.shared_data import shared

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.shared_data
@pytest.mark.parametrize("task_name", ["arenahard", "inspect_arenahard/arenahard"])
def test_task_name_resolves_from_any_directory(task_name: str, tmp_path: Path) -> None:
    args = [task_name, "--model", "mockllm/model", "--model-role", "judge=mockllm/model",
            "-T", f"data_dir={shared('arena-hard-v0.1')}", "--limit", "1"]  # fmt: skip
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs")
    assert log.status == "success"
    assert log.eval.task_args["data_dir"] == str(shared("arena-hard-v0.1"))
    [sample] = log.samples or []
    assert "pairwise_judge" in (sample.scores or {})


@pytest.mark.shared_data
def test_a_v2_variant_runs_by_name(tmp_path: Path) -> None:
    """``inspect eval arenahard_v2_hard`` resolves from any directory: v2.0, hard prompts only,
    against that category's baseline; other ``-T`` arguments pass through."""
    args = ["arenahard_v2_hard", "--model", "mockllm/model", "--model-role", "judge=mockllm/model",
            "-T", f"data_dir={shared('arena-hard-v2.0')}", "-T", "judge_retries=0", "--limit", "1"]  # fmt: skip
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs")
    assert log.status == "success"
    assert (log.eval.metadata or {})["arenahard_version"] == "v2.0"
    [sample] = log.samples or []
    score = (sample.scores or {})["pairwise_judge"]
    assert (sample.metadata or {})["category"] == "hard_prompt"
    assert (score.metadata or {})["baseline"] == "o3-mini-2025-01-31"


def test_bare_name_is_registered_by_the_entry_point() -> None:
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_lookup

    ensure_entry_points()
    for bare in (
        "arenahard",
        "arenahard_v2_hard",
        "arenahard_v2_creative",
        "arenahard_annotate",
        "scaleeval",
        "autoarena_questions",
        "autoarena_battle",
        "arenahard_probes",
        "arenahard_judgecard",
    ):
        assert registry_lookup("task", bare) is not None, bare
        assert registry_lookup("task", f"inspect_arenahard/{bare}") is not None, bare
    assert registry_lookup("task", "inspect_arenahard/arenahard") is not None
    assert registry_lookup("scorer", "inspect_arenahard/pairwise_judge") is not None


def test_stats_core_has_no_inspect_imports() -> None:
    code = "import sys, inspect_arenahard.stats, inspect_arenahard.judging.verdicts, inspect_arenahard.judging.style_features; " \
           "import pkgutil, importlib; " \
           "[importlib.import_module('inspect_arenahard.stats.' + m.name) for m in pkgutil.iter_modules(inspect_arenahard.stats.__path__)]; " \
           "print(any(k == 'inspect_ai' or k.startswith('inspect_ai.') for k in sys.modules))"  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"


@pytest.mark.slow
def test_wheel_ships_templates_and_configs(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    [wheel] = tmp_path.glob("inspect_arenahard-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in [
        "inspect_arenahard/scorers/templates/judge_system.txt",
        "inspect_arenahard/scorers/configs/arena-hard-v0.1.yaml",
        "inspect_arenahard/_registry.py",
    ]:
        assert required in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[inspect_ai]" in text and "inspect_arenahard._registry" in text
    assert "arenahard = inspect_arenahard.cli:console" in text


def test_public_api_exports_every_task_for_type_checkers() -> None:
    """Every registered task is importable from the package root, listed in ``__all__`` and
    imported under ``TYPE_CHECKING`` (so IDEs and type checkers see the same names), and the
    package ships ``py.typed``."""
    import ast
    from pathlib import Path

    import inspect_arenahard
    from inspect_arenahard._registry import BARE_TASKS

    for task_fn in BARE_TASKS:
        if task_fn.__name__ == "scaleeval":  # the subpackage's name: exported there instead
            from inspect_arenahard.scaleeval.task import scaleeval

            assert scaleeval is task_fn
            continue
        assert task_fn.__name__ in inspect_arenahard.__all__
        assert getattr(inspect_arenahard, task_fn.__name__) is task_fn
    init = Path(inspect_arenahard.__file__)
    tree = ast.parse(init.read_text(encoding="utf-8"))
    guarded = next(
        n
        for n in tree.body
        if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
    )
    typed = {
        alias.name
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == set(inspect_arenahard.__all__) - {"__version__"}
    assert set(inspect_arenahard.__all__) == {*inspect_arenahard._EXPORTS, "__version__"}
    assert (init.parent / "py.typed").is_file()


_SRC = Path(__file__).resolve().parents[1] / "src" / "inspect_arenahard"
SUBPACKAGES = tuple(
    sorted(
        ".".join(init.parent.relative_to(_SRC).parts)
        for init in _SRC.rglob("__init__.py")
        if init.parent != _SRC
    )
)
NAMED_EXPORTS = ("cli", "report.page")
"""Subpackages with names of their own; every other one lists its modules as its public names."""


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_all_names_are_importable(name: str) -> None:
    """Every name in a subpackage's ``__all__`` imports (``import *`` fails on a stale entry),
    none twice; a subpackage of modules lists every public module."""
    import importlib

    package = importlib.import_module(f"inspect_arenahard.{name}")
    listed = package.__all__
    assert listed and len(set(listed)) == len(listed)
    namespace: dict[str, object] = {}
    exec(f"from {package.__name__} import *", namespace)
    assert set(listed) <= set(namespace)
    if name not in NAMED_EXPORTS:
        public = {
            m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")
        }
        assert set(listed) == public
