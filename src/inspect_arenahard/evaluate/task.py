"""The ``arenahard`` task: answer the benchmark prompts, then judge against the baseline.

Task arguments are a contract (later stages and users rely on them): ``version``, ``data_dir``,
``dataset``, ``baseline``, ``category`` and the judge settings below.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import CachePolicy, get_model
from inspect_ai.model._model import (  # inspect-evals-lint: ignore[private_api_imports] -- no public API tells whether an eval is being set up
    active_model,
)
from inspect_ai.scorer import Metric, grouped, mean, stderr
from rich.text import Text

from inspect_arenahard.errors import (
    UserError,
    check_bool,
    check_choice,
    check_number,
    did_you_mean,
    task_errors,
)
from inspect_arenahard.evaluate.adaptive import (
    SkipLedger,
    StoppingRule,
    adaptive_answer,
    anytime_interval,
    stopping_rule,
    stratified_order,
)
from inspect_arenahard.evaluate.dataset import (
    Question,
    StoredAnswer,
    answer_file,
    hub_data_dir,
    load_answers,
    load_questions,
    user_path,
)
from inspect_arenahard.evaluate.scorers import games_vs_baseline, pairwise_judge
from inspect_arenahard.evaluate.solvers import (
    BASELINE_ANSWER,
    BASELINE_MODEL,
    REFERENCE_ANSWER,
    answer_with_baseline,
    role_bound,
)
from inspect_arenahard.evaluate.version_config import VersionConfig, version_config
from inspect_arenahard.files.arena_layout import ArenaHardFolder
from inspect_arenahard.judging.committee import COMMITTEE, committee_agreement
from inspect_arenahard.judging.games import role_models
from inspect_arenahard.stats.estimates import official_rules
from inspect_arenahard.stats.verdict_points import check_strong_weight

VERSIONS = ("v0.1", "v2.0", "custom")
SCORERS = ("pairwise", "committee")


def baseline_for(config: VersionConfig, category: str | None, override: str | None) -> str | None:
    """The baseline model whose stored answers a question is compared with."""
    return override or config.baseline.for_category(category)


def _categories(category: str | list[str] | None) -> set[str] | None:
    if category is None:
        return None
    if isinstance(category, str):
        wanted = {c.strip() for c in category.split(",") if c.strip()}
    elif isinstance(category, (list, tuple)) and all(isinstance(c, str) for c in category):
        wanted = set(category)
    else:
        raise UserError(f"category={category!r} must be a name or a comma-separated list of names")
    if not wanted:
        raise UserError(f"category={category!r} names no category")
    return wanted


def _select_categories(
    questions: list[Question], category: str | list[str] | None
) -> list[Question]:
    wanted = _categories(category)
    if wanted is None:
        return questions
    present = sorted({str(q.category) for q in questions})
    unknown = sorted(wanted - set(present))
    if unknown:
        raise UserError(
            f"category {unknown[0]!r} not in the data{did_you_mean(unknown[0], present)} (present: {', '.join(present)})"
        )
    return [q for q in questions if q.category in wanted]


def _reference_answers(reference: str | None, data_dir: Path | None) -> dict[str, StoredAnswer]:
    """Reference answers from a file, or ``model_answer/<name>.jsonl`` in ``data_dir``."""
    if reference is None:
        return {}
    path = user_path(reference)
    if not path.is_file() and data_dir is not None:
        path = ArenaHardFolder(data_dir).answer_file(reference)
        if not path.is_file():
            raise UserError(
                f"reference={reference!r} is neither a file nor a model with answers in {path.parent}"
            )
    return load_answers(path)


def build_samples(
    questions: list[Question],
    config: VersionConfig,
    data_dir: Path | None,
    baseline: str | None,
    live_baseline: bool,
    references: dict[str, StoredAnswer],
) -> list[Sample]:
    """Samples with the baseline answer (or None when generated live) in metadata."""
    stored: dict[str, dict[str, StoredAnswer]] = {}
    missing: dict[str, list[str]] = {}
    samples = []
    for q in questions:
        model = baseline_for(config, q.category, baseline)
        answer = None
        if not live_baseline:
            if model is None:
                raise UserError(
                    "no baseline: pass -T baseline=<model> or bind --model-role baseline=<model>"
                )
            if data_dir is None:
                raise UserError(
                    "stored baseline answers need -T data_dir=<folder> (or bind --model-role baseline=<model>)"
                )
            if model not in stored:
                stored[model] = load_answers(
                    _baseline_file(data_dir, model, questions, config, baseline)
                )
            answer = stored[model].get(q.id)
            if answer is None:
                missing.setdefault(model, []).append(q.id)
        reference = q.extra.get("reference") or (
            references[q.id].text if q.id in references else None
        )
        samples.append(
            Sample(
                id=q.id,
                input=q.prompt,
                metadata={
                    "category": q.category,
                    "cluster": q.cluster,
                    **{k: v for k, v in q.extra.items() if k in ("subcategory", "topic", "score")},
                    BASELINE_MODEL: None if live_baseline else model,
                    BASELINE_ANSWER: None if answer is None else answer.text,
                    REFERENCE_ANSWER: reference,
                },
            )
        )
    if missing:
        detail = "; ".join(
            f"{model}: {len(ids)} missing ({', '.join(ids[:10])}{' …' if len(ids) > 10 else ''})"
            for model, ids in missing.items()
        )
        raise UserError(
            f"baseline answers missing in {data_dir}/model_answer for {detail}. "
            "Generate them live with --model-role baseline=<model>, or choose another -T baseline."
        )
    return samples


def _baseline_file(
    data_dir: Path,
    model: str,
    questions: list[Question],
    config: VersionConfig,
    override: str | None,
) -> Path:
    """The baseline's answer file; when it is missing, say which categories could run instead."""
    try:
        return answer_file(data_dir, model)
    except FileNotFoundError as ex:
        if override:
            raise
        folder = ArenaHardFolder(data_dir)
        stored = {p.stem for p in folder.answer_files()}
        categories = sorted({str(q.category) for q in questions})
        runnable = [c for c in categories if baseline_for(config, c, None) in stored]
        needs = sorted(
            {str(q.category) for q in questions if baseline_for(config, q.category, None) == model}
        )
        hint = f" -T category={','.join(runnable)} to run only what is stored," if runnable else ""
        raise UserError(
            f"{ex}; categories {', '.join(needs)} need it. Use{hint} -T baseline=<model> for one baseline "
            f"everywhere, --model-role baseline=<model> to answer live, or add {folder.answer_file(model)}"
        ) from None


