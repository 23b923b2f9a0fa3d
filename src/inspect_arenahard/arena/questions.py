"""Battle questions: JSONL rows ``{id, question, domain}`` or an ``autoarena_questions`` log
(what the examiner produces and the battle task reads), and the per-pairing selection
balanced over domains."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from inspect_ai.log import read_eval_log

from inspect_arenahard.arena.domains import domain, domains
from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.logs.reader import find_score

LOG_SUFFIXES = (".eval", ".json")
SCORER = "examiner_questions"
"""The examiner task's scorer, whose metadata holds the parsed questions."""


@dataclass(frozen=True)
class BattleQuestion:
    """One generated battle question, tagged with the domain it was asked for."""

    id: str
    question: str
    domain: str
    """A domain key (``writing``, ``stem`` …)."""


def normalized(text: str) -> str:
    """Key under which two questions count as the same: case and spacing ignored."""
    return " ".join(text.casefold().split())


def load_battle_questions(path: str | Path) -> list[BattleQuestion]:
    """Questions from a JSONL file, or straight from an ``autoarena_questions`` log.

    Every problem is one error naming the file, line and field; duplicate ids are errors.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"questions file not found: {path}")
    if path.suffix in LOG_SUFFIXES:
        return questions_from_log(path).questions
    questions: list[BattleQuestion] = []
    seen: dict[str, int] = {}
    for lineno, row in read_jsonl(path):
        where = f"{path}:{lineno}"
        for name in ("id", "question", "domain"):
            if row.get(name) in (None, ""):
                raise ValueError(f"{where}: missing field {name!r}")
        if not isinstance(row["question"], str):
            raise ValueError(
                f"{where}: field 'question' must be a string, got {type(row['question']).__name__}"
            )
        qid = str(row["id"])
        if qid in seen:
            raise ValueError(f"{where}: duplicate id {qid!r} (first on line {seen[qid]})")
        seen[qid] = lineno
        questions.append(
            BattleQuestion(
                qid, row["question"], domain(str(row["domain"]), f"{where}: field 'domain'").key
            )
        )
    if not questions:
        raise ValueError(f"{path}: no questions")
    return questions


def write_battle_questions(path: str | Path, questions: Iterable[BattleQuestion]) -> int:
    """Write JSONL rows; returns how many."""
    rows = [json.dumps(asdict(q), ensure_ascii=False) for q in questions]
    Path(path).write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def select_battle_questions(
    questions: Sequence[BattleQuestion], n: int | None, seed: int | str
) -> list[BattleQuestion]:
    """``n`` questions spread evenly over the domains present (paper: 40 = 5 × 8), seeded.

    Each domain's questions are shuffled with ``seed``; domains take turns (paper order) until
    ``n`` are chosen, so a domain with too few questions leaves its share to the others.
    ``None`` keeps every question.
    """
    if n is None:
        return list(questions)
    if n < 1:
        raise ValueError(f"battles per pairing must be at least 1, got {n}")
    if n > len(questions):
        raise ValueError(f"{n} questions requested but only {len(questions)} available")
    rng = random.Random(str(seed))
    pools = []
    for key in domains():
        pool = [q for q in questions if q.domain == key]
        rng.shuffle(pool)
        pools.append(pool)
    chosen: list[BattleQuestion] = []
    depth = 0
    while len(chosen) < n:
        chosen += [pool[depth] for pool in pools if depth < len(pool)][: n - len(chosen)]
        depth += 1
    return chosen


@dataclass
class ExaminerQuestions:
    """Questions of one examiner log, numbered per domain, and what was left out or missing."""

    questions: list[BattleQuestion] = field(default_factory=list)
    duplicates: Counter[str] = field(default_factory=Counter)
    """Repeats removed per domain (within and across replies)."""
    requested: Counter[str] = field(default_factory=Counter)
    unscored: list[str] = field(default_factory=list)
    """Samples (``domain#epoch``) with no parsed reply: errors or missing scores."""

    def notes(self) -> list[str]:
        """What the user should know: counts per domain, repeats removed, shortfalls, failures."""
        got = Counter(q.domain for q in self.questions)
        lines = [
            f"{d}: {got[d]} questions ({self.duplicates[d]} repeats removed)"
            for d in domains()
            if d in self.requested
        ]
        lines += [
            f"{d}: fewer questions than requested ({got[d]} < {self.requested[d]})"
            for d in domains()
            if got[d] < self.requested[d]
        ]
        lines += [f"sample {s}: no reply parsed (error or unscored)" for s in self.unscored]
        return lines


def questions_from_log(path: str | Path) -> ExaminerQuestions:
    """Every question in an ``autoarena_questions`` log, repeats removed, ids ``<domain>-NNN``."""
    log = read_eval_log(str(path))
    if log.eval.task.split("/")[-1] != "autoarena_questions":
        raise ValueError(f"{path}: not an autoarena_questions log (task {log.eval.task})")
    result = ExaminerQuestions()
    by_domain: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    for sample in log.samples or []:
        score = find_score(sample.scores, SCORER)
        if score is None or score.metadata is None:
            result.unscored.append(f"{sample.id}#{sample.epoch}")
            continue
        meta: dict[str, Any] = score.metadata
        key = str(meta["domain"])
        result.requested[key] += int(meta["requested"])
        result.duplicates[key] += int(meta["duplicates"])
        for text in meta["questions"]:
            if (key, normalized(text)) in seen:
                result.duplicates[key] += 1
                continue
            seen.add((key, normalized(text)))
            by_domain.setdefault(key, []).append(text)
    for key in domains():
        result.questions += [
            BattleQuestion(f"{key}-{i:03d}", text, key)
            for i, text in enumerate(by_domain.get(key, []), 1)
        ]
    if not result.questions:
        raise ValueError(f"{path}: no questions parsed from the examiner's replies")
    return result
