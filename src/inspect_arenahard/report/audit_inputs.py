"""What ``arenahard audit`` reads: every model's answers from judge logs (or answer files), and
probe results per judge from ``arenahard_probes`` logs. The checks themselves are pure functions
in ``inspect_arenahard.report.audit_checks``.

A log whose judge scorer wrote an audit record on every sample
(``inspect_arenahard.stats.game_record.AnswerAudit``) is audited from its sample summaries; older
logs and other tasks' are read in full, sample records straight from ``.eval`` archives as JSON
(as ``inspect_arenahard.logs.reader`` reads summaries), with Inspect's reader as the fallback for
``.json`` logs.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, get_args

from inspect_arenahard.evaluate.dataset import load_answers, load_questions
from inspect_arenahard.files.arena_layout import ArenaHardFolder
from inspect_arenahard.judging.answer_audit import PromptIndex, answer_audit
from inspect_arenahard.logs.reader import (
    GAME_SCORERS,
    LogGames,
    ScoredSample,
    find_score,
    log_files,
    read_games,
    read_header,
)
from inspect_arenahard.report.audit_checks import (
    AuditedAnswer,
    ModelAudit,
    RecordedAnswer,
    RecordedRow,
    Thresholds,
    audit_model,
    audit_records,
)
from inspect_arenahard.stats.game_record import AnswerAudit, AnswerAuditRow

PROBE_TASK = "arenahard_probes"


@dataclass(frozen=True)
class ProbeResult:
    """A judge's attack success rate against one probe (from an ``arenahard_probes`` log header)."""

    judge: str
    probe: str
    attack_success: float | None
    log: str

    def record(self) -> dict[str, Any]:
        """As a dict, for the probe table and ``--json``."""
        return dict(self.__dict__)


@dataclass
class AuditReport:
    """What ``arenahard audit`` found: per-model figures and flags, probe results, notes."""

    models: list[ModelAudit] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _text(content: Any) -> str:
    """Text of a message content: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "\n".join(
        _text(m.get("content"))
        for m in value or []
        if isinstance(m, dict) and m.get("role") == "user"
    )


def _sample(raw: dict[str, Any]) -> tuple[str | None, AuditedAnswer]:
    """(model named by the judge score, the audit sample) of one raw sample record."""
    score = find_score(raw.get("scores"), *GAME_SCORERS) or {}
    metadata = score.get("metadata") or {}
    output = raw.get("output") or {}
    choices = output.get("choices") or [{}]
    message = choices[0].get("message") or {}
    value = score.get("value")
    points = float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
    return metadata.get("model"), AuditedAnswer(
        prompt=_input_text(raw.get("input")),
        answer=_text(message.get("content")),
        baseline=(raw.get("metadata") or {}).get("baseline_answer"),
        truncated=choices[0].get("stop_reason") == "max_tokens" if choices[0] else None,
        points=points,
    )


Answer = AuditedAnswer | RecordedAnswer | RecordedRow
"""An answer as the audit reads it: its texts (a full sample), or its judge score's record
(as the log reader keeps it: plain values)."""


RecordRow = tuple[str | None, str, int, float | None, AnswerAuditRow]
"""One answer's audit record as its judge score gave it, in plain values: (model named by the
judge score, prompt id, epoch, points, ``AnswerAudit.row``)."""


@dataclass(slots=True)
class RecordColumns:
    """One log's answers' audit records, a list per field (iterated as ``RecordRow``s).

    Appending plain values to a log's lists allocates nothing the garbage collector tracks,
    where two tuples per answer would: over a read of many logs those allocations bring on
    collections that rescan everything the read keeps (one more full collection, ≈0.1 s, on
    60 logs × 500 samples)."""

    models: list[str | None] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    epochs: list[int] = field(default_factory=list)
    points: list[float | None] = field(default_factory=list)
    audits: tuple[list[Any], ...] = field(
        default_factory=lambda: tuple([] for _ in get_args(AnswerAuditRow))
    )
    """``AnswerAudit.row``'s fields, a list each."""

    def append(self, sample: ScoredSample, model: str | None, audit: AnswerAudit) -> None:
        """Keep one answer's record."""
        self.models.append(model)
        self.ids.append(sample.id)
        self.epochs.append(sample.epoch)
        self.points.append(sample.value)
        for column, value in zip(self.audits, audit.row()):
            column.append(value)

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[RecordRow]:
        return zip(self.models, self.ids, self.epochs, self.points, zip(*self.audits))