@task
@task_errors
def arenahard(
    version: str = "v0.1",
    data_dir: str | None = None,
    dataset: str | None = None,
    baseline: str | None = None,
    category: str | list[str] | None = None,
    reference: str | None = None,
    judge: str | None = None,
    judge_max_tokens: int | None = None,
    judge_temperature: float | None = None,
    judge_retries: int = 1,
    strong_weight: int | None = None,
    cache: bool = True,
    scorer: str = "pairwise",
    committee_rounds: int = 1,
    stop_at_ci: float | None = None,
    stop_when: str | None = None,
    versus: str | list[str] | None = None,
    max_prompts: int | None = None,
    stop_alpha: float = 0.05,
    prompt_seed: int = 0,
    judge_batch: bool = False,
    **unknown: Any,
) -> Task:
    """Arena-Hard-Auto: pairwise LLM judging of a model against a baseline, both orders.

    Args:
        version: ``v0.1`` (500 prompts, baseline gpt-4-0314), ``v2.0`` (500 hard prompts vs
            o3-mini + 250 creative writing vs gemini-2.0-flash) or ``custom``.
        data_dir: Local folder in arena-hard-auto's layout (``question.jsonl``,
            ``model_answer/<model>.jsonl``), either schema. Default: the official release from
            the Hugging Face hub (not for ``custom``).
        dataset: A prompt JSONL (``id``, ``prompt``, optional ``category``, ``cluster``), e.g.
            from ``arenahard curate select``; replaces ``question.jsonl``.
        baseline: Model whose stored answers are the baseline (default per version). Binding
            the ``baseline`` model role instead generates baseline answers live.
        category: Keep only these categories (comma-separated), e.g. ``hard_prompt``.
        reference: Reference answers (a model name in ``model_answer/`` or a JSONL file) shown
            to judges; or bind the ``reference`` model role to generate them live.
        judge: Default judge when the ``judge`` role is unbound (default per version).
        judge_max_tokens: Judge output limit (default per version).
        judge_temperature: Judge temperature (default 0).
        judge_retries: Follow-up turns asking a judge for a missing verdict label.
        strong_weight: Battles a significant (``>>``) verdict counts for, a whole number ≥ 1
            (default 3).
        cache: Cache judge replies so re-runs cost no judge calls.
        scorer: ``pairwise`` (the judges bound to ``judge``, independently) or ``committee``
            (the models bound to ``committee`` discuss each game; same score contract).
        committee_rounds: Discussion rounds of the committee after its independent verdicts.
        stop_at_ci: Stop answering and judging once the anytime-valid interval of the win-rate
            against the baseline has at most this half-width (points); see docs/adaptive.md.
        stop_when: ``decided``: stop once that interval excludes every ``versus`` score.
        versus: Reference scores to decide against, ``name:score,name:score`` (points).
        max_prompts: Answer and judge at most this many prompts (in the stratified order).
        stop_alpha: 1 − confidence of the anytime-valid interval (default 0.05).
        prompt_seed: Seed of the stratified random order prompts are visited in.
        judge_batch: Send judge calls through the providers' batch APIs (cheaper, slower).
        **unknown: Refused with a suggestion: Inspect would only warn about a misspelt ``-T``
            argument and run with the default.
    """
    if unknown:
        known = [name for name in inspect.signature(arenahard).parameters if name != "unknown"]
        name = sorted(unknown)[0]
        raise UserError(
            f"unknown task argument {name!r}{did_you_mean(name, known)}; known: {', '.join(known)}"
        )
    # Every argument is checked here, before any model call: -T values arrive as strings or YAML.
    version = check_choice("version", version, VERSIONS)
    scorer = check_choice("scorer", scorer, SCORERS)
    for name, text in (
        ("data_dir", data_dir),
        ("dataset", dataset),
        ("baseline", baseline),
        ("reference", reference),
        ("judge", judge),
    ):
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise UserError(f"{name}={text!r} must be a non-empty string")
    committee_rounds = check_number(
        "committee_rounds", committee_rounds, integer=True, minimum=0, maximum=10
    )
    rule = stopping_rule(stop_at_ci, stop_when, versus, max_prompts, stop_alpha, prompt_seed)
    batch = check_bool("judge_batch", judge_batch)  # before any data is read or judge resolved
    cfg = version_config(version)
    settings = judge_settings(
        cfg, judge, judge_max_tokens, judge_temperature, judge_retries, strong_weight, cache
    )
    live_baseline = role_bound("baseline")

    folder = user_path(data_dir) if data_dir else None
    if folder is not None and not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "no such folder"
        raise UserError(
            f"data_dir={data_dir!r}: {what} ({folder}); expected question.jsonl and model_answer/ inside"
        )
    if dataset is not None:
        questions = load_questions(user_path(dataset))
    else:
        if folder is None:
            if version == "custom":
                raise UserError(
                    "version=custom needs -T data_dir=<folder> or -T dataset=<file.jsonl>"
                )
            models = (
                []
                if live_baseline
                else sorted({m for m in [baseline, *cfg.baseline.models()] if m})
            )
            folder = hub_data_dir(version, models)
        questions = load_questions(ArenaHardFolder(folder).questions)

    questions = _select_categories(questions, category)
    samples = build_samples(
        questions, cfg, folder, baseline, live_baseline, _reference_answers(reference, folder)
    )
    _check_judges(
        scorer, judge or cfg.judge.model, "-T judge" if judge else f"the {version} default"
    )
    if rule is not None:
        samples = stratified_order(samples, rule.seed)
    return Task(
        dataset=MemoryDataset(samples, name=f"arenahard-{version}"),
        solver=answer_with_baseline() if rule is None else adaptive_answer(**rule.options()),
        scorer=pairwise_judge(
            **settings,
            committee_rounds=committee_rounds if scorer == "committee" else None,
            batch=batch,
        ),
        metrics=task_metrics(
            questions,
            committee=scorer == "committee",
            rule=rule,
            unparsed=official_rules(version).unparsed,
        ),
        early_stopping=None if rule is None else SkipLedger(),
        metadata={
            "arenahard_version": version,
            "method": cfg.method,
            **({} if rule is None else {"adaptive": rule.options()}),
        },
    )


