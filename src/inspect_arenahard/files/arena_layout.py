"""arena-hard-auto's data folder layout, named once.

A folder holds ``question.jsonl``, the stored answers ``model_answer/<model>.jsonl`` and the
judgments ``model_judgment/<judge>/<model>.jsonl``; the task, the importer, the audit and the hub
download all find those files through :class:`ArenaHardFolder`, so the layout cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

QUESTIONS = "question.jsonl"
ANSWERS = "model_answer"
JUDGMENTS = "model_judgment"


@dataclass(frozen=True)
class ArenaHardFolder:
    """A folder in arena-hard-auto's layout (local, or a relative folder of the hub release)."""

    root: Path

    @property
    def questions(self) -> Path:
        """The benchmark's prompts."""
        return self.root / QUESTIONS

    @property
    def answers(self) -> Path:
        """The folder of stored answers, one file per model."""
        return self.root / ANSWERS

    def answer_file(self, model: str) -> Path:
        """One model's stored answers (the file may not exist)."""
        return self.answers / f"{model}.jsonl"

    def answer_files(self) -> list[Path]:
        """Every stored answer file, sorted by name."""
        return sorted(self.answers.glob("*.jsonl"))

    def judgments(self, judge: str) -> Path:
        """The folder of one judge's judgment files, one per judged model."""
        return self.root / JUDGMENTS / judge


def hub_patterns(folder: str, models: list[str]) -> list[str]:
    """Paths inside the hub release of the questions and the given models' answers."""
    root = PurePosixPath(folder)
    return [str(root / QUESTIONS)] + [str(root / ANSWERS / f"{m}.jsonl") for m in models]