@dataclass
class AnswerReader:
    """Audit samples per log, taken from the read of the logs that gives the games
    (``inspect_arenahard.logs.reader.SampleReader``), so the audit needs no read of its own:
    the answers' audit records from the sample summaries where every sample carries one, else
    each full sample. Records are kept as columns of plain values (``RecordColumns``), so
    thousands of them cost the garbage collector nothing during the read."""

    by_log: dict[str, list[tuple[str | None, str, int, AuditedAnswer]]] = field(
        default_factory=dict
    )
    """log path → (model named by the judge score, prompt id, epoch, audit sample) per full sample."""
    records_by_log: dict[str, RecordColumns] = field(default_factory=dict)
    """log path → the audit record of each answer (``RecordColumns``), for logs whose scores
    all carry one."""
    _incomplete: set[str] = field(default_factory=set)

    def scored(self, path: str, sample: ScoredSample) -> None:
        """Keep the audit record of one sample's score; a sample without a judge score or a
        complete record drops the log's records (its full samples are read instead)."""
        if path in self._incomplete:
            return
        score = sample.score
        if score is not None and score.skipped is not None:  # adaptive judging asked for no answer
            self._records(path)
            return
        if score is None or score.audit is None or score.audit.off_prompt_rank is None:
            self._incomplete.add(path)
            self.records_by_log.pop(path, None)
            return
        self._records(path).append(sample, score.model, score.audit)

    def scored_all(self, path: str) -> bool:
        """Whether every sample of the log gave its record (else nothing of it is kept)."""
        if path in self._incomplete:
            return False
        self._records(path)
        return True

    def _records(self, path: str) -> RecordColumns:
        records = self.records_by_log.get(path)
        if records is None:
            records = self.records_by_log[path] = RecordColumns()
        return records

    def __call__(self, path: str, sample: dict[str, Any]) -> None:
        """Keep one full sample's answer for the audit (not one adaptive judging skipped)."""
        score = find_score(sample.get("scores"), *GAME_SCORERS) or {}
        if (score.get("metadata") or {}).get("skipped"):
            return
        model, answer = _sample(sample)
        answers = self.by_log.setdefault(path, [])
        answers.append((model, str(sample.get("id")), int(sample.get("epoch") or 1), answer))

    def by_model(self, result: LogGames) -> tuple[dict[str, list[Answer]], list[str]]:
        """Audit samples per model and notes. Like the leaderboard, each answer counts once: a
        sample (model, prompt id, epoch) answered in several runs is taken from the latest;
        replaced answers, damaged members and skipped files are named in the notes."""
        latest: dict[tuple[str, str, int], Answer] = {}
        replaced: dict[str, int] = {}
        notes: list[str] = []
        for run in result.runs:  # oldest first
            texts = self.by_log.get(run.path, [])
            records = self.records_by_log.get(run.path, ())
            keyed: list[tuple[tuple[str, str, int], Answer]]
            keyed = [((m or run.model, i, e), a) for m, i, e, a in texts]
            keyed += [((m or run.model, i, e), (p, row)) for m, i, e, p, row in records]
            before = len(latest)
            latest.update(keyed)
            again = len(keyed) - (len(latest) - before)  # keys an earlier answer had
            if again:
                replaced[run.path] = replaced.get(run.path, 0) + again
            if run.damaged:
                notes.append(
                    f"partly read {run.path}: {len(run.damaged)} damaged members skipped "
                    f"({', '.join(run.damaged)})"
                )
        by_model: dict[str, list[Answer]] = {}
        for key in sorted(latest):
            by_model.setdefault(key[0], []).append(latest[key])
        notes += [
            f"replaced: {n} answers re-judged in newer {path}" for path, n in replaced.items()
        ]
        notes += [f"ignored {path}: {reason}" for path, reason in result.ignored]
        return by_model, notes


def audit_answers_of(
    model: str, answers: Sequence[Answer], thresholds: Thresholds = Thresholds()
) -> ModelAudit:
    """One model's audit: from the texts when every answer was read in full (exact measures),
    from the audit records when every answer came with one; a model with both (older and newer
    logs) gets records built for its full samples, against the prompts of those samples."""
    texts = [a for a in answers if isinstance(a, AuditedAnswer)]
    if len(texts) == len(answers):
        return audit_model(model, texts, thresholds)
    if texts:
        prompts = PromptIndex([a.prompt for a in texts])
        built = {
            id(a): RecordedAnswer(
                answer_audit(
                    a.prompt, a.answer, a.baseline, "max_tokens" if a.truncated else None, prompts
                ),
                a.points,
            )
            for a in texts
        }
        answers = [built.get(id(a)) or a for a in answers]
    return audit_records(
        model, [a for a in answers if not isinstance(a, AuditedAnswer)], thresholds
    )


