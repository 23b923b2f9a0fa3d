"""The task's arguments, declared once: names, checks and docs come from ``TaskOptions``."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from inspect_arenahard.errors import UserError
from inspect_arenahard.evaluate.arguments import TaskOptions, check_task_arg, docstring_args
from inspect_arenahard.evaluate.task import arenahard, arenahard_v2_hard


def test_the_signature_inspect_reads_is_the_declaration() -> None:
    parameters = inspect.signature(arenahard).parameters
    declared = {f.name: f.default for f in dataclasses.fields(TaskOptions)}
    named = {n: p.default for n, p in parameters.items() if p.kind is not p.VAR_KEYWORD}
    assert named == declared
    assert docstring_args().splitlines()[1].strip().startswith("version:")
    assert all(f"    {name}: " in (arenahard.__doc__ or "") for name in declared)


def test_task_args_as_inspect_passes_them_are_checked_and_converted() -> None:
    options = TaskOptions.from_task_args(
        {"version": "v2.0", "judge_retries": "3", "cache": "no", "strong_weight": "2",
         "judge_temperature": 0.5, "category": "hard_prompt,creative_writing"}
    )  # fmt: skip
    assert (options.version, options.judge_retries, options.cache, options.strong_weight) == (
        "v2.0",
        3,
        False,
        2,
    )
    assert options.category == "hard_prompt,creative_writing"  # checked against the data later
    assert TaskOptions.from_task_args({}) == TaskOptions()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("version", "v3", "version='v3' is not one of v0.1, v2.0, custom"),
        ("scorer", "comittee", "did you mean 'committee'?"),
        ("judge_retries", 11, "judge_retries=11 must be at most 10"),
        ("judge_temperature", -1, "judge_temperature=-1 must be at least 0"),
        ("judge_max_tokens", "many", "judge_max_tokens='many' must be an integer"),
        ("strong_weight", 1.5, "strong_weight=1.5 must be a whole number of battles"),
        ("judge_batch", "maybe", "judge_batch='maybe' must be true or false"),
        ("judge", " ", "judge=' ' must be a non-empty string"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_argument(
    name: str, value: object, message: str
) -> None:
    with pytest.raises(UserError, match="^" + name) as caught:
        check_task_arg(name, value)
    assert message in str(caught.value)


def test_unknown_names_are_refused_with_a_suggestion_also_by_the_variants() -> None:
    with pytest.raises(
        UserError, match=r"unknown task argument 'stop_at' \(did you mean 'stop_at_ci'\?\)"
    ):
        TaskOptions.from_task_args({"stop_at": 2})
    with pytest.raises(Exception, match="category is fixed by this task"):
        arenahard_v2_hard(category="creative_writing")
