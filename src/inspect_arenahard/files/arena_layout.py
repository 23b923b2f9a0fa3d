"""arena-hard-auto's data folder layout, named once.

A folder holds ``question.jsonl``, the stored answers ``model_answer/<model>.jsonl`` and the
judgments ``model_judgment/<judge>/<model>.jsonl``; the task, the importer, the audit and the hub
download all find those files through ``ArenaHardFolder``, so the layout cannot drift. Each
file may also be a gzip copy (``question.jsonl.gz``), as in the sample the package ships.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspect_arenahard.files.jsonl import jsonl_file, jsonl_files

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
        return jsonl_file(self.root / QUESTIONS)

    @property
    def answers(self) -> Path:
        """The folder of stored answers, one file per model."""
        return self.root / ANSWERS

    def answer_file(self, model: str) -> Path:
        """One model's stored answers (the file may not exist)."""
        return jsonl_file(self.answers / f"{model}.jsonl")

    def answer_files(self) -> list[Path]:
        """Every stored answer file, sorted by name."""
        return list(self.answers_by_model().values())

    def answers_by_model(self) -> dict[str, Path]:
        """Every stored answer file by model name, sorted by name."""
        return jsonl_files(self.answers)

    def judgments(self, judge: str) -> Path:
        """The folder of one judge's judgment files, one per judged model."""
        return self.root / JUDGMENTS / judge

    def judgment_files(self, judge: str) -> list[Path]:
        """One judge's judgment files, sorted by judged model."""
        return list(jsonl_files(self.judgments(judge)).values())

    def judges(self) -> list[str]:
        """The judges with a judgment folder, sorted."""
        return sorted(p.name for p in (self.root / JUDGMENTS).glob("*") if p.is_dir())


def release_files(models: list[str]) -> list[str]:
    """Paths inside a release folder (as the hub download names them) of the questions and the
    given models' answers."""
    return [QUESTIONS] + [f"{ANSWERS}/{m}.jsonl" for m in models]
