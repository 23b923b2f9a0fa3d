"""Adaptive judging: stop answering and judging prompts once a run's answer is known.

A run with ``-T stop_at_ci=H`` or ``-T stop_when=decided -T versus=name:score,...`` visits the
prompts in a seeded random order, interleaved by category in proportion (so a run stopped early
keeps the benchmark's mix), and keeps an anytime-valid confidence sequence
(``inspect_arenahard.stats.confidence_sequence``) for the mean per-prompt points against the
baseline. Once the rule fires (or ``max_prompts`` prompts were visited), every sample not yet
started is *skipped*: the solver makes no model call and the judge scorer no judge call; the
sample completes normally (so ``inspect eval-retry`` does not run it again) with an unscored
score whose metadata says ``skipped: <reason>``. Samples already in flight finish and count.

The per-prompt points are the judge score's value (the prompt's pooled weighted points over its
parsed games, in [0, 1]), so prompts are the independent unit. The confidence sequence takes
them in *visit order*, advancing only over a contiguous prefix of finished prompts, so neither
Inspect's concurrency nor a judge that is slower on some answers reorders the evidence.

The state of one task run (its ``Controller``) is shared by its concurrently running
samples and keyed on the run's eval id. The log header carries the rule (task metadata
``adaptive``); from the ``anytime_interval`` metric, how many prompts were judged, where the
rule fired and the confidence sequence at the end (replayed from the logged scores, so a retried
run reports the same); and, in ``results.early_stopping``, the samples judged and skipped (by
reason), counted by ``SkipLedger``.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.log import EvalSpec
from inspect_ai.log._samples import (  # inspect-evals-lint: ignore[private_api_imports] -- no public API names the running eval of a sample
    sample_active,
)
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Metric, SampleScore, Score, metric
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import EarlyStop
from pydantic import JsonValue

from inspect_arenahard.errors import UserError, check_choice, check_number
from inspect_arenahard.evaluate.solvers import answer_with_baseline
from inspect_arenahard.evaluate.stopping_header import LEDGER, METRIC
from inspect_arenahard.stats.confidence_sequence import BettingCS
from inspect_arenahard.stats.game_record import GameScore, is_canary

SKIPPED = "skipped"
"""Score metadata key of a skipped sample: the reason (the rule that fired, or ``max_prompts``)."""
VISIT = "visit"
"""Sample metadata key: the sample's position in the visit order."""
STOP_WHEN = ("ci", "decided")


@dataclass(frozen=True)
class StoppingRule:
    """When a run stops judging: a half-width (points), reference scores to decide against, a
    maximum number of prompts; the confidence level and the seed of the visit order."""

    stop_at_ci: float | None = None
    versus: Mapping[str, float] = field(default_factory=dict)
    max_prompts: int | None = None
    alpha: float = 0.05
    seed: int = 0

    @property
    def adaptive(self) -> bool:
        """Whether the run may stop before ``max_prompts`` (a stopping rule is set)."""
        return self.stop_at_ci is not None or bool(self.versus)

    def fires(self, lower: float, upper: float) -> str | None:
        """Why the run stops with the interval ``[lower, upper]`` (fractions), or None."""
        half = (upper - lower) * 50
        if self.stop_at_ci is not None and half <= self.stop_at_ci:
            return f"stop_at_ci={self.stop_at_ci:g}: half-width {half:.2f} points"
        if self.versus and all(
            not lower * 100 <= score <= upper * 100 for score in self.versus.values()
        ):
            sides = ", ".join(
                f"{'above' if lower * 100 > score else 'below'} {name} ({score:g})"
                for name, score in self.versus.items()
            )
            return f"stop_when=decided: {sides}"
        return None

    def options(self) -> dict[str, Any]:
        """The rule as JSON (task metadata ``adaptive``; the metric's arguments)."""
        return {
            "stop_at_ci": self.stop_at_ci,
            "versus": dict(self.versus),
            "max_prompts": self.max_prompts,
            "alpha": self.alpha,
            "seed": self.seed,
        }


