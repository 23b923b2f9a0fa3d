"""Convert arena-hard-auto judgment files into Inspect logs.

Each ``model_judgment/<judge>/<model>.jsonl`` becomes one log of the ``arenahard`` task whose
sample scores follow the ``pairwise_judge`` contract, so imported judgments open in
``inspect view`` and flow through ``arenahard leaderboard`` exactly like live runs.

arena-hard-auto's game 1 shows the baseline as Assistant A and game 2 swaps the answers; a
game's ``score`` is the label it parsed (``null`` when it parsed none). A whole game is ``null``
when the judge API returned nothing: it is imported as an unparsed game (counted, never a tie).

Baselines. A 2025 record names its own ``baseline`` (and ``category``): v2.0 judges hard
prompts against o3-mini and creative writing against gemini-2.0-flash. Each record's baseline
comes from the record, else from ``--baseline``, else from the version's per-category default
(``scorers/configs``); ``--baseline`` never overrides a record (a contradiction is reported).

Imported logs read in ``inspect view`` like live runs: the run starts and ends at the judgment
file's modification time (when its judgments were last written; a duration of zero, as nothing
was run here), and each sample carries one info event naming the file and line its judgment came
from instead of an empty transcript. The header's metrics are those of a live run
(``games_vs_baseline`` first), and none is NaN: a log with no parsed judgment has none.

An import is all or nothing: every log is written to a scratch folder inside ``out`` and moved
into place only once every file has converted; any error leaves ``out`` as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai.event import InfoEvent
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score

from inspect_arenahard.errors import UserError
from inspect_arenahard.evaluate.dataset import (
    Question,
    StoredAnswer,
    hub_download,
    hub_listing,
    load_answers,
    load_questions,
)
from inspect_arenahard.evaluate.scorers import headline_score
from inspect_arenahard.evaluate.solvers import BASELINE_ANSWER, BASELINE_MODEL
from inspect_arenahard.evaluate.task import baseline_for
from inspect_arenahard.evaluate.version_config import version_config
from inspect_arenahard.files.arena_layout import (
    JUDGMENTS,
    QUESTIONS,
    ArenaHardFolder,
    release_files,
)
from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.files.sample_data import IMPORT_SAMPLE, sample_folder
from inspect_arenahard.judging.answer_audit import PromptIndex, answer_audit
from inspect_arenahard.judging.games import Game, explain
from inspect_arenahard.judging.style_features import style_features
from inspect_arenahard.stats.estimates import official_rules
from inspect_arenahard.stats.game_record import SCORE_RECORDS, SCORE_RECORDS_VERSION, GameScore
from inspect_arenahard.stats.sample_usage import SampleUsage
from inspect_arenahard.stats.verdict_points import check_strong_weight, normalize_label

_ANSWER_IN = {
    pos: re.compile(
        rf"<\|The Start of Assistant {pos}'s Answer\|>\n(.*?)\n<\|The End of Assistant {pos}'s Answer\|>",
        re.S,
    )
    for pos in ("A", "B")
}


def _answers(data_dir: Path) -> dict[str, dict[str, StoredAnswer]]:
    return {
        name: load_answers(p) for name, p in ArenaHardFolder(data_dir).answers_by_model().items()
    }


def _match_answers(
    name: str, answers: dict[str, dict[str, StoredAnswer]]
) -> dict[str, StoredAnswer] | None:
    """Answers of ``name``, matched exactly or case-insensitively on the file stem."""
    if name in answers:
        return answers[name]
    lowered = {k.lower(): v for k, v in answers.items()}
    return lowered.get(name.lower()) or lowered.get(name.split("__")[-1].lower())


def detect_version(questions: Iterable[Question]) -> str:
    """``v2.0`` when every question is in a v2.0 category (hard_prompt, creative_writing), else ``v0.1``."""
    v2 = set(version_config("v2.0").baseline.by_category)
    return "v2.0" if all(q.category in v2 for q in questions) else "v0.1"


@dataclass
class Imported:
    """What an import wrote: (log path, samples, unparsed games) per judged model, and warnings."""

    logs: list[tuple[Path, int, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Source:
    """Everything a judgment file is read against."""

    questions: dict[str, Question]
    answers: dict[str, dict[str, StoredAnswer]]
    version: str
    baseline: str | None
    strong_weight: int
    encoding: str
    prompts: PromptIndex = field(init=False)
    """The questions' prompts, for each answer's audit record."""

    def __post_init__(self) -> None:
        self.prompts = PromptIndex([q.prompt for q in self.questions.values()])

    def default_baseline(self, category: str | None) -> str | None:
        """``--baseline``, else the version's baseline for ``category``."""
        return self.baseline or baseline_for(version_config(self.version), category, None)


