"""Content hashes, step reports and progress bars shared by every curation step.

A step is skipped when its report records the same key (a hash of its input files' contents
and its settings) and its outputs still exist, so re-running a pipeline only redoes what
changed. Reports are small JSON files that say what the step did (counts in and out).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, TypeVar

from tqdm.auto import tqdm

from inspect_arenahard.files.outputs import json_text, stamped

T = TypeVar("T")

CACHE_VERSION = 1
"""Bump to invalidate every cached step after a change in what a step computes."""


def text_digest(text: str) -> str:
    """Short content hash of one text (the embedding cache key)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def file_digest(path: Path) -> str:
    """Hash of a file's bytes, or of every file under a folder (names and bytes)."""
    h = hashlib.blake2b(digest_size=16)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        h.update(str(file.relative_to(path) if path.is_dir() else file.name).encode())
        with file.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def step_key(step: str, **parts: Any) -> str:
    """Cache key of a step run: its name, settings and input digests."""
    payload = json.dumps(
        {"step": step, "version": CACHE_VERSION, **parts}, sort_keys=True, default=str
    )
    return hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()


def read_report(path: Path) -> dict[str, Any] | None:
    """A step report, or None when it is missing or unreadable (then the step runs again)."""
    if not path.is_file():
        return None
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    return loaded if isinstance(loaded, dict) else None


def up_to_date(report_path: Path, key: str, outputs: Iterable[Path]) -> bool:
    """Whether a previous run with the same key left all its outputs."""
    report = read_report(report_path)
    return report is not None and report.get("key") == key and all(p.exists() for p in outputs)


def write_report(path: Path, report: dict[str, Any]) -> dict[str, Any]:
    """Write a step report atomically (a crash never leaves a report whose outputs are partial),
    stamped with the versions that wrote it."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json_text(stamped(report)) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return report


class Timer:
    """Wall time of a step, for its report."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Seconds since the timer started."""
        return round(time.perf_counter() - self.start, 2)

    def lap(self) -> float:
        """Seconds since the previous lap (or the start)."""
        now = time.perf_counter()
        elapsed, self.last = now - self.last, now
        return round(elapsed, 2)


def progress(
    items: Iterable[T], desc: str, total: int | None = None, unit: str = "it"
) -> Iterator[T]:
    """A progress bar on terminals (silent when stderr is not a TTY, e.g. in CI logs)."""
    return iter(tqdm(items, desc=desc, total=total, unit=unit, disable=None, dynamic_ncols=True))


def progress_bar(desc: str, total: int | None, unit: str = "it") -> tqdm[Any]:
    """A manual progress bar (``update(n)``), same display rules as ``progress``; a count
    without a bar when the total is not known in advance."""
    return tqdm(desc=desc, total=total, unit=unit, disable=None, dynamic_ncols=True)