def parse_versus(text: str | Sequence[str] | Mapping[str, Any]) -> dict[str, float]:
    """``name:score,name:score`` (scores in points, 0–100) as a mapping; a model name may contain
    ``:`` (the score follows the last one). ``-T`` hands Inspect's comma-split list."""
    if isinstance(text, (list, tuple)) and all(isinstance(t, str) for t in text):
        text = ",".join(text)
    if isinstance(text, Mapping):
        pairs = [(str(k), v) for k, v in text.items()]
    elif isinstance(text, str):
        pairs = []
        for part in (p.strip() for p in text.split(",")):
            name, sep, score = part.rpartition(":")
            if not part or not sep or not name.strip():
                raise UserError(
                    f"versus={text!r}: expected name:score[,name:score...], e.g. gpt-4o:61.2,o3-mini:50"
                )
            pairs.append((name.strip(), score))
    else:
        raise UserError(f"versus={text!r}: expected name:score[,name:score...]")
    out = {}
    for name, score in pairs:
        try:
            value = float(score)
        except (TypeError, ValueError):
            raise UserError(f"versus: score of {name!r} must be a number, got {score!r}") from None
        if not 0 <= value <= 100:
            raise UserError(f"versus: score of {name!r} must be in 0–100 points, got {value}")
        out[name] = value
    return out


def stopping_rule(
    stop_at_ci: float | None,
    stop_when: str | None,
    versus: str | Sequence[str] | Mapping[str, Any] | None,
    max_prompts: int | None,
    alpha: float,
    seed: int,
) -> StoppingRule | None:
    """The task's stopping arguments checked (before any model call); None when none is set."""
    if stop_at_ci is None and stop_when is None and versus is None and max_prompts is None:
        return None
    if stop_when is not None:
        stop_when = check_choice("stop_when", stop_when, STOP_WHEN)
    if stop_at_ci is not None:
        stop_at_ci = check_number("stop_at_ci", stop_at_ci, above=0, maximum=50)
    elif stop_when == "ci":
        raise UserError("stop_when=ci needs -T stop_at_ci=<half-width in points>")
    references = {} if versus is None else parse_versus(versus)
    if stop_when == "decided" and not references:
        raise UserError(
            "stop_when=decided needs -T versus=name:score[,name:score...] (the reference scores to decide against)"
        )
    if references and stop_when != "decided":
        raise UserError("versus= is used by stop_when=decided; add -T stop_when=decided")
    if max_prompts is not None:
        max_prompts = check_number("max_prompts", max_prompts, integer=True, minimum=1)
    return StoppingRule(
        stop_at_ci=stop_at_ci,
        versus=references,
        max_prompts=max_prompts,
        alpha=check_number("stop_alpha", alpha, above=0, maximum=0.5),
        seed=check_number("prompt_seed", seed, integer=True, minimum=0),
    )


def stratified_order(samples: Sequence[Sample], seed: int) -> list[Sample]:
    """The samples in a seeded random order with the categories interleaved in proportion: the
    k-th of a category's ``n`` samples sits at ``(k + ½)/n`` of the way, so every prefix holds
    each category's share to within one sample. Each sample's metadata gains its ``visit``."""
    rng = random.Random(seed)
    by_category: dict[str, list[Sample]] = {}
    for sample in samples:
        by_category.setdefault(str((sample.metadata or {}).get("category")), []).append(sample)
    keyed = []
    for category in sorted(by_category):
        group = by_category[category]
        rng.shuffle(group)
        keyed += [((k + 0.5) / len(group), rng.random(), s) for k, s in enumerate(group)]
    ordered = [s for *_, s in sorted(keyed, key=lambda item: item[:2])]
    for visit, sample in enumerate(ordered):
        sample.metadata = {**(sample.metadata or {}), VISIT: visit}
    return ordered


