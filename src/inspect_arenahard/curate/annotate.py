"""The ``arenahard_annotate`` task: BenchBuilder's 7-criteria prompt-quality labels, in Inspect.

Each sample is one prompt of the pool. An annotator (the eval's model, or every model bound to
the ``annotator`` role: several make an ensemble decided by per-criterion majority vote) reads
the paper's system prompt (``scorers/templates/annotator_system.txt``) and lists the criteria the
prompt satisfies as ``Criteria Satisfied: [..]``. Two-stage mode: when the
``strong_annotator`` role is bound, prompts the first stage scores at least
``screen_min_score`` are labelled again by the strong model, whose labels are final.

Score contract (read by ``curate select`` and ``curate report``):

* ``value``: quality score = number of satisfied criteria (0–7); a reply without a parsable
  label is *unscored* (``Score.unscored``; Inspect counts it and leaves it out of metrics),
  never guessed.
* ``metadata``: ``criteria`` (sorted list), ``flags`` (criterion name → bool), ``stage``
  (``single``/``ensemble``/``strong``), ``annotations`` (one per annotator call: ``annotator``,
  ``stage``, ``criteria`` or None when unparsed), ``neutralised`` (``{total, criteria_label}``:
  labels in the prompt the annotator saw with their brackets made parentheses, so a crowd
  prompt cannot nominate itself as hard).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from inspect_arenahard.curate.cache import file_digest
from inspect_arenahard.errors import task_errors
from inspect_arenahard.judging.games import role_models
from inspect_arenahard.judging.integrity import neutralise
from inspect_arenahard.judging.templates import template
from inspect_arenahard.judging.verdicts import CRITERIA_LABEL

CRITERIA: tuple[str, ...] = (
    "specificity",
    "domain_knowledge",
    "complexity",
    "problem_solving",
    "creativity",
    "technical_accuracy",
    "real_world_application",
)
"""The paper's criteria, numbered 1–7 in this order."""

SCORER_NAME = "prompt_quality"
ANNOTATIONS = "annotations"
NEUTRALISED = "neutralised"
ANNOTATOR_ROLE = "annotator"
STRONG_ROLE = "strong_annotator"
POOL_METADATA = ("cluster", "topic", "source", "label")


def parse_criteria(text: str) -> list[int] | None:
    """Criteria numbers from the last ``Criteria Satisfied: [..]`` in ``text``; None if absent or invalid.

    ``[]`` is a valid answer (no criterion); anything in the list other than numbers 1–7
    (optionally quoted, in any script's decimal digits) makes the label invalid rather than
    partially read. The quality score is the number of criteria listed: this label is the only
    place an annotator's reply gives it.
    """
    labels = CRITERIA_LABEL.findall(text)
    if not labels:
        return None
    numbers = set()
    for item in labels[-1].split(","):
        token = item.strip().strip("'\"")
        if not token:
            continue
        if not token.isdecimal() or not 1 <= int(token) <= len(CRITERIA):
            return None
        numbers.add(int(token))
    if not numbers and labels[-1].strip(" ,'\""):
        return None
    return sorted(numbers)


def majority(votes: list[list[int]]) -> list[int]:
    """Criteria listed by more than half of the annotators."""
    return [c for c in range(1, len(CRITERIA) + 1) if 2 * sum(c in v for v in votes) > len(votes)]


def flags(criteria: list[int]) -> dict[str, bool]:
    """Criteria numbers (1-based) as ``{criterion name: met}``."""
    return {name: (i + 1) in criteria for i, name in enumerate(CRITERIA)}


# --------------------------------------------------------------------------- dataset


def load_pool(path: str | Path, sample: int | None = None, seed: int = 0) -> list[Sample]:
    """Samples (id, prompt = first user turn) from any file ``curate ingest`` reads; ids kept as-is."""
    from inspect_arenahard.curate.prompt_rows import normalise
    from inspect_arenahard.curate.sources import open_source
    from inspect_arenahard.curate.step_options import (
        FieldMap,
        IngestOptions,  # pyarrow: load lazily
    )

    source = str(path)
    if not Path(source).is_file():
        raise FileNotFoundError(f"prompt pool not found: {source}")
    _, records, _ = open_source(source, IngestOptions())
    samples = []
    for sid, turns, _, _, record in normalise(records, FieldMap()):
        meta = {
            k: record[k]
            for k in POOL_METADATA
            if isinstance(record, dict) and record.get(k) is not None
        }
        samples.append(Sample(id=sid, input=turns[0], metadata=meta))
    if not samples:
        raise ValueError(f"{source}: the prompt pool is empty")
    if sample is not None and sample < len(samples):
        samples = random.Random(seed).sample(samples, sample)
    return samples


# --------------------------------------------------------------------------- solver


def _annotation(annotator: str, stage: str, completion: str) -> dict[str, Any]:
    return {"annotator": annotator, "stage": stage, "completion": completion}


