"""Arena-Hard-Auto v2.0 (hard prompts + creative writing): `inspect eval tasks/arenahard_v2.py`.

Bind an ensemble of judges as the paper's v2.0 release does, e.g.
`--model-role judge=openai/gpt-4.1,google/gemini-2.5-pro`.
"""

from inspect_ai import Task, task

from inspect_arenahard import arenahard


@task
def arenahard_v2_hard(data_dir: str | None = None) -> Task:
    return arenahard(version="v2.0", data_dir=data_dir, category="hard_prompt")


@task
def arenahard_v2_creative(data_dir: str | None = None) -> Task:
    return arenahard(version="v2.0", data_dir=data_dir, category="creative_writing")
