"""Runnable task file: ``inspect eval tasks/arenahard_probes.py --model-role judge=<model>``, the same
task as ``inspect eval arenahard_probes`` (arguments: :func:`inspect_arenahard.evaluate.probes.arenahard_probes`)."""

from typing import Any

from inspect_ai import Task, task

from inspect_arenahard.evaluate.probes import arenahard_probes as probes_task


@task
def arenahard_probes(**task_args: Any) -> Task:
    """Attack success rate of the judge role against built-in adversarial answers."""
    return probes_task(**task_args)