HUB_VERSION = "v0.1"
"""The release read from the hub when neither a folder nor ``--version`` is given (the
``arenahard`` task's default version)."""


def release_folder(
    data_dir: str | Path | None, judge: str, version: str | None = None, sample: bool = False
) -> Path:
    """The arena-hard-auto data folder an import reads: the shipped sample, a local folder, or
    (neither given) the official release on the Hugging Face hub, downloaded with the task's
    caching and revision pinning: the questions, ``judge``'s judgments and the answers of the
    baselines and of the judged models."""
    if sample:
        return sample_folder(IMPORT_SAMPLE)
    if data_dir is not None:
        return Path(data_dir)
    version = version or HUB_VERSION
    instead = (
        "Import the shipped sample (arenahard import arena-hard-auto --sample --judge gpt-4o "
        f"--out DIR) or a local copy (arenahard import arena-hard-auto DATA_DIR --judge {judge} --out DIR)."
    )
    wanted = [QUESTIONS, f"{JUDGMENTS}/{judge}/*.jsonl"]
    folder = ArenaHardFolder(hub_download(version, wanted, instead))
    judged = [p.name.removesuffix(".jsonl") for p in folder.judgment_files(judge)]
    if not judged:
        judges = hub_listing(version, JUDGMENTS, instead)
        raise UserError(
            f"no judge {judge!r} in Arena-Hard {version} on the hub (judges: {', '.join(judges) or 'none'})"
        )
    models = sorted({*version_config(version).baseline.models(), *judged})
    return hub_download(version, release_files(models), instead)


def _judgment_files(data_dir: Path, judge: str) -> list[Path]:
    """The judgment files of ``judge``; an unknown judge lists the judges the folder holds."""
    folder = ArenaHardFolder(data_dir)
    files = folder.judgment_files(judge)
    if files:
        return files
    where, judges = folder.judgments(judge).parent, folder.judges()
    if not judges:
        raise UserError(f"no judgment files in {where}")
    raise UserError(
        f"no judgment files for judge {judge!r} in {where} (judges: {', '.join(judges)})"
    )


def import_judgments(
    data_dir: str | Path,
    judge: str,
    out: str | Path,
    baseline: str | None = None,
    strong_weight: int | None = None,
    encoding: str | None = None,
    version: str | None = None,
) -> Imported:
    """Write one Inspect log per judged model, all or nothing.

    ``version`` (default: ``detect_version``) picks the per-category default baselines, the
    tokenizer for style features computed from text (``encoding``) and, downstream, the
    official scoring rules. Style features come from the stored answers' metadata, or are
    computed from answer texts recovered from the judge prompts when no answer file matches.
    """
    data_dir, out = Path(data_dir), Path(out)
    files = _judgment_files(data_dir, judge)
    questions = load_questions(ArenaHardFolder(data_dir).questions)
    version = version or detect_version(questions)
    if version not in ("v0.1", "v2.0"):
        raise ValueError(f"unknown version {version!r}; choose v0.1 or v2.0")
    cfg = version_config(version)
    source = _Source(
        {q.id: q for q in questions}, _answers(data_dir), version, baseline,
        check_strong_weight(cfg.strong_weight if strong_weight is None else strong_weight),
        encoding or cfg.token_encoding,
    )  # fmt: skip
    result = Imported()
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".arenahard-import-", dir=out))
    try:
        staged = []
        for path in files:
            log, unparsed = _log_for(path, source, result.warnings)
            name = f"{log.eval.created[:19].replace(':', '-')}_arenahard_{log.eval.task_id}.eval"
            write_eval_log(log, str(scratch / name))
            staged.append((name, len(log.samples or []), unparsed))
        for name, samples, unparsed in staged:
            os.replace(scratch / name, out / name)
            result.logs.append((out / name, samples, unparsed))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return result


