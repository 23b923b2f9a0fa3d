"""Arena-Hard-Auto v2.0 (hard prompts + creative writing): `inspect eval tasks/arenahard_v2.py`.

The two categories are also registered tasks of the package: `inspect eval arenahard_v2_hard`
and `inspect eval arenahard_v2_creative` work by name from any directory.

Bind an ensemble of judges as the paper's v2.0 release does, e.g.
`--model-role judge=openai/gpt-4.1,google/gemini-2.5-pro`.
"""

from typing import Any

from inspect_ai import Task, task

from inspect_arenahard import arenahard_v2_creative as creative
from inspect_arenahard import arenahard_v2_hard as hard


@task
def arenahard_v2_hard(data_dir: str | None = None, **task_args: Any) -> Task:
    return hard(data_dir=data_dir, **task_args)


@task
def arenahard_v2_creative(data_dir: str | None = None, **task_args: Any) -> Task:
    return creative(data_dir=data_dir, **task_args)
