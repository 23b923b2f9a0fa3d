"""The ``arenahard`` task: answer the benchmark prompts, then judge against the baseline.

The task reads its arguments (``TaskOptions``,
declared once: a contract later stages and users rely on), then the dataset, the solver and the
scorer. The v2.0 categories are registered as tasks of their own: ``arenahard_v2_hard`` and
``arenahard_v2_creative``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Callable, TypeVar

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
from inspect_arenahard.evaluate.arguments import (
    TaskOptions,
    check_task_arg,
    docstring_args,
    task_signature,
)
from inspect_arenahard.evaluate.canaries import canary_answer, canary_samples
from inspect_arenahard.evaluate.dataset import (
    Question,
    StoredAnswer,
    answer_file,
    hub_data_dir,
    load_answers,
    load_questions,
    user_path,
)
from inspect_arenahard.evaluate.scorers import PairwiseJudging, games_vs_baseline, judge_scorer
from inspect_arenahard.evaluate.solvers import BASELINE_ANSWER, BASELINE_MODEL, answer_with_baseline
from inspect_arenahard.evaluate.version_config import VersionConfig, version_config
from inspect_arenahard.files.arena_layout import ArenaHardFolder
from inspect_arenahard.judging.answer_audit import PromptIndex
from inspect_arenahard.judging.committee import COMMITTEE, committee_agreement
from inspect_arenahard.judging.games import REFERENCE_ANSWER, role_bound, role_models
from inspect_arenahard.stats.estimates import official_rules
from inspect_arenahard.stats.game_record import SCORE_RECORDS, SCORE_RECORDS_VERSION

F = TypeVar("F", bound=Callable[..., Any])


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
        stored = set(folder.answers_by_model())
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


def declared_arguments(task_fn: F) -> F:
    """Give the task function the signature and ``Args`` of ``TaskOptions``: Inspect reads
    the ``-T`` names and defaults from the signature, ``inspect info`` the docstring."""
    task_fn.__signature__ = task_signature()  # type: ignore[attr-defined]
    task_fn.__doc__ = f"{task_fn.__doc__}\n\n{textwrap.indent(docstring_args(), '    ')}\n"
    return task_fn


@task
@task_errors
@declared_arguments
def arenahard(**task_args: Any) -> Task:
    """Arena-Hard-Auto: pairwise LLM judging of a model against a baseline, both orders.

    The arguments are declared once in ``TaskOptions``."""
    options = TaskOptions.from_task_args(task_args)  # every argument checked before any model call
    rule = stopping_rule(
        options.stop_at_ci,
        options.stop_when,
        options.versus,
        options.max_prompts,
        options.stop_alpha,
        options.prompt_seed,
    )
    cfg = version_config(options.version)
    judging = pairwise_judging(
        cfg,
        options.judge,
        options.judge_max_tokens,
        options.judge_temperature,
        options.judge_retries,
        options.strong_weight,
        options.cache,
    )
    questions, samples = task_dataset(options, cfg)
    scorer = judge_scorer(
        judging,
        committee_rounds=options.committee_rounds if options.scorer == "committee" else None,
        batch=options.judge_batch,
        prompts=PromptIndex([q.prompt for q in questions]),
    )
    _check_judges(
        options.scorer,
        options.judge or cfg.judge.model,
        "-T judge" if options.judge else f"the {options.version} default",
    )
    if rule is not None:
        samples = stratified_order(samples, rule.seed)
    samples += canary_samples(options.canaries)  # outside the visit order: adaptive stops skip none
    return Task(
        dataset=MemoryDataset(samples, name=f"arenahard-{options.version}"),
        solver=[
            canary_answer(),
            answer_with_baseline() if rule is None else adaptive_answer(**rule.options()),
        ],
        scorer=scorer,
        metrics=task_metrics(
            questions,
            committee=options.scorer == "committee",
            rule=rule,
            unparsed=official_rules(options.version).unparsed,
        ),
        early_stopping=None if rule is None else SkipLedger(),
        metadata={
            "arenahard_version": options.version,
            "method": cfg.method,
            SCORE_RECORDS: SCORE_RECORDS_VERSION,
            **({} if rule is None else {"adaptive": rule.options()}),
        },
    )


@task
@task_errors
def arenahard_v2_hard(data_dir: str | None = None, **task_args: Any) -> Task:
    """Arena-Hard-Auto v2.0, hard prompts only (500, against o3-mini); other ``-T`` arguments as
    for ``arenahard``."""
    return arenahard(**_variant("v2.0", "hard_prompt", data_dir, task_args))


@task
@task_errors
def arenahard_v2_creative(data_dir: str | None = None, **task_args: Any) -> Task:
    """Arena-Hard-Auto v2.0, creative writing only (250, against gemini-2.0-flash); other ``-T``
    arguments as for ``arenahard``."""
    return arenahard(**_variant("v2.0", "creative_writing", data_dir, task_args))


def _variant(
    version: str, category: str, data_dir: str | None, task_args: dict[str, Any]
) -> dict[str, Any]:
    """A variant's arguments for ``arenahard``: its version and category, which it fixes."""
    fixed = sorted({"version", "category"} & set(task_args))
    if fixed:
        raise UserError(
            f"{fixed[0]} is fixed by this task ({version}, {category}); run arenahard to choose it"
        )
    return {**task_args, "version": version, "category": category, "data_dir": data_dir}


def task_dataset(options: TaskOptions, cfg: VersionConfig) -> tuple[list[Question], list[Sample]]:
    """The questions the options select and their samples (baseline and reference answers in
    metadata): from ``dataset``, ``data_dir`` or the version's hub release."""
    live_baseline = role_bound("baseline")
    folder = user_path(options.data_dir) if options.data_dir else None
    if folder is not None and not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "no such folder"
        raise UserError(
            f"data_dir={options.data_dir!r}: {what} ({folder}); expected question.jsonl and model_answer/ inside"
        )
    if options.dataset is not None:
        questions = load_questions(user_path(options.dataset))
    else:
        if folder is None:
            if options.version == "custom":
                raise UserError(
                    "version=custom needs -T data_dir=<folder> or -T dataset=<file.jsonl>"
                )
            models = (
                []
                if live_baseline
                else sorted({m for m in [options.baseline, *cfg.baseline.models()] if m})
            )
            folder = hub_data_dir(options.version, models)
        questions = load_questions(ArenaHardFolder(folder).questions)
    questions = _select_categories(questions, options.category)
    samples = build_samples(
        questions,
        cfg,
        folder,
        options.baseline,
        live_baseline,
        _reference_answers(options.reference, folder),
    )
    return questions, samples


def pairwise_judging(
    cfg: VersionConfig,
    judge: str | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    retries: int = 1,
    strong_weight: int | None = None,
    cache: bool = True,
) -> PairwiseJudging:
    """The pairwise judge of a version's configuration with the task's overrides (None: the
    version's), each override checked under its ``-T`` name as ``TaskOptions`` declares it,
    before any model call."""
    max_tokens = check_task_arg("judge_max_tokens", max_tokens)
    temperature = check_task_arg("judge_temperature", temperature)
    retries = check_task_arg("judge_retries", retries)
    strong_weight = (
        None if strong_weight is None else check_task_arg("strong_weight", strong_weight)
    )
    cache = check_task_arg("cache", cache)
    defaults = cfg.judge
    return PairwiseJudging(
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
    ``SkipLedger``); None keeps the scorer's own metrics.
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
