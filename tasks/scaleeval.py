"""Runnable task file: ``inspect eval tasks/scaleeval.py -T data=<file>``, the same task as
``inspect eval scaleeval`` (arguments: :func:`inspect_arenahard.scaleeval.task.scaleeval`)."""

from typing import Any

from inspect_ai import Task, task

from inspect_arenahard.scaleeval.task import scaleeval as scaleeval_task


@task
def scaleeval(**task_args: Any) -> Task:
    """ScaleEval meta-evaluation of LLM judges via agent debate."""
    return scaleeval_task(**task_args)
