"""Solvers: the model answers; a live baseline or reference model answers beside it.

Stored baseline answers arrive in sample metadata from the dataset. When the ``baseline`` (or
``reference``) model role is bound, that model answers the same prompt in the same run and its
answer is written to the same metadata key, so the judges never need to know where it came from.
"""

from __future__ import annotations

from typing import cast

from inspect_ai.model import ChatMessageUser, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from inspect_arenahard.judging.games import REFERENCE_ANSWER, role_bound

BASELINE_ANSWER = "baseline_answer"
BASELINE_MODEL = "baseline_model"


async def _answer(model: Model, prompt: str) -> str:
    output = await model.generate([ChatMessageUser(content=prompt)])
    return output.completion


@solver
def answer_with_baseline() -> Solver:
    """Generate the model's answer, plus live baseline/reference answers where roles are bound."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        prompt = state.input_text
        extra: dict[str, Model] = {}
        if state.metadata.get(BASELINE_ANSWER) is None and role_bound("baseline"):
            extra[BASELINE_ANSWER] = get_model(role="baseline", required=True)
        if state.metadata.get(REFERENCE_ANSWER) is None and role_bound("reference"):
            extra[REFERENCE_ANSWER] = get_model(role="reference", required=True)

        async def main() -> TaskState:
            return await generate(state)

        results = await collect(main(), *(_answer(model, prompt) for model in extra.values()))
        for key, text in zip(extra, results[1:]):
            state.metadata[key] = text
        if BASELINE_ANSWER in extra:
            state.metadata[BASELINE_MODEL] = str(extra[BASELINE_ANSWER])
        return cast(TaskState, results[0])  # collect() types a mixed gather as list[object]

    return solve