def judge_settings(
    cfg: VersionConfig,
    judge: str | None,
    max_tokens: int | None,
    temperature: float | None,
    retries: int,
    strong_weight: int | None,
    cache: bool,
) -> dict[str, Any]:
    """``pairwise_judge`` arguments from a version's configuration and the task's overrides,
    each override checked (type and range) before any model call."""
    max_tokens = (
        None
        if max_tokens is None
        else check_number("judge_max_tokens", max_tokens, integer=True, minimum=1)
    )
    temperature = (
        None
        if temperature is None
        else check_number("judge_temperature", temperature, minimum=0, maximum=2)
    )
    retries = check_number("judge_retries", retries, integer=True, minimum=0, maximum=10)
    if strong_weight is not None:
        try:
            strong_weight = check_strong_weight(strong_weight)
        except ValueError as ex:
            raise UserError(str(ex)) from None
    cache = check_bool("cache", cache)
    defaults = cfg.judge
    return dict(
        default_judge=judge or defaults.model,
        template_name=defaults.template,
        template_by_category=dict(defaults.template_by_category) or None,
        temperature=defaults.temperature if temperature is None else temperature,
        max_tokens=max_tokens or defaults.max_tokens,
        retries=retries,
        single_brackets=defaults.single_brackets,
        strong_weight=cfg.strong_weight if strong_weight is None else strong_weight,
        cache=CachePolicy(expiry=None) if cache else False,
        token_encoding=cfg.token_encoding,
    )


