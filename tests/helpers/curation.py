"""The curation tests' pools: real arena-hard prompts with a deterministic stand-in annotation,
and real conversation records to cut into shards."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from inspect_arenahard.cli import main
from inspect_arenahard.evaluate.dataset import Question, load_questions
from inspect_arenahard.files.jsonl import read_jsonl
from tests.helpers.shared_data import shared


def sixty_questions() -> list[Question]:
    """The first 60 arena-hard v0.1 questions."""
    return load_questions(shared("arena-hard-v0.1", "question.jsonl"))[:60]


def quality(prompt: str) -> int:
    """A deterministic stand-in label: longer prompts satisfy more criteria."""
    return min(7, len(prompt) // 150)


def real_records() -> list[dict]:
    """2,907 real prompts as conversation records: LMSYS-Chat (multi-turn, with a language),
    catalog prompts (with their official topic) and WildChat-hard-ru (with its category)."""
    pools = shared("prompt_pools")
    records = []
    for _, r in read_jsonl(pools / "lmsys_chat_1m_sample" / "lmsys_1000.jsonl"):
        messages = [{"role": m["role"], "content": m["content"]} for m in r["conversation"]]
        records.append(
            {
                "conversation_id": r["conversation_id"],
                "conversation": messages,
                "language": r["language"],
                "category": None,
            }
        )
    catalog = pools / "lmarena_arena_catalog" / "explorer_data3_examples.json"
    for group in json.loads(catalog.read_text(encoding="utf-8")):
        for i, example in enumerate(group["examples"]):
            records.append(
                {
                    "conversation_id": f"catalog-{group['id']}-{i}",
                    "conversation": [{"role": "user", "content": example}],
                    "language": None,
                    "category": group["name"],
                }
            )
    wildchat = pools / "wildchat_hard_ru" / "wildchat_hard_ru.json"
    for r in json.loads(wildchat.read_text(encoding="utf-8")):
        records.append(
            {
                "conversation_id": r["id"],
                "conversation": [{"role": "user", "content": r["instruction"]}],
                "language": "Russian",
                "category": r["cat"],
            }
        )
    return records


def write_jsonl(path: Path, records: list[dict]) -> None:
    """Records as JSON lines (gzip when the name ends in ``.gz``), U+2028 written raw."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def ingest_cli(work: Path, *sources: str | Path, engine: str = "local", limit: int = 0) -> int:
    """``arenahard curate ingest`` of ``sources`` into ``work``; its exit status."""
    flags = [a for s in sources for a in ("--source", str(s))] + ["--engine", engine]
    return main(
        ["curate", "ingest", *flags, "--out", str(work), *(["--limit", str(limit)] * bool(limit))]
    )
