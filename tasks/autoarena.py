"""Runnable task file: ``inspect eval tasks/autoarena.py@autoarena_battle -T questions=q.jsonl``,
the same tasks as ``inspect eval autoarena_questions`` / ``autoarena_battle`` (arguments:
:mod:`inspect_arenahard.arena.examiner`, :mod:`inspect_arenahard.arena.peer_battle`)."""

from typing import Any

from inspect_ai import Task, task

from inspect_arenahard.arena.examiner import autoarena_questions as questions_task
from inspect_arenahard.arena.peer_battle import autoarena_battle as battle_task


@task
def autoarena_questions(**task_args: Any) -> Task:
    """Auto-Arena examiner: battle questions for the eight domains."""
    return questions_task(**task_args)


@task
def autoarena_battle(**task_args: Any) -> Task:
    """Auto-Arena peer battle of --model against the opponent role, judged by the committee role."""
    return battle_task(**task_args)
