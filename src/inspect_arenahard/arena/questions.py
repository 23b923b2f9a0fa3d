"""Battle questions: JSONL rows ``{id, question, domain}`` (what the examiner produces and the
battle task reads), and the per-pairing selection balanced over domains."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Sequence

from inspect_arenahard.arena.domains import domain, domains
from inspect_arenahard.data import read_jsonl

LOG_SUFFIXES = (".eval", ".json")


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    domain: str
    """A domain key (``writing``, ``stem`` …)."""


def load_questions(path: str | Path) -> list[Question]:
    """Questions from a JSONL file, or straight from an ``autoarena_questions`` log.

    Every problem is one error naming the file, line and field; duplicate ids are errors.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"questions file not found: {path}")
    if path.suffix in LOG_SUFFIXES:
        from inspect_arenahard.arena.examiner import questions_from_log

        return questions_from_log(path).questions
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for lineno, row in read_jsonl(path):
        where = f"{path}:{lineno}"
        for name in ("id", "question", "domain"):
            if row.get(name) in (None, ""):
                raise ValueError(f"{where}: missing field {name!r}")
        if not isinstance(row["question"], str):
            raise ValueError(f"{where}: field 'question' must be a string, got {type(row['question']).__name__}")
        qid = str(row["id"])
        if qid in seen:
            raise ValueError(f"{where}: duplicate id {qid!r} (first on line {seen[qid]})")
        seen[qid] = lineno
        questions.append(Question(qid, row["question"], domain(str(row["domain"]), f"{where}: field 'domain'").key))
    if not questions:
        raise ValueError(f"{path}: no questions")
    return questions


def write_questions(path: str | Path, questions: Iterable[Question]) -> int:
    """Write JSONL rows; returns how many."""
    rows = [json.dumps(asdict(q), ensure_ascii=False) for q in questions]
    Path(path).write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def select_questions(questions: Sequence[Question], n: int | None, seed: int | str) -> list[Question]:
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
    chosen: list[Question] = []
    depth = 0
    while len(chosen) < n:
        chosen += [pool[depth] for pool in pools if depth < len(pool)][: n - len(chosen)]
        depth += 1
    return chosen
