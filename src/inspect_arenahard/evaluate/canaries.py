"""Canary games: a fixed set of answer pairs every ``arenahard`` run judges beside its prompts.

The pairs ship in ``scorers/canaries/`` (real Arena-Hard v0.1 answers; provenance there). Their
games go through the same judge call as every other game, never from Inspect's cache, so two runs
of one judge show whether its verdicts moved (``inspect_arenahard.stats.drift``). The model
under test makes no call for a canary: ``canary_answer`` writes the stored answer and ends
the sample's solver chain. Scores of canaries are unscored (no metric counts them) and carry
``canary: true`` in their metadata, so the log reader keeps their games out of every ranking.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_arenahard.errors import check_number
from inspect_arenahard.evaluate.solvers import BASELINE_ANSWER, BASELINE_MODEL
from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.judging.games import REFERENCE_ANSWER
from inspect_arenahard.judging.templates import data_dir
from inspect_arenahard.stats.game_record import CANARY, is_canary

CANARY_MODEL = "canary_model"
CANARY_ANSWER = "canary_answer"
DEFAULT_CANARIES = 16


@dataclass(frozen=True)
class CanaryPair:
    """One shipped answer pair: ``model``'s answer is judged against ``baseline``'s."""

    question_id: str
    prompt: str
    model: str
    model_answer: str
    baseline: str
    baseline_answer: str

    @property
    def sample_id(self) -> str:
        """The sample id in a run (prefixed: it cannot collide with a prompt id)."""
        return f"canary-{self.question_id}"


@lru_cache(maxsize=1)
def canary_pairs() -> tuple[CanaryPair, ...]:
    """Every shipped canary pair, in file order."""
    path = data_dir("scorers") / "canaries" / "canaries.jsonl"
    return tuple(
        CanaryPair(
            question_id=str(r["question_id"]),
            prompt=r["prompt"],
            model=r["model"],
            model_answer=r["model_answer"],
            baseline=r["baseline"],
            baseline_answer=r["baseline_answer"],
        )
        for _, r in read_jsonl(path)
    )


def check_canaries(canaries: Any) -> int:
    """The ``canaries`` task argument: how many shipped pairs to judge (0 turns them off)."""
    return int(
        check_number("canaries", canaries, integer=True, minimum=0, maximum=len(canary_pairs()))
    )


def canary_samples(count: int) -> list[Sample]:
    """The first ``count`` canary pairs as samples (both answers stored in metadata)."""
    return [
        Sample(
            id=pair.sample_id,
            input=pair.prompt,
            metadata={
                CANARY: True,
                "category": None,
                CANARY_MODEL: pair.model,
                CANARY_ANSWER: pair.model_answer,
                BASELINE_MODEL: pair.baseline,
                BASELINE_ANSWER: pair.baseline_answer,
                REFERENCE_ANSWER: None,
            },
        )
        for pair in canary_pairs()[:count]
    ]


@solver
def canary_answer() -> Solver:
    """For a canary, the stored answer as the output and the solver chain ended (no model
    call); other samples pass through untouched."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if is_canary(state.metadata):
            state.output = ModelOutput.from_content(
                str(state.metadata[CANARY_MODEL]), str(state.metadata[CANARY_ANSWER])
            )
            state.completed = True
        return state

    return solve
