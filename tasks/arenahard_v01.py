"""Arena-Hard-Auto v0.1 as a runnable task file: `inspect eval tasks/arenahard_v01.py --model ...`.

Thin wrapper: everything lives in inspect_arenahard.evaluate.task; this file only pins the arguments.
"""

from inspect_ai import Task, task

from inspect_arenahard import arenahard


@task
def arenahard_v01(data_dir: str | None = None) -> Task:
    return arenahard(version="v0.1", data_dir=data_dir)
