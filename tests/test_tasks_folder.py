"""The runnable files in tasks/ work: the eval-set example runs arenahard beside another task."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from inspect_ai import Task, eval_set
from inspect_ai.log import read_eval_log

from inspect_arenahard import arenahard, arenahard_v2_hard
from inspect_arenahard.stats.game_record import is_canary
from tests.helpers.scripted import scripted_model
from tests.helpers.shared_data import shared

pytestmark = pytest.mark.shared_data

TASKS = Path(__file__).resolve().parents[1] / "tasks"


def _load(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(f"tasks_{name}", TASKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_eval_set_example_combines_arenahard_with_another_task(tmp_path: Path) -> None:
    example = _load("eval_set")
    judge = scripted_model(
        "judge",
        lambda m: (
            "GRADE: C" if "GRADE" in m[-1].text or "grade" in m[-1].text.lower() else "[[A=B]]"
        ),
    )
    model = scripted_model("candidate", lambda m: "An answer.")
    ok, logs = eval_set(
        [
            arenahard(data_dir=str(shared("arena-hard-v0.1"))),
            example.mt_bench_reference(str(shared("prompt_pools", "mt_bench"))),
        ],
        model=model,
        model_roles={"judge": judge},
        log_dir=str(tmp_path),
        limit=2,
        display="none",
    )
    assert ok
    assert {log.eval.task.split("/")[-1] for log in logs} == {"arenahard", "mt_bench_reference"}
    for log in logs:
        full = read_eval_log(log.location)
        assert full.status == "success" and len(full.samples or []) == 2


def _prompts(task: Task) -> list[str]:
    """Ids of the benchmark's prompts (the canary pairs that follow them left out)."""
    return [str(s.id) for s in task.dataset if not is_canary(s.metadata)]


def test_thin_task_files_build_tasks() -> None:
    v01 = _load("arenahard_v01").arenahard_v01(data_dir=str(shared("arena-hard-v0.1")))
    assert len(_prompts(v01)) == 500
    v2 = _load("arenahard_v2").arenahard_v2_hard(data_dir=str(shared("arena-hard-v2.0")))
    assert len(_prompts(v2)) == 500
    # the file's task is the registered one
    assert _prompts(v2) == _prompts(arenahard_v2_hard(data_dir=str(shared("arena-hard-v2.0"))))