def task_metrics(
    questions: list[Question],
    committee: bool = False,
    rule: StoppingRule | None = None,
    unparsed: str = "game",
) -> list[Metric | dict[str, list[Metric]]] | None:
    """The pooled games-vs-baseline headline, the scorer's mean and stderr, plus the mean per
    category when there are several (so the
    log header, and ``inspect view``, tell hard prompts and creative writing apart) and, for
    adaptive judging, the anytime-valid interval (skipped samples are counted by the task's
    :class:`~inspect_arenahard.evaluate.adaptive.SkipLedger`); None keeps the scorer's own metrics.
    ``unparsed`` is the version's official rule for unparsed games, so that the headline equals
    the leaderboard."""
    metrics: list[Metric | dict[str, list[Metric]]] = [
        games_vs_baseline(unparsed),
        mean(),
        stderr(),
    ]
    if committee:
        metrics.append(committee_agreement())
    if rule is not None:
        metrics.append(anytime_interval(**rule.options()))
    if len({q.category for q in questions}) > 1:
        metrics.append(grouped(mean(), "category", all=False))
    return metrics if len(metrics) > 3 or unparsed != "game" else None


def _check_judges(scorer: str, default_judge: str, source: str) -> None:
    """In an eval, make sure the judges can be reached before the model answers anything: a
    missing API key or an unbound committee would otherwise surface at scoring, after the
    model's calls were paid for."""
    if (
        active_model() is None
    ):  # built outside an eval (e.g. to inspect the dataset): nothing to call
        return
    if scorer == "committee":
        role_models(COMMITTEE, at_least=2)
        return
    if role_bound("judge"):
        return
    try:
        get_model(default_judge)
    except Exception as ex:
        message = getattr(ex, "message", None) or str(ex)
        reason = (
            " ".join(Text.from_markup(message).plain.split())
            if isinstance(message, str)
            else type(ex).__name__
        )
        raise UserError(
            f"judge {default_judge} ({source}; choose with --model-role judge=<model> or -T judge=<model>) "
            f"cannot be used: {reason}"
        ) from None