def _log_for(path: Path, source: _Source, warnings: list[str]) -> tuple[EvalLog, int]:
    samples: dict[str, EvalSample] = {}
    lines: dict[str, int] = {}
    model = judge_name = None
    unparsed: dict[str, int] = {}
    contradicted: dict[str, int] = {}
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        for key in ("model", "judge", "games"):
            if key not in record:
                raise ValueError(f"{where}: missing field '{key}'")
        if "question_id" not in record and "uid" not in record:
            raise ValueError(f"{where}: missing field 'question_id' or 'uid'")
        model, judge_name = record["model"], record["judge"]
        qid = str(record.get("question_id", record.get("uid")))
        if qid not in source.questions:
            raise ValueError(f"{where}: question_id {qid!r} is not in question.jsonl")
        if not isinstance(record["games"], list) or len(record["games"]) != 2:
            raise ValueError(f"{where}: field 'games' must hold the two swapped games")
        question = source.questions[qid]
        category = record.get("category") or question.category
        baseline = record.get("baseline") or source.default_baseline(category)
        if baseline is None:
            raise ValueError(
                f"{where}: the record names no baseline and category {category!r} has no default; pass --baseline"
            )
        if source.baseline and record.get("baseline") and record["baseline"] != source.baseline:
            contradicted[record["baseline"]] = contradicted.get(record["baseline"], 0) + 1
        games = [
            _game(game, number, str(judge_name), where)
            for number, game in enumerate(record["games"], start=1)
        ]
        if qid in samples:
            warnings.append(
                f"{where}: question {qid!r} judged again (first on line {lines[qid]}); the later judgment is kept"
            )
        lines[qid], unparsed[qid] = lineno, sum(g.label is None for g in games)
        samples[qid] = _sample(
            qid, question.prompt, category, str(model), str(baseline), games, source, record
        )
        samples[qid].events = [
            InfoEvent(
                timestamp=_modified(path),
                source="arenahard import",
                data=f"judgment imported from {path}, line {lineno} (judge {judge_name}); "
                "no model or judge was called in this log",
            )
        ]
    if model is None:
        raise ValueError(f"{path}: no judgments")
    for named, count in contradicted.items():
        warnings.append(
            f"{path}: {count} records name baseline {named!r}; --baseline {source.baseline} applies only to records without one"
        )
    return _eval_log(
        path, str(model), str(judge_name), source.version, list(samples.values()),
        source.strong_weight,
    ), sum(unparsed.values())  # fmt: skip


def _game(game: Any, number: int, judge: str, where: str) -> Game:
    """One game; ``null`` (the judge API returned nothing) or ``score: null`` is an unparsed game."""
    if game is not None and not isinstance(game, dict):
        raise ValueError(
            f"{where}: games[{number - 1}] must be an object or null, got {type(game).__name__}"
        )
    raw = (game or {}).get("score")
    label = normalize_label(raw) if isinstance(raw, str) and raw else None
    if raw and label is None:
        raise ValueError(f"{where}: games[{number - 1}].score {raw!r} is not a verdict label")
    reasoning = (
        _text((game or {}).get("judgment"))
        if game is not None
        else "(no judgment: the game is null in the judgment file)"
    )
    return Game(
        judge,
        number,
        "B" if number == 1 else "A",
        label,
        label is not None,
        1 if game is not None else 0,
        reasoning,
    )


def _sample(
    qid: str,
    prompt: str,
    category: str | None,
    model: str,
    baseline: str,
    games: list[Game],
    source: _Source,
    record: dict[str, Any],
) -> EvalSample:
    model_text, model_style = _answer_and_style(
        _match_answers(model, source.answers), qid, record, "model", source.encoding
    )
    baseline_text, baseline_style = _answer_and_style(
        _match_answers(baseline, source.answers), qid, record, "baseline", source.encoding
    )
    style = (
        {"model": model_style, "baseline": baseline_style}
        if model_style and baseline_style
        else None
    )
    game_score = GameScore(
        model=model,
        baseline=baseline,
        category=category,
        games=tuple(g.scored() for g in games),
        strong_weight=source.strong_weight,
        style=style,
        audit=answer_audit(prompt, model_text or "", baseline_text, "stop", source.prompts),
        usage=SampleUsage(),  # no model or judge was called
    )
    metadata = game_score.metadata()
    value = game_score.points()
    labels = ", ".join(f"g{g.game}:{g.label or 'unparsed'}" for g in games)
    score = (
        Score(value=value, answer=labels, explanation=explain(games), metadata=metadata)
        if value is not None
        else Score.unscored(
            reason="no judge verdict parsed",
            answer=labels,
            explanation=explain(games),
            metadata=metadata,
        )
    )
    completion = model_text or ""
    return EvalSample(
        id=qid,
        epoch=1,
        input=prompt,
        target="",
        messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=completion)],
        output=ModelOutput.from_content(model=model, content=completion),
        scores={"pairwise_judge": score},
        metadata={
            "category": category,
            BASELINE_MODEL: baseline,
            BASELINE_ANSWER: baseline_text,
        },
    )