@solver
def annotate_prompt(screen_min_score: int = 5, cache: bool | CachePolicy = False) -> Solver:
    """Label the prompt with every annotator; in two-stage mode, re-label survivors with the strong one."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        # a crowd prompt is data: it cannot write the annotator's label for itself
        prompt = neutralise(state.input_text, "annotation")
        state.store.set(NEUTRALISED, prompt.record())
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=template("annotator_system")),
            ChatMessageUser(content=prompt.text),
        ]
        annotators = role_models(ANNOTATOR_ROLE)
        if annotators:
            outputs = await collect(*(m.generate(messages, cache=cache) for m in annotators))
            state.output = outputs[0]
            first = [
                _annotation(str(m), "screen", o.completion) for m, o in zip(annotators, outputs)
            ]
        else:
            state.messages = messages
            state = await generate(state, cache=cache)
            first = [_annotation(str(state.model), "screen", state.output.completion)]
        annotations = first
        strong = role_models(STRONG_ROLE)
        if strong:
            votes = [v for v in (parse_criteria(a["completion"]) for a in first) if v is not None]
            if votes and len(majority(votes)) >= screen_min_score:
                output = await strong[0].generate(messages, cache=cache)
                annotations = first + [_annotation(str(strong[0]), "strong", output.completion)]
        state.store.set(ANNOTATIONS, annotations)
        return state

    return solve


# --------------------------------------------------------------------------- scorer


@metric
def annotator_agreement() -> Metric:
    """Per annotator: share of (prompt, criterion) labels equal to the ensemble's majority vote."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        agree: dict[str, list[int]] = {}
        for s in scores:
            meta = s.score.metadata or {}
            screen = [
                a
                for a in meta.get("annotations", [])
                if a["stage"] == "screen" and a["criteria"] is not None
            ]
            if len(screen) < 2:
                continue
            vote = flags(majority([a["criteria"] for a in screen]))
            for a in screen:
                own = flags(a["criteria"])
                agree.setdefault(a["annotator"], []).extend(
                    int(own[c] == vote[c]) for c in CRITERIA
                )
        return {name: sum(v) / len(v) for name, v in agree.items()}

    return compute


@scorer(metrics=[mean(), stderr()])
def prompt_quality() -> Scorer:
    """Quality score (number of criteria satisfied) from the annotators' labels."""

    async def score(state: TaskState, target: Target) -> Score:
        annotations = state.store.get(ANNOTATIONS) or [
            _annotation(str(state.model), "screen", state.output.completion)
        ]
        parsed = [a | {"criteria": parse_criteria(a["completion"])} for a in annotations]
        neutralised = state.store.get(NEUTRALISED) or {"total": 0}
        record = [{k: a[k] for k in ("annotator", "stage", "criteria")} for a in parsed]
        explanation = "\n\n".join(
            f"[{a['annotator']} / {a['stage']}]\n{a['completion']}" for a in parsed
        )
        strong = [a for a in parsed if a["stage"] == "strong"]
        if strong:
            final, stage = strong[-1]["criteria"], "strong"
        else:
            votes = [a["criteria"] for a in parsed if a["criteria"] is not None]
            final = majority(votes) if votes else None
            stage = "ensemble" if len(parsed) > 1 else "single"
        if final is None:
            return Score.unscored(
                reason="unparsed",
                explanation=explanation,
                metadata={
                    "parsed": False,
                    "stage": stage,
                    ANNOTATIONS: record,
                    NEUTRALISED: neutralised,
                },
            )
        return Score(
            value=len(final),
            answer=str(final),
            explanation=explanation,
            metadata={
                "parsed": True,
                "criteria": final,
                "flags": flags(final),
                "stage": stage,
                ANNOTATIONS: record,
                NEUTRALISED: neutralised,
            },
        )

    return score


@task
@task_errors
def arenahard_annotate(
    pool: str,
    screen_min_score: int = 5,
    sample: int | None = None,
    seed: int = 0,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    cache: bool = True,
) -> Task:
    """Label every prompt of a pool with BenchBuilder's 7 quality criteria.

    Args:
        pool: Prompt file (``work/prompts.parquet`` from ``arenahard curate cluster``, or any
            JSONL/JSON/Parquet file ``curate ingest`` reads); ids are kept.
        screen_min_score: Two-stage mode (``--model-role strong_annotator=...``): prompts whose
            first-stage score is at least this are labelled again by the strong annotator.
        sample: Annotate a random sample of this many prompts (e.g. to validate annotators).
        seed: Seed of ``sample``.
        temperature: Annotator temperature.
        max_tokens: Annotator output limit (default: the provider's).
        cache: Cache annotator replies, so an interrupted or repeated run costs nothing twice.

    Annotators: the eval's ``--model``, or ``--model-role annotator=a,b,c`` for an ensemble
    (majority vote per criterion; the ``annotator_agreement`` metric gives each model's
    agreement with the majority).
    """
    policy: bool | CachePolicy = CachePolicy(expiry=None) if cache else False
    return Task(
        dataset=MemoryDataset(load_pool(pool, sample, seed), name=Path(pool).stem),
        solver=annotate_prompt(screen_min_score=screen_min_score, cache=policy),
        scorer=prompt_quality(),
        metrics=[mean(), stderr(), annotator_agreement()],
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        metadata={"pool": str(pool), "pool_digest": file_digest(Path(pool))},
    )