def read_model_samples(
    paths: Sequence[str | Path],
) -> tuple[dict[str, list[Answer]], list[str]]:
    """Audit samples per model from every judge log under ``paths``, and notes
    (``AnswerReader.by_model``)."""
    answers = AnswerReader()
    return answers.by_model(read_games(paths, answers))


def _may_be_probe_log(path: str) -> bool:
    """False for a log whose header (read without Inspect) names another task, so auditing judge
    logs does not import Inspect; anything unreadable is left to Inspect's reader, as before."""
    try:
        return read_header(path).task.split("/")[-1] == PROBE_TASK
    except Exception:  # noqa: BLE001  (Inspect's reader decides)
        return True


def read_probe_results(paths: Sequence[str | Path]) -> list[ProbeResult]:
    """Attack success per judge and probe from the ``arenahard_probes`` logs under ``paths``."""
    results = []
    for path in log_files(paths):
        if not _may_be_probe_log(path):
            continue
        from inspect_ai.log import read_eval_log  # probe logs are few: Inspect's own reader

        try:
            log = read_eval_log(path, header_only=True)
        except Exception:  # noqa: BLE001  (not an Inspect log: judge logs are read elsewhere)
            continue
        if log.eval.task.split("/")[-1] != PROBE_TASK or log.results is None:
            continue
        bound: Any = (log.eval.model_roles or {}).get("judge")
        if isinstance(bound, list):  # an ensemble
            judge = ",".join(str(m.model) for m in bound)
        else:
            judge = (
                str(bound.model)
                if bound is not None
                else str((log.eval.task_args or {}).get("judge") or "default judge")
            )
        metrics = {
            name: m.value for score in log.results.scores for name, m in score.metrics.items()
        }
        # a probe whose games all stayed unparsed has no rate (Inspect leaves unscored samples out)
        for name in (log.eval.metadata or {}).get("probes") or [m for m in metrics if m != "all"]:
            value = metrics.get(name)
            finite = (
                float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
            )
            results.append(ProbeResult(judge=judge, probe=name, attack_success=finite, log=path))
    return results


def audit_logs(
    paths: Sequence[str | Path], thresholds: Thresholds = Thresholds(), probes: bool = True
) -> AuditReport:
    """Every model's audit from the judge logs, and (``probes``) every probe result, under ``paths``."""
    report = audit_samples(*read_model_samples(paths), thresholds)
    report.probes = read_probe_results(paths) if probes else []
    return report


def audit_samples(
    by_model: dict[str, list[Answer]],
    notes: list[str],
    thresholds: Thresholds = Thresholds(),
) -> AuditReport:
    """Every model's audit from its samples (no probes)."""
    models = [
        audit_answers_of(model, samples, thresholds) for model, samples in sorted(by_model.items())
    ]
    return AuditReport(models=models, notes=notes)


def audit_answers(
    data_dir: str | Path, baseline: str | None = "gpt-4-0314", thresholds: Thresholds = Thresholds()
) -> AuditReport:
    """Audit the answer files of a folder in arena-hard-auto's layout (no judged games)."""
    folder = ArenaHardFolder(Path(data_dir))
    questions = {q.id: q.prompt for q in load_questions(folder.questions)}
    files = folder.answer_files()
    if not files:
        raise FileNotFoundError(f"no answer files in {folder.answers}")
    base = load_answers(folder.answer_file(baseline)) if baseline else {}
    report = AuditReport()
    for path in files:
        answers = load_answers(path)
        unknown = [qid for qid in answers if qid not in questions]
        if unknown:
            raise ValueError(
                f"{path}: {len(unknown)} answers to questions not in question.jsonl (e.g. {unknown[0]})"
            )
        samples = [
            AuditedAnswer(questions[qid], a.text, base[qid].text if qid in base else None)
            for qid, a in answers.items()
        ]
        report.models.append(audit_model(path.stem, samples, thresholds))
    return report


def model_flags(paths: Sequence[str | Path]) -> dict[str, list[str]]:
    """Flags per model for the leaderboard's ``flags`` column (``flags_of``)."""
    return flags_of(audit_samples(*read_model_samples(paths)))


def flags_of(report: AuditReport) -> dict[str, list[str]]:
    """Flags per model; sample members the audit could not read are named on stderr (the
    ranking's own summary line counts them too)."""
    for note in report.notes:
        if note.startswith("partly read"):
            print(f"audit: {note}", file=sys.stderr)
    return {m.model: m.flags for m in report.models}
