"""The examiner (``autoarena_questions``): an LLM drafts battle questions for each domain.

One sample per domain sends the paper's examiner prompt (Zhao et al. 2024, Appendix A.1.1); the
prompt never mentions the arena, so the examiner is not told it will compete. The scorer parses
the numbered list and removes repeats;
``inspect_arenahard.arena.questions.questions_from_log`` removes repeats across samples and
epochs and numbers the questions ``<domain>-001`` …, the rows
``autoarena_battle -T questions=`` reads (it also reads the log itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

from inspect_arenahard.arena.domains import Domain, parse_domains
from inspect_arenahard.arena.questions import normalized
from inspect_arenahard.errors import task_errors
from inspect_arenahard.judging.templates import template

_PAREN = re.compile(r"^[ \t]*\(\s*\d+\s*\)[ \t]*[.:]?[ \t]*", re.M)
_PLAIN = re.compile(r"^[ \t]*\d+[ \t]*[.)][ \t]*", re.M)


@dataclass(frozen=True)
class ParsedList:
    """Questions found in one examiner reply, in order, without repeats."""

    questions: list[str]
    duplicates: int
    preamble: str
    """Text before the first numbered item (ignored, reported)."""


def parse_numbered_list(text: str) -> ParsedList:
    """Items numbered ``(1).`` as the prompt asks, or ``1.``/``1)`` when no item uses parentheses.

    An item runs to the next marker, so multi-line items (extraction contexts) stay whole.
    """
    marker = _PAREN if _PAREN.search(text) else _PLAIN
    starts = list(marker.finditer(text))
    if not starts:
        return ParsedList([], 0, text.strip())
    items = [
        text[m.end() : nxt.start() if nxt else len(text)].strip()
        for m, nxt in zip(starts, [*starts[1:], None])
    ]
    unique, seen = [], set()
    for item in filter(None, items):
        key = normalized(item)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return ParsedList(
        unique, len([i for i in items if i]) - len(unique), text[: starts[0].start()].strip()
    )


def _examiner_prompt(dom: Domain, number: int) -> str:
    return template("autoarena_examiner").format(
        number=number, domain=dom.name, domain_command=dom.command, domain_example=dom.example
    )


@scorer(metrics=[mean(), stderr()])
def examiner_questions() -> Scorer:
    """Value: questions parsed from the reply (after removing repeats); metadata holds them."""

    async def score(state: TaskState, target: Target) -> Score:
        parsed = parse_numbered_list(state.output.completion)
        requested = int(state.metadata["requested"])
        metadata = {
            "domain": state.metadata["domain"],
            "requested": requested,
            "questions": parsed.questions,
            "duplicates": parsed.duplicates,
            "preamble": parsed.preamble,
        }
        return Score(
            value=len(parsed.questions),
            answer=f"{len(parsed.questions)}/{requested}",
            metadata=metadata,
        )

    return score


@task
@task_errors
def autoarena_questions(domains: str | list[str] = "all", per_domain: int = 5) -> Task:
    """Auto-Arena examiner: ``per_domain`` questions for each domain from the ``--model``.

    Args:
        domains: ``all`` or comma-separated keys/names (writing, roleplay, extraction,
            reasoning, math, coding, stem, humanities).
        per_domain: Questions asked for per domain ([NUMBER] in the prompt); use ``--epochs``
            for more drafts (repeats across drafts are removed on export).
    """
    if per_domain < 1:
        raise ValueError(f"per_domain must be at least 1, got {per_domain}")
    samples = [
        Sample(
            id=d.key,
            input=_examiner_prompt(d, per_domain),
            metadata={"domain": d.key, "requested": per_domain},
        )
        for d in parse_domains(domains)
    ]
    return Task(
        dataset=MemoryDataset(samples, name="autoarena-questions"),
        solver=generate(),
        scorer=examiner_questions(),
    )
