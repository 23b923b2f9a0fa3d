"""Runnable task file: ``inspect eval tasks/arenahard_annotate.py -T pool=work/prompts.parquet --model ...``.

The task lives in :mod:`inspect_arenahard.curate.annotate` (registered as ``arenahard_annotate``
through the package's Inspect entry point); Inspect finds tasks in a file by their ``@task``
decorator, hence this thin wrapper. Other ``-T`` arguments (``screen_min_score``, ``sample``,
``seed``, ``temperature``, ``max_tokens``, ``cache``) pass through.
"""

from typing import Any

from inspect_ai import Task, task

from inspect_arenahard.curate import annotate


@task
def arenahard_annotate(pool: str, **task_args: Any) -> Task:
    return annotate.arenahard_annotate(pool=pool, **task_args)
