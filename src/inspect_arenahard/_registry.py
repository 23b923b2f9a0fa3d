"""Inspect entry point: importing this module registers every task, solver and scorer.

Inspect namespaces plugin tasks (``inspect_arenahard/arenahard``), but users run the bare
``inspect eval arenahard``. Inspect loads all plugin entry points before it resolves task names,
so registering an unprefixed alias here makes the bare name resolve from any directory.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from inspect_ai import Task
from inspect_ai._eval.registry import (  # inspect-evals-lint: ignore[private_api_imports] -- no public API registers an unprefixed (bare) task name
    task_register,
)

from inspect_arenahard.arena.examiner import autoarena_questions
from inspect_arenahard.arena.peer_battle import autoarena_battle
from inspect_arenahard.curate.annotate import arenahard_annotate
from inspect_arenahard.evaluate.canaries import canary_answer  # noqa: F401
from inspect_arenahard.evaluate.probes import arenahard_probes
from inspect_arenahard.evaluate.scorers import pairwise_judge  # noqa: F401  (registers the scorer)
from inspect_arenahard.evaluate.solvers import answer_with_baseline  # noqa: F401
from inspect_arenahard.evaluate.task import arenahard, arenahard_v2_creative, arenahard_v2_hard
from inspect_arenahard.judging.committee import committee_agreement  # noqa: F401  (registers the metric)
from inspect_arenahard.scaleeval.judgecard import arenahard_judgecard
from inspect_arenahard.scaleeval.task import scaleeval

BARE_TASKS: list[Callable[..., Task]] = [
    arenahard,
    arenahard_v2_hard,
    arenahard_v2_creative,
    arenahard_annotate,
    scaleeval,
    autoarena_questions,
    autoarena_battle,
    arenahard_probes,
    arenahard_judgecard,
]


def register_bare_alias(task_fn: Callable[..., Task]) -> None:
    """Register ``task_fn`` a second time under its unqualified name."""
    name = task_fn.__name__

    @functools.wraps(task_fn)
    def alias(*args: Any, **kwargs: Any) -> Task:
        return task_fn(*args, **kwargs)

    params = list(inspect.signature(task_fn).parameters)
    task_register(task=alias, name=name, attribs={}, params=params)


for _task in BARE_TASKS:
    register_bare_alias(_task)
