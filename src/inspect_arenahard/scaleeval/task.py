"""The ``scaleeval`` task: debate labels for pairwise items, and a single judge measured on them.

Per item (submissions in a seeded random order, recorded as ``order``):

* solver: the judge under evaluation (role ``evaluator``, else the main ``--model``; skipped
  when neither is given) gives one verdict per criteria variant, plus ``consistency_samples``
  sampled verdicts for the self-consistency baseline;
* scorer: the models bound to ``debaters`` debate the item under the general rubric
  (``inspect_arenahard.scaleeval.debate``). The score value is 1 when they reach consensus
  and 0 when the item goes to human review. Metadata holds the item record (all labels in the
  original submission order) that ``arenahard metaeval`` and the ``scaleeval_agreement``
  metric read.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import CachePolicy, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from inspect_arenahard.errors import task_errors
from inspect_arenahard.judging.committee import CommitteeResult, majority
from inspect_arenahard.judging.games import JudgeSettings, role_bound, role_models
from inspect_arenahard.scaleeval.criteria import VARIANTS, load_rubrics, render
from inspect_arenahard.scaleeval.data import PairItem, load_pairs, to_original
from inspect_arenahard.scaleeval.debate import NUMBERS, Presented, debate, evaluate
from inspect_arenahard.scaleeval.judge_agreement import summary

DEBATERS = "debaters"
EVALUATOR = "evaluator"
GENERAL = "general"


def presentation_order(item_id: str, seed: int) -> str:
    """``12`` or ``21``: a coin flip seeded by the item, so runs and resumptions agree."""
    return "21" if random.Random(f"{seed}:{item_id}").random() < 0.5 else "12"


def _build_sample(item: PairItem, criterion: str, criteria: dict[str, str], order: str) -> Sample:
    first, second = (
        (item.submission_2, item.submission_1)
        if order == "21"
        else (item.submission_1, item.submission_2)
    )
    return Sample(
        id=item.id,
        input=item.question,
        metadata={
            "item_id": item.id,
            "source": item.source,
            "scenario": item.scenario or item.source,
            "criterion": criterion,
            "order": order,
            "gold": item.gold,
            "annotations": list(item.annotations),
            "submission_1": first,
            "submission_2": second,
            "criteria": criteria,
        },
    )


def _variants(criteria_variant: str | list[str]) -> list[str]:
    names = (
        [v.strip() for v in criteria_variant.split(",")]
        if isinstance(criteria_variant, str)
        else list(criteria_variant)
    )
    unknown = [v for v in names if v not in VARIANTS]
    if unknown or not names:
        raise ValueError(
            f"criteria_variant {', '.join(unknown) or '(empty)'} unknown; expected among {', '.join(VARIANTS)}"
        )
    return names


@task
@task_errors
def scaleeval(
    data: str | None = None,
    format: str | None = None,
    criterion: str = "helpfulness",
    criteria_variant: str | list[str] = GENERAL,
    criteria_file: str | None = None,
    criteria_seed: int = 0,
    max_rounds: int = 3,
    seed: int = 0,
    shuffle: bool = True,
    consistency_samples: int = 3,
    consistency_temperature: float = 0.7,
    temperature: float = 0.0,
    max_tokens: int = 1024,
    retries: int = 1,
    cache: bool = True,
) -> Task:
    """ScaleEval: meta-evaluate LLM judges against agent-debate labels and human gold labels.

    Args:
        data: Pairwise set: LLMBar-style JSON, PandaLM, Auto-J, HH-RLHF (.jsonl.gz) or plain
            JSONL ``{question, submission_1, submission_2, label?, scenario?, criterion?}``.
        format: ``llmbar``, ``pandalm``, ``autoj``, ``hh_rlhf`` or ``jsonl`` (default: detected).
        criterion: Rubric for items that name none (``helpfulness``, ``creativity``, or one in
            ``criteria_file``).
        criteria_variant: Wording(s) of the rubric shown to the evaluator, comma-separated:
            general, shortened, gibberish, shuffled, flipped, masked. Debaters always see general.
        criteria_file: YAML of extra rubrics (same shape as ``scaleeval_criteria.yaml``).
        criteria_seed: Seed of the perturbed wordings.
        max_rounds: Debate rounds including the independent round 0.
        seed: Seed of the per-item submission order.
        shuffle: Randomise the submission order per item (else keep the stored order).
        consistency_samples: Extra sampled evaluator verdicts for self-consistency (0: none).
        consistency_temperature: Temperature of those samples.
        temperature: Temperature of debaters and the evaluator's main verdict.
        max_tokens: Output limit of every judge call.
        retries: Follow-up turns asking a judge for a missing verdict.
        cache: Cache debate and main evaluator replies (self-consistency samples never are).
    """
    if data is None:
        raise ValueError(
            "scaleeval needs -T data=<file> (LLMBar/PandaLM/Auto-J/HH-RLHF file or plain JSONL)"
        )
    pairs = load_pairs(data, format)
    variants = _variants(criteria_variant)
    rubrics = load_rubrics()
    if criteria_file is not None:
        rubrics |= load_rubrics(criteria_file)
    samples, seen = [], set()
    for item in pairs.items:
        if item.id in seen:
            raise ValueError(f"{pairs.path}: duplicate item id {item.id!r}")
        seen.add(item.id)
        name = item.criterion or criterion
        if name not in rubrics:
            raise ValueError(
                f"{pairs.path}: item {item.id}: unknown criterion {name!r}; known: {', '.join(sorted(rubrics))}"
            )
        texts = {
            v: render(rubrics[name], v, criteria_seed) for v in dict.fromkeys([GENERAL, *variants])
        }
        order = presentation_order(item.id, seed) if shuffle else "12"
        samples.append(_build_sample(item, name, texts, order))
    judge_cache: bool | CachePolicy = CachePolicy(expiry=None) if cache else False
    return Task(
        dataset=MemoryDataset(samples, name=f"scaleeval-{pairs.path.stem}"),
        solver=evaluator_verdicts(
            variants,
            consistency_samples,
            consistency_temperature,
            temperature,
            max_tokens,
            retries,
            judge_cache,
        ),
        scorer=scaleeval_debate(max_rounds, temperature, max_tokens, retries, judge_cache),
        metadata={
            "scaleeval_data": str(pairs.path),
            "format": pairs.format,
            "items": len(pairs.items),
            "items_without_gold": pairs.no_gold,
        },
    )


def presented(state: TaskState, variant: str) -> Presented:
    """The item as the judges saw it in this sample, with the criteria of ``variant``."""
    meta = state.metadata
    return Presented(
        state.input_text, meta["submission_1"], meta["submission_2"], meta["criteria"][variant]
    )


def evaluator_model() -> Model | None:
    """The judge under evaluation: role ``evaluator``, else the main model, else none."""
    if role_bound(EVALUATOR):
        return get_model(role=EVALUATOR, required=True)
    model = get_model()
    return None if str(model) == "none/none" else model


@solver
def evaluator_verdicts(
    variants: list[str],
    consistency_samples: int = 3,
    consistency_temperature: float = 0.7,
    temperature: float = 0.0,
    max_tokens: int = 1024,
    retries: int = 1,
    cache: bool | CachePolicy = True,
) -> Solver:
    """The evaluator's verdict under each criteria variant, plus self-consistency samples."""
    settings = JudgeSettings(
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        retries=retries,
        cache=cache,
    )
    # sampled verdicts are never cached: each must be a fresh draw
    sampled = replace(
        settings,
        config=GenerateConfig(temperature=consistency_temperature, max_tokens=max_tokens),
        cache=False,
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        judge = evaluator_model()
        state.metadata[EVALUATOR] = None
        if judge is None:
            return state
        order = state.metadata["order"]

        async def one(variant: str) -> tuple[str, Any]:
            item = presented(state, variant)
            replies = await collect(
                evaluate(judge, item, settings),
                *(evaluate(judge, item, sampled) for _ in range(consistency_samples)),
            )
            return variant, replies

        results = await collect(*(one(v) for v in variants))
        state.metadata[EVALUATOR] = {
            "model": str(judge),
            "variants": {
                variant: {
                    "single": to_original(single.label, order),
                    "samples": [to_original(r.label, order) for r in samples],
                    "consistency": to_original(majority([r.label for r in samples], NUMBERS), order)
                    if samples
                    else None,
                }
                for variant, (single, *samples) in results
            },
        }
        first = results[0][1][0]
        state.messages = first.messages
        state.output = ModelOutput.from_content(model=str(judge), content=first.text)
        return state

    return solve


def item_record(meta: dict[str, Any], result: CommitteeResult, max_rounds: int) -> dict[str, Any]:
    """Score metadata of one item: the debate and the evaluator, labels in the stored order."""
    order = meta["order"]

    def back(label: str | None) -> str | None:
        return to_original(label, order)

    return {
        **{
            k: meta[k]
            for k in ("item_id", "source", "scenario", "criterion", "order", "gold", "annotations")
        },
        "debate": {
            "speakers": result.judges,
            "max_rounds": max_rounds,
            "rounds_run": len(result.rounds),
            "consensus": result.unanimous_after,
            "label": back(result.final) if result.unanimous_after else None,
            "majority_initial": back(majority(result.initial_labels, NUMBERS)),
            "majority_final": back(result.final),
            "initial": [back(label) for label in result.initial_labels],
            "final": [back(label) for label in result.final_labels],
            # as the speakers gave them: verdicts on the presented order
            "rounds": [
                [{**t.record(), "reasoning": t.reasoning} for t in turns] for turns in result.rounds
            ],
        },
        EVALUATOR: meta.get(EVALUATOR),
    }


@metric
def scaleeval_agreement() -> Metric:
    """Consensus rate, items pending review, and each role's agreement with debate and gold labels."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        values = summary([s.score.metadata for s in scores if s.score.metadata])
        return {k: None if math.isnan(v) else v for k, v in values.items()}

    return compute


@scorer(metrics=[scaleeval_agreement()])
def scaleeval_debate(
    max_rounds: int = 3,
    temperature: float = 0.0,
    max_tokens: int = 1024,
    retries: int = 1,
    cache: bool | CachePolicy = True,
) -> Scorer:
    """Debate each item among the ``debaters`` role; 1 on consensus, 0 when it goes to review."""
    settings = JudgeSettings(
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        retries=retries,
        cache=cache,
    )

    async def score(state: TaskState, target: Target) -> Score:
        speakers = role_models(DEBATERS, at_least=2, what="speakers")
        result = await debate(speakers, presented(state, GENERAL), max_rounds, settings)
        record = item_record(state.metadata, result, max_rounds)
        record["neutralised"] = presented(state, GENERAL).neutralised()
        label = record["debate"]["label"]
        return Score(
            value=1.0 if result.unanimous_after else 0.0,
            answer=label if label is not None else "human review",
            explanation=result.transcript(),
            metadata=record,
        )

    return score
