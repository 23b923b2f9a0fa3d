"""Convert arena-hard-auto judgment files into Inspect logs.

Each ``model_judgment/<judge>/<model>.jsonl`` becomes one log of the ``arenahard`` task whose
sample scores follow the ``pairwise_judge`` contract, so imported judgments open in
``inspect view`` and flow through ``arenahard leaderboard`` exactly like live runs.

arena-hard-auto's game 1 shows the baseline as Assistant A and game 2 swaps the answers; a
game's ``score`` is the label it parsed (``null`` when it parsed none).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score

from inspect_arenahard.data import StoredAnswer, load_answers, load_questions, read_jsonl
from inspect_arenahard.judges import Game, explain, score_games
from inspect_arenahard.style import style_features
from inspect_arenahard.verdicts import STRONG_WEIGHT, normalize_label

_ANSWER_IN = {
    pos: re.compile(rf"<\|The Start of Assistant {pos}'s Answer\|>\n(.*?)\n<\|The End of Assistant {pos}'s Answer\|>", re.S)
    for pos in ("A", "B")
}


def _answers(data_dir: Path) -> dict[str, dict[str, StoredAnswer]]:
    return {p.stem: load_answers(p) for p in sorted((data_dir / "model_answer").glob("*.jsonl"))}


def _match_answers(name: str, answers: dict[str, dict[str, StoredAnswer]]) -> dict[str, StoredAnswer] | None:
    """Answers of ``name``, matched exactly or case-insensitively on the file stem."""
    if name in answers:
        return answers[name]
    lowered = {k.lower(): v for k, v in answers.items()}
    return lowered.get(name.lower()) or lowered.get(name.split("__")[-1].lower())


def import_judgments(
    data_dir: str | Path,
    judge: str,
    out: str | Path,
    baseline: str = "gpt-4-0314",
    strong_weight: float = STRONG_WEIGHT,
    encoding: str = "cl100k_base",
) -> list[tuple[Path, int, int]]:
    """Write one Inspect log per judged model; returns (log path, samples, unparsed games).

    Style features come from the stored answers' metadata, or are computed (with ``encoding``)
    from answer texts recovered from the judge prompts when no answer file matches the model.
    """
    data_dir, out = Path(data_dir), Path(out)
    judgment_dir = data_dir / "model_judgment" / judge
    files = sorted(judgment_dir.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no judgment files in {judgment_dir}")
    questions = {q.id: q for q in load_questions(data_dir / "question.jsonl")}
    answers = _answers(data_dir)
    baseline_answers = _match_answers(baseline, answers)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in files:
        log, unparsed = _log_for(path, questions, answers, baseline, baseline_answers, strong_weight, encoding)
        location = out / f"{log.eval.created[:19].replace(':', '-')}_arenahard-import_{judge}_{path.stem}.eval"
        write_eval_log(log, str(location))
        written.append((location, len(log.samples or []), unparsed))
    return written


def _log_for(
    path: Path,
    questions: dict[str, Any],
    answers: dict[str, dict[str, StoredAnswer]],
    baseline: str,
    baseline_answers: dict[str, StoredAnswer] | None,
    strong_weight: float,
    encoding: str,
) -> tuple[EvalLog, int]:
    samples: list[EvalSample] = []
    model = judge_name = None
    unparsed = 0
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        for key in ("model", "judge", "games"):
            if key not in record:
                raise ValueError(f"{where}: missing field '{key}'")
        if "question_id" not in record and "uid" not in record:
            raise ValueError(f"{where}: missing field 'question_id' or 'uid'")
        model, judge_name = record["model"], record["judge"]
        qid = str(record.get("question_id", record.get("uid")))
        if qid not in questions:
            raise ValueError(f"{where}: question_id {qid!r} is not in question.jsonl")
        if len(record["games"]) != 2:
            raise ValueError(f"{where}: field 'games' must hold the two swapped games")
        games = []
        for number, game in enumerate(record["games"], start=1):
            raw = game.get("score")
            label = normalize_label(raw) if raw else None
            if raw and label is None:
                raise ValueError(f"{where}: games[{number - 1}].score {raw!r} is not a verdict label")
            unparsed += label is None
            games.append(Game(judge_name, number, "B" if number == 1 else "A", label, label is not None, 1, _text(game.get("judgment"))))
        model_answers = _match_answers(model, answers)
        samples.append(
            _sample(qid, questions[qid].prompt, questions[qid].category, model, baseline, games, model_answers, baseline_answers, record, strong_weight, encoding)
        )
    if model is None:
        raise ValueError(f"{path}: no judgments")
    return _eval_log(path, str(model), str(judge_name), baseline, samples), unparsed


def _sample(
    qid: str,
    prompt: str,
    category: str | None,
    model: str,
    baseline: str,
    games: list[Game],
    model_answers: dict[str, StoredAnswer] | None,
    baseline_answers: dict[str, StoredAnswer] | None,
    record: dict[str, Any],
    strong_weight: float,
    encoding: str,
) -> EvalSample:
    model_text, model_style = _answer_and_style(model_answers, qid, record, "B", encoding)
    baseline_text, baseline_style = _answer_and_style(baseline_answers, qid, record, "A", encoding)
    style = {"model": model_style, "baseline": baseline_style} if model_style and baseline_style else None
    metadata = {
        "model": model,
        "baseline": baseline,
        "category": category,
        "strong_weight": strong_weight,
        "games": [{k: getattr(g, k) for k in ("judge", "game", "model_position", "label", "parsed", "attempts")} for g in games],
        "style": style,
    }
    value = score_games(games, strong_weight)
    labels = ", ".join(f"g{g.game}:{g.label or 'unparsed'}" for g in games)
    score = (
        Score(value=value, answer=labels, explanation=explain(games), metadata=metadata)
        if value is not None
        else Score.unscored(reason="no judge verdict parsed", answer=labels, explanation=explain(games), metadata=metadata)
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
        metadata={"category": category, "baseline_model": baseline, "baseline_answer": baseline_text},
    )


def _answer_and_style(
    stored: dict[str, StoredAnswer] | None, qid: str, record: dict[str, Any], position: str, encoding: str
) -> tuple[str | None, Any]:
    """An answer's text and style: the stored answer, else recovered from game 1's judge prompt
    (baseline = Assistant A, model = Assistant B), with features computed from the text."""
    answer = stored.get(qid) if stored else None
    if answer is not None:
        return answer.text, answer.style or style_features(answer.text, encoding)
    found = _ANSWER_IN[position].search(_judge_prompt(record["games"][0]))
    if found is None:
        return None, None
    return found.group(1), style_features(found.group(1), encoding)


def _text(value: Any) -> str:
    """Judge output as text: a string (legacy schema) or ``{"answer": ...}`` (2025 schema)."""
    if isinstance(value, dict):
        value = value.get("answer")
    return value if isinstance(value, str) else ""


def _judge_prompt(game: dict[str, Any]) -> str:
    """The judge's user turn: ``user_prompt`` (legacy) or the last user message of ``prompt`` (2025)."""
    if isinstance(game.get("user_prompt"), str):
        return str(game["user_prompt"])
    users = [m.get("content") for m in game.get("prompt") or [] if isinstance(m, dict) and m.get("role") == "user"]
    return _text(users[-1]) if users else ""


def _eval_log(path: Path, model: str, judge: str, baseline: str, samples: list[EvalSample]) -> EvalLog:
    values = np.array([s.scores["pairwise_judge"].value for s in samples], dtype=float)  # type: ignore[index]
    scored = values[~np.isnan(values)]
    stderr = float(scored.std(ddof=1) / np.sqrt(len(scored))) if len(scored) > 1 else 0.0
    created = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).isoformat()
    return EvalLog(
        eval=EvalSpec(
            created=created,
            task="arenahard",
            task_args={"version": "imported", "imported_from": str(path), "baseline": baseline},
            dataset=EvalDataset(name=path.parent.parent.parent.name, samples=len(samples)),
            model=model,
            config=EvalConfig(),
            metadata={"imported_judge": judge},
        ),
        status="success",
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=len(samples),
            scores=[
                EvalScore(
                    name="pairwise_judge",
                    scorer="pairwise_judge",
                    metrics={
                        "mean": EvalMetric(name="mean", value=float(scored.mean()) if len(scored) else float("nan")),
                        "stderr": EvalMetric(name="stderr", value=stderr),
                    },
                )
            ],
        ),
        samples=samples,
    )