class Evidence:
    """The confidence sequence over judged prompts in visit order, and where the rule fired."""

    def __init__(self, rule: StoppingRule):
        self.rule = rule
        # stop_at_ci tunes the bets to reach its half-width soonest (still anytime-valid)
        target = None if rule.stop_at_ci is None else rule.stop_at_ci / 100
        self.cs = BettingCS(rule.alpha, target=target)
        self.judged = 0
        self.unscored = 0
        self.stopped: str | None = None
        self.stopped_at: int | None = None

    def add(self, points: float | None) -> None:
        """The next prompt's points (None: unscored or failed, left out of the sequence)."""
        if points is None:
            self.unscored += 1
            return
        self.cs.update(points)
        self.judged += 1
        if self.stopped is None and self.rule.adaptive:
            reason = self.rule.fires(float(self.cs.lower), float(self.cs.upper))
            if reason:
                self.stopped = f"{reason} after {self.judged} judged prompts"
                self.stopped_at = self.judged


class Controller:
    """One task run's shared state: the evidence over the finished prefix of the visit order."""

    def __init__(self, rule: StoppingRule):
        self.rule = rule
        self.evidence = Evidence(rule)
        self.pending: dict[int, float | None] = {}
        self.next = 0
        """Visits before this one are finished and in the evidence."""
        self._lock = threading.Lock()

    def skip_reason(self, visit: int) -> str | None:
        """Why the sample at ``visit`` is not needed, or None to answer and judge it."""
        if self.rule.max_prompts is not None and visit >= self.rule.max_prompts:
            return f"max_prompts={self.rule.max_prompts}"
        return self.evidence.stopped

    def finished(self, visit: int, points: float | None) -> None:
        """Record a finished sample (``points`` None: unscored or failed) and apply the rule to
        every newly contiguous prefix. A visit is recorded once: a sample whose solver failed
        and was then scored anyway (a limit) keeps its first record."""
        with self._lock:
            if visit < self.next or visit in self.pending:
                return
            self.pending[visit] = points
            while self.next in self.pending:
                self.evidence.add(self.pending.pop(self.next))
                self.next += 1


_RUNS: dict[str, Controller] = {}
_RUNS_LOCK = threading.Lock()


def controller(rule: StoppingRule) -> Controller:
    """The controller of the running sample's task run (created by its first sample)."""
    active = sample_active()
    key = active.eval_id if active is not None else ""
    with _RUNS_LOCK:
        if key not in _RUNS:
            _RUNS[key] = Controller(rule)
        return _RUNS[key]


class SkipLedger:
    """Inspect's early-stopping hook, used to count rather than to stop: the solver skips (so a
    skipped sample stays in the log and ``inspect eval-retry`` leaves it alone), and this hook
    sees every sample's scores, reused ones included, which metrics do not (Inspect hands them
    the scored samples only). Its counts land in the header's ``results.early_stopping``; at the
    end it also drops the run's ``Controller``."""

    def __init__(self) -> None:
        self.eval_id = ""
        self.samples = 0
        self.finished: dict[tuple[str | int, int], str | None] = {}
        """(sample id, epoch) → skip reason (None: answered and judged, parsed or not)."""
        self.canaries: set[tuple[str | int, int]] = set()
        """Canary samples finished: judged beside the prompts, never answered by the model."""

    async def start_task(self, task: EvalSpec, samples: list[Sample], epochs: int) -> str:
        """Start counting a run (also a retry, whose reused samples are completed again)."""
        self.eval_id = task.eval_id
        self.samples = sum(not is_canary(s.metadata) for s in samples) * epochs
        self.finished, self.canaries = {}, set()
        return LEDGER

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:
        """Never stop here: the solver decides, once the sample runs (see the class docstring)."""
        return None

    async def complete_sample(
        self, id: str | int, epoch: int, scores: dict[str, SampleScore]
    ) -> None:
        """Record whether the sample was skipped, and why (a canary is counted apart)."""
        if any(is_canary(s.score.metadata) for s in scores.values()):
            self.canaries.add((id, epoch))
            return
        reasons = [(s.score.metadata or {}).get(SKIPPED) for s in scores.values()]
        reason = next((str(r) for r in reasons if r is not None), None)
        self.finished[(id, epoch)] = reason

    async def complete_task(self) -> dict[str, JsonValue]:
        """The header counts; the run's controller is dropped (the run is over)."""
        with _RUNS_LOCK:
            _RUNS.pop(self.eval_id, None)
        reasons: dict[str, int] = {}
        for reason in self.finished.values():
            if reason is not None:
                reasons[reason] = reasons.get(reason, 0) + 1
        skipped = sum(reasons.values())
        return {
            "samples": self.samples,
            "answered": len(self.finished) - skipped,
            "skipped": skipped,
            "skipped_by_reason": dict(reasons),
            "canaries": len(self.canaries),
        }


