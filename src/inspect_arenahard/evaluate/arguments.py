"""The ``arenahard`` task's arguments, declared once.

``TaskOptions`` is the one declaration: its fields are the ``-T`` names and defaults (the
task function's signature is made from them, so Inspect records and validates the same names),
their types and bounds are the validation (``check_task_arg``, one line naming the argument),
and their help is the task's docstring and the argument table of docs/evaluate.md
(``markdown_table``, checked by ``tests/test_docs.py``).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from inspect_arenahard.errors import UserError, check_bool, check_choice, check_number, did_you_mean
from inspect_arenahard.evaluate.canaries import DEFAULT_CANARIES, check_canaries
from inspect_arenahard.stats.verdict_points import check_strong_weight

Version = Literal["v0.1", "v2.0", "custom"]
ScorerName = Literal["pairwise", "committee"]


def _arg(
    default: Any,
    help: str,
    shown: str | None = None,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    check: Callable[[str, Any], Any] | None = None,
    row: str | None = None,
) -> Any:
    """A task argument: its default, its help (the docstring and the docs table), the default as
    the docs show it, its bounds or its own check, and (``row``) the longer text of the docs table."""
    return field(
        default=default,
        metadata={
            "help": help,
            "shown": shown
            if shown is not None
            else "—"
            if default is None
            else f"`{_literal(default)}`",
            "minimum": minimum,
            "maximum": maximum,
            "check": check,
            "row": row or help,
        },
    )


def _literal(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _strong_weight(name: str, value: Any) -> int:
    try:
        return check_strong_weight(value, name)
    except ValueError as ex:
        raise UserError(str(ex)) from None


def _checked_by_its_reader(name: str, value: Any) -> Any:
    """Arguments whose check needs more than their value: the categories (checked against the
    data) and the stopping rule (``inspect_arenahard.evaluate.adaptive.stopping_rule``, its
    arguments together); both run while the task is built, before any model call."""
    return value


@dataclass(frozen=True)
class TaskOptions:
    """Every ``-T`` argument of the ``arenahard`` task, with its default."""

    version: Version = _arg(
        "v0.1",
        "``v0.1`` (500 prompts, baseline gpt-4-0314), ``v2.0`` (500 hard prompts vs o3-mini + 250 "
        "creative writing vs gemini-2.0-flash) or ``custom``.",
        row="`v0.1` (500 prompts, baseline `gpt-4-0314`, default judge `gpt-4-1106-preview`), "
        "`v2.0` (500 hard prompts vs `o3-mini-2025-01-31` + 250 creative-writing prompts vs "
        "`gemini-2.0-flash-001`, default judge `gpt-4.1`), or `custom`",
    )
    data_dir: str | None = _arg(
        None,
        "Local folder in arena-hard-auto's layout (``question.jsonl``, "
        "``model_answer/<model>.jsonl``), either schema. Default: the official release from "
        "the Hugging Face hub (not for ``custom``).",
        "Hugging Face hub",
        row="a local folder in arena-hard-auto's layout: `question.jsonl` + "
        "`model_answer/<model>.jsonl`, legacy (`question_id`, `turns`, `choices`) or 2025 schema "
        "(`uid`, `prompt`, `messages`). Without it the official release is downloaded from the "
        "hub (`lmarena-ai/arena-hard-auto`, pinned to commit `15f3746e` (the 2025-05-01 release) "
        "in `scorers/configs/hub.yaml`, override with `ARENAHARD_HUB_REVISION`)",
    )
    dataset: str | None = _arg(
        None,
        "A prompt JSONL (``id``, ``prompt``, optional ``category``, ``cluster``), e.g. from "
        "``arenahard curate select``; replaces ``question.jsonl``.",
        row="a prompt JSONL instead of `question.jsonl`: `id`, `prompt`, optional `category`, "
        "`cluster`, `topic`, `reference` (e.g. the output of `arenahard curate select`)",
    )
    baseline: str | None = _arg(
        None,
        "Model whose stored answers are the baseline (default per version). Binding the "
        "``baseline`` model role instead generates baseline answers live.",
        "per version",
        row="model whose stored answers (`model_answer/<baseline>.jsonl`) are the baseline; in "
        "v2.0 the default depends on the category",
    )
    category: str | list[str] | None = _arg(
        None,
        "Keep only these categories (comma-separated), e.g. ``hard_prompt``.",
        "all",
        check=_checked_by_its_reader,
        row="keep only these categories, comma-separated (`hard_prompt`, `creative_writing`)",
    )
    reference: str | None = _arg(
        None,
        "Reference answers (a model name in ``model_answer/`` or a JSONL file) shown to judges; "
        "or bind the ``reference`` model role to generate them live.",
        row="reference answers shown to judges (MT-Bench style grading for math/code): a model "
        "name in `model_answer/` or a JSONL file",
    )
    judge: str | None = _arg(
        None,
        "Default judge when the ``judge`` role is unbound (default per version).",
        "per version",
        row="judge used when the `judge` role is not bound",
    )
    judge_max_tokens: int | None = _arg(
        None,
        "Judge output limit (default per version).",
        "per version",
        minimum=1,
        row="judge output limit (≥ 1)",
    )
    judge_temperature: float | None = _arg(
        None,
        "Judge temperature (default per version: 0).",
        "per version (`0`)",
        minimum=0,
        maximum=2,
        row="judge temperature (0–2)",
    )
    judge_retries: int = _arg(
        1,
        "Follow-up turns asking a judge for a missing verdict label.",
        minimum=0,
        maximum=10,
        row="follow-up turns asking a judge for a missing verdict label (0–10)",
    )
    strong_weight: int | None = _arg(
        None,
        "Battles a significant (``>>``) verdict counts for, a whole number ≥ 1 (default per "
        "version: 3).",
        "per version (`3`)",
        check=_strong_weight,
        row="battles a significant (`>>`) verdict counts for: a whole number, at least 1 (as "
        "`arenahard leaderboard --strong-weight`)",
    )
    cache: bool = _arg(
        True,
        "Cache judge replies so re-runs cost no judge calls.",
        row="cache judge replies: a re-run costs no judge calls",
    )
    scorer: ScorerName = _arg(
        "pairwise",
        "``pairwise`` (the judges bound to ``judge``, independently) or ``committee`` (the "
        "models bound to ``committee`` discuss each game; same score contract).",
        row="`committee` for a discussing committee of judges (role `committee`, see "
        "[Committees and ScaleEval](committee_and_scaleeval.md))",
    )
    committee_rounds: int = _arg(
        1,
        "Discussion rounds of the committee after its independent verdicts.",
        minimum=0,
        maximum=10,
        row="discussion rounds of the committee (0–10)",
    )
    stop_at_ci: float | None = _arg(
        None,
        "Stop answering and judging once the anytime-valid interval of the win-rate against the "
        "baseline has at most this half-width (points); see docs/adaptive.md.",
        check=_checked_by_its_reader,
        row="adaptive judging: stop once the win-rate interval vs the baseline has this "
        "half-width in points ([adaptive judging](adaptive.md))",
    )
    stop_when: str | None = _arg(
        None,
        "``decided``: stop once that interval excludes every ``versus`` score.",
        check=_checked_by_its_reader,
        row="`stop_when=decided`: stop once the interval excludes each reference score in `versus`",
    )
    versus: str | list[str] | None = _arg(
        None,
        "Reference scores to decide against, ``name:score,name:score`` (points).",
        check=_checked_by_its_reader,
        row="the reference scores of `stop_when=decided`: `name:score,…` (points)",
    )
    max_prompts: int | None = _arg(
        None,
        "Answer and judge at most this many prompts (in the stratified order).",
        "all",
        check=_checked_by_its_reader,
        row="the most prompts an adaptive run judges",
    )
    stop_alpha: float = _arg(
        0.05,
        "1 − confidence of the anytime-valid interval (default 0.05).",
        check=_checked_by_its_reader,
        row="error level of the anytime-valid interval used to stop",
    )
    prompt_seed: int = _arg(
        0,
        "Seed of the stratified random order prompts are visited in.",
        check=_checked_by_its_reader,
        row="seed of the stratified visit order of an adaptive run",
    )
    judge_batch: bool = _arg(
        False,
        "Send judge calls through the providers' batch APIs (cheaper, slower).",
        row="send judge calls through the providers' batch APIs (cheaper, slower)",
    )

    canaries: int = _arg(
        DEFAULT_CANARIES,
        "Canary pairs judged in both positions beside the prompts (shipped answers, never "
        "cached, never ranked; 0 turns them off): two runs of one judge whose canary verdicts "
        "differ beyond chance are not pooled (see docs/quality.md).",
        check=lambda name, value: check_canaries(value),
        row="canary pairs (shipped answers) judged in both positions with every run, never "
        "cached, never ranked; runs of one judge whose canary verdicts differ are not pooled "
        "([canaries and drift](quality.md#canaries-and-drift)); `0` turns them off. They follow "
        "the prompts in the dataset, so `--limit`/`--sample-id` below the whole dataset leave "
        "them out",
    )

    @classmethod
    def from_task_args(cls, args: Mapping[str, Any]) -> TaskOptions:
        """The options of ``-T`` arguments (strings or YAML values), every one checked before any
        data is read or model called; an unknown name is refused with a suggestion (Inspect would
        only warn and run with the default)."""
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(args) - set(known))
        if unknown:
            name = unknown[0]
            raise UserError(
                f"unknown task argument {name!r}{did_you_mean(name, known)}; known: {', '.join(known)}"
            )
        return cls(**{name: check_task_arg(name, value) for name, value in args.items()})


_FIELDS = {f.name: f for f in dataclasses.fields(TaskOptions)}
_HINTS = typing.get_type_hints(TaskOptions)


def check_task_arg(name: str, value: Any) -> Any:
    """``value`` of the task argument ``name`` checked and converted as declared, or one
    ``UserError`` naming it (``None`` stands for the default where the default is ``None``)."""
    declared = _FIELDS[name]
    meta = declared.metadata
    if meta["check"] is not None:
        return meta["check"](name, value)
    hint = _HINTS[name]
    base, optional = hint, False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # ``X | None``
        base = next(a for a in typing.get_args(hint) if a is not type(None))
        optional = type(None) in typing.get_args(hint)
    if value is None and optional:
        return None
    if typing.get_origin(base) is Literal:
        return check_choice(name, value, typing.get_args(base))
    if base is bool:
        return check_bool(name, value)
    if base in (int, float):
        return check_number(
            name, value, integer=base is int, minimum=meta["minimum"], maximum=meta["maximum"]
        )
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{name}={value!r} must be a non-empty string")
    return value


def task_signature() -> inspect.Signature:
    """The task function's signature: one keyword argument per option, with its default, and
    ``**unknown`` (refused with a suggestion by ``TaskOptions.from_task_args``)."""
    parameters = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=_HINTS[f.name]
        )
        for f in dataclasses.fields(TaskOptions)
    ]
    parameters.append(inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD, annotation=Any))
    return inspect.Signature(parameters, return_annotation="Task")


def docstring_args() -> str:
    """The ``Args:`` section of the task's docstring."""
    lines = ["Args:"]
    for f in dataclasses.fields(TaskOptions):
        lines.append(f"    {f.name}: {f.metadata['help']}")
    lines.append(
        "    **unknown: Refused with a suggestion: Inspect would only warn about a misspelt "
        "``-T`` argument and run with the default."
    )
    return "\n".join(lines)


def markdown_table() -> str:
    """The docs' table of task arguments (docs/evaluate.md)."""
    rows = ["| argument | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(TaskOptions):
        rows.append(f"| `{f.name}` | {f.metadata['shown']} | {f.metadata['row']} |")
    return "\n".join(rows)
