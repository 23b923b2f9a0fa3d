"""The real sample data shipped inside the package (gzip, Apache-2.0; provenance in
``sample/README.md``), so that the offline quick starts need nothing beside the installed package.

Commands name it, not its path: ``arenahard import arena-hard-auto --sample`` reads
``IMPORT_SAMPLE``, and a curation source ``sample:NAME`` reads release ``NAME``'s questions.
"""

from __future__ import annotations

from pathlib import Path

from inspect_arenahard.errors import UserError

SAMPLE_ROOT = Path(__file__).parent / "sample"
"""The shipped folder: one arena-hard-auto data folder per release, plus README.md and LICENSE."""

IMPORT_SAMPLE = "arena-hard-v0.1"
"""The release ``arenahard import arena-hard-auto --sample`` reads (questions, the baseline's
answers and published judgments of four judges)."""

PREFIX = "sample:"
"""How a curation source names a shipped release: ``sample:arena-hard-v2.0``."""


def sample_names() -> list[str]:
    """The shipped releases."""
    return sorted(p.name for p in SAMPLE_ROOT.iterdir() if p.is_dir())


def sample_folder(name: str = IMPORT_SAMPLE) -> Path:
    """The folder of a shipped release; an unknown name lists the shipped ones."""
    folder = SAMPLE_ROOT / name
    if not folder.is_dir():
        raise UserError(
            f"no shipped sample {name!r}; the package ships {', '.join(sample_names())}"
        )
    return folder


def is_sample(source: str) -> bool:
    """Whether a source string names a shipped release (``sample:NAME``)."""
    return source.startswith(PREFIX)


def sample_questions(source: str) -> Path:
    """The question file of the release a ``sample:NAME`` source names."""
    return sample_folder(source.removeprefix(PREFIX)) / "question.jsonl.gz"