def _visit(state: TaskState) -> int | None:
    visit = state.metadata.get(VISIT)
    return visit if isinstance(visit, int) else None


@solver
def adaptive_answer(**rule: Any) -> Solver:
    """``inspect_arenahard.evaluate.solvers.answer_with_baseline`` for the samples the run still needs;
    the others are marked skipped without a model call (``rule``: ``StoppingRule.options``)."""
    stopping = StoppingRule(**rule)
    inner = answer_with_baseline()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        visit = _visit(state)
        if visit is None:
            return await inner(state, generate)
        if state.epoch > 1:
            raise ValueError("adaptive judging (stop_at_ci, stop_when, max_prompts) runs one epoch")
        run = controller(stopping)
        reason = run.skip_reason(visit)
        if reason is not None:
            state.metadata[SKIPPED] = reason
            state.output = ModelOutput.from_content(str(state.model), "")
            state.completed = True
            run.finished(visit, None)
            return state
        try:
            return await inner(state, generate)
        except BaseException:
            run.finished(visit, None)  # the prefix must not wait for a sample that failed
            raise

    return solve


def skipped_score(state: TaskState) -> Score | None:
    """The judge scorer's score for a skipped sample (no judge call), or None to judge it."""
    reason = state.metadata.get(SKIPPED)
    if reason is None:
        return None
    skipped = GameScore(str(state.model), None, state.metadata.get("category"), skipped=reason)
    return Score.unscored(reason=f"skipped: {reason}", metadata=skipped.metadata())


def judged(state: TaskState, points: float | None) -> None:
    """Tell the run's controller that a judged sample finished with ``points`` (None: unscored)."""
    visit = _visit(state)
    active = sample_active()
    run = _RUNS.get(active.eval_id if active is not None else "")
    if visit is not None and run is not None and SKIPPED not in state.metadata:
        run.finished(visit, points)


@dataclass(frozen=True)
class Replay:
    """The rule replayed over a run's judged prompts in visit order: what the log header reports
    (Inspect hands metrics the scored samples only, so skipped ones are counted by
    ``SkipLedger``)."""

    judged: int
    stopped_at: int | None
    """Judged prompts when the rule fired (None: it never did)."""
    lower: float
    upper: float

    def metrics(self) -> dict[str, float]:
        """The header metrics (interval in points; ``stopped_at`` 0 when the rule never fired:
        a NaN would make the header invalid JSON for strict readers)."""
        return {
            "judged": float(self.judged),
            "stopped_at": float(self.stopped_at or 0),
            "lower": round(self.lower * 100, 2),
            "upper": round(self.upper * 100, 2),
        }


def replay(rule: StoppingRule, points: Sequence[tuple[int, float]]) -> Replay:
    """Replay the rule over the ``(visit, points)`` of the judged prompts, in visit order as the
    run's controller took them."""
    evidence = Evidence(rule)
    for _, value in sorted(points):
        evidence.add(value)
    return Replay(
        judged=evidence.judged,
        stopped_at=evidence.stopped_at,
        lower=float(evidence.cs.lower),
        upper=float(evidence.cs.upper),
    )


@metric(name=METRIC)
def anytime_interval(**rule: Any) -> Metric:
    """Prompts judged, where the rule fired, and the anytime-valid interval (points) for the mean
    per-prompt points at the end of the run, replayed from the scores."""
    stopping = StoppingRule(**rule)

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        points = [
            (int((s.sample_metadata or {}).get(VISIT, 0)), float(s.score.as_float()))
            for s in scores
            if not math.isnan(s.score.as_float())
        ]
        return replay(stopping, points).metrics()

    return compute