def _answer_and_style(
    stored: dict[str, StoredAnswer] | None,
    qid: str,
    record: dict[str, Any],
    role: str,
    encoding: str,
) -> tuple[str | None, Any]:
    """An answer's text and style: the stored answer, else recovered from a judge prompt (game 1
    shows the baseline as Assistant A, game 2 as B), with features computed from the text."""
    answer = stored.get(qid) if stored else None
    if answer is not None:
        return answer.text, answer.style or style_features(answer.text, encoding)
    for game, baseline_position in zip(record["games"], ("A", "B")):
        position = baseline_position if role == "baseline" else "AB".replace(baseline_position, "")
        found = _ANSWER_IN[position].search(_judge_prompt(game)) if isinstance(game, dict) else None
        if found is not None:
            return found.group(1), style_features(found.group(1), encoding)
    return None, None


def _text(value: Any) -> str:
    """Judge output as text: a string (legacy schema) or ``{"answer": ...}`` (2025 schema)."""
    if isinstance(value, dict):
        value = value.get("answer")
    return value if isinstance(value, str) else ""


def _judge_prompt(game: dict[str, Any]) -> str:
    """The judge's user turn: ``user_prompt`` (legacy) or the last user message of ``prompt`` (2025)."""
    if isinstance(game.get("user_prompt"), str):
        return str(game["user_prompt"])
    users = [
        m.get("content")
        for m in game.get("prompt") or []
        if isinstance(m, dict) and m.get("role") == "user"
    ]
    return _text(users[-1]) if users else ""


def _run_id(path: Path) -> str:
    """A stable id per judgment file (re-importing replaces the log); letters and digits only, so
    that Inspect's ``{timestamp}_{task}_{id}`` file names parse."""
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:22]


def _modified(path: Path) -> datetime:
    """When the judgment file was last written: the imported run's start and end."""
    return datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)


def _metrics(samples: list[EvalSample], version: str) -> dict[str, EvalMetric]:
    """The live scorer's header metrics (``games_vs_baseline`` under the version's official
    rule for unparsed games, ``mean``, ``stderr``); none when no sample has a parsed verdict
    (never NaN)."""
    scores = [(s.id, (s.scores or {})["pairwise_judge"]) for s in samples]
    values = np.array([score.as_float() for _, score in scores])
    scored = values[~np.isnan(values)]
    headline = headline_score(
        ((sample_id, score.metadata or {}) for sample_id, score in scores),
        official_rules(version).unparsed,
    )
    if not len(scored) or headline is None:
        return {}
    stderr = float(scored.std(ddof=1) / np.sqrt(len(scored))) if len(scored) > 1 else 0.0
    return {
        "games_vs_baseline": EvalMetric(name="games_vs_baseline", value=headline),
        "mean": EvalMetric(name="mean", value=float(scored.mean())),
        "stderr": EvalMetric(name="stderr", value=stderr),
    }


def _eval_log(
    path: Path,
    model: str,
    judge: str,
    version: str,
    samples: list[EvalSample],
    strong_weight: int,
) -> EvalLog:
    created = _modified(path).isoformat()
    return EvalLog(
        eval=EvalSpec(
            created=created,
            task="arenahard",
            task_id=_run_id(path),
            run_id=_run_id(path),
            task_args={"version": version, "imported_from": str(path)},
            dataset=EvalDataset(name=path.parent.parent.parent.name, samples=len(samples)),
            model=model,
            config=EvalConfig(),
            metadata={
                "imported_judge": judge,
                "arenahard_version": version,
                SCORE_RECORDS: SCORE_RECORDS_VERSION,
            },
        ),
        status="success",
        stats=EvalStats(started_at=created, completed_at=created),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=len(samples),
            scores=[
                EvalScore(
                    name="pairwise_judge",
                    scorer="pairwise_judge",
                    metrics=_metrics(samples, version),
                )
            ],
        ),
        samples=samples,
    )
