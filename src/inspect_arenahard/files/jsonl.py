"""The one reader of JSON Lines files: questions, answers, judgments, battles, game records,
score tables, prompt pools and review files all come through ``read_jsonl`` (and whole JSON
files through ``read_json``).

Files are read as bytes and lines end at ``\\n`` only (a ``\\r\\n`` ending's ``\\r`` is JSON
whitespace), never at the other characters ``str.splitlines`` treats as breaks: prompts contain
U+2028 and U+2029, which ``json.dumps(..., ensure_ascii=False)`` writes raw inside strings. Bytes
also let a large file be read in pieces (``line_starts``) that number their lines as the
whole file does. Every error is a
``UserError`` naming ``file:line``. Pure Python, so the statistics
modules can read battle files without the data loaders (and their hub download).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Iterator, Literal, overload

from inspect_arenahard.errors import UserError
from inspect_arenahard.files.storage import is_remote, open_binary


@overload
def read_jsonl(
    path: str | Path,
    *,
    objects: Literal[True] = True,
    start: int = 0,
    stop: int | None = None,
    first_line: int = 1,
) -> Iterator[tuple[int, dict[str, Any]]]: ...


@overload
def read_jsonl(
    path: str | Path,
    *,
    objects: Literal[False],
    start: int = 0,
    stop: int | None = None,
    first_line: int = 1,
) -> Iterator[tuple[int, Any]]: ...


def read_jsonl(
    path: str | Path,
    *,
    objects: bool = True,
    start: int = 0,
    stop: int | None = None,
    first_line: int = 1,
) -> Iterator[tuple[int, Any]]:
    """(line number, record) for each non-blank line, read one line at a time (gzip when the
    name ends in ``.gz``).

    ``objects``: every record must be a JSON object (``False`` also lets through bare strings
    and other values, for prompt pools that hold them). ``start``/``stop``: only the lines that
    begin in these bytes of an uncompressed file (``start`` at a line's first byte, numbered
    ``first_line``; see ``line_starts``), so that workers can read one file in pieces.
    ``path`` may be a store URL (``s3://…``). A missing file raises the ``FileNotFoundError`` of
    ``open``; a folder, a line that is not JSON, or bytes that are not UTF-8 are a ``UserError``
    naming the file and line.
    """
    if not is_remote(path):
        path = Path(path)
        if path.is_dir():
            raise UserError(f"{path} is a folder; expected a JSONL file")
    packed = str(path).endswith(".gz")
    if packed and (start or stop is not None):
        raise ValueError(f"{path}: a gzip file cannot be read from a byte offset")
    lineno = first_line - 1
    try:
        with open_binary(path) as handle, gzip.open(handle, "rb") if packed else handle as f:
            f.seek(start)
            at = start
            for lineno, raw in enumerate(f, start=first_line):
                if stop is not None and at >= stop:
                    return
                at += len(raw)
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    raise UserError(f"{path}:{lineno}: not a UTF-8 JSONL file") from None
                except json.JSONDecodeError as ex:
                    raise UserError(f"{path}:{lineno}: not valid JSON ({ex.msg})") from None
                if objects and not isinstance(record, dict):
                    raise UserError(f"{path}:{lineno}: expected a JSON object")
                yield lineno, record
    except (gzip.BadGzipFile, EOFError) as ex:
        raise UserError(
            f"{path}:{lineno + 1}: not a gzip JSONL file ({type(ex).__name__})"
        ) from None


def line_starts(path: str | Path, every: int, block: int = 1 << 24) -> list[tuple[int, int]]:
    """(byte offset, line number) of line starts that cut an uncompressed file into pieces of
    about ``every`` bytes: offset 0 (line 1), then the first line that starts at or after each
    ``every`` bytes past the previous cut. One sequential read that counts line breaks (~1 GB/s),
    so the pieces can be read apart and still name their lines as the whole file would.
    """
    cuts = [(0, 1)]
    pos, breaks, target = 0, 0, every
    with open_binary(path) as f:
        while chunk := f.read(block):
            end = pos + len(chunk)
            while target <= end:
                i = chunk.find(b"\n", max(target - 1 - pos, 0))
                if i < 0:
                    break  # the line that crosses the target ends in a later chunk
                cut = pos + i + 1
                cuts.append((cut, breaks + chunk.count(b"\n", 0, i + 1) + 1))
                target = cut + every
            breaks += chunk.count(b"\n")
            pos = end
    return [c for c in cuts if c[0] < pos or c[0] == 0]  # no empty piece after the last line


def read_json(path: str | Path) -> Any:
    """The value of a whole JSON file (local, or a store URL); invalid JSON is a ``UserError``
    naming the file and line (a missing file raises the ``FileNotFoundError`` of ``open``)."""
    try:
        with open_binary(path) as f:
            return json.loads(f.read().decode("utf-8"))
    except json.JSONDecodeError as ex:
        raise UserError(f"{path}: not valid JSON ({ex.msg} at line {ex.lineno})") from None


GZIP_SUFFIX = ".gz"


def jsonl_file(path: Path) -> Path:
    """``path``, or its gzip copy ``path.gz`` when only that exists (the shipped sample is read
    compressed); ``path`` itself when neither exists, so the caller's error names it."""
    packed = path.with_name(path.name + GZIP_SUFFIX)
    return packed if not path.exists() and packed.is_file() else path


def jsonl_files(folder: Path) -> dict[str, Path]:
    """The ``.jsonl`` and ``.jsonl.gz`` files of a folder by name without the suffixes, sorted
    (a plain file wins over a gzip copy of the same name)."""
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.jsonl.gz")) + sorted(folder.glob("*.jsonl")):
        found[path.name.removesuffix(GZIP_SUFFIX).removesuffix(".jsonl")] = path
    return dict(sorted(found.items()))


def record_at(path: str | Path, index: int) -> tuple[int, Any]:
    """(line number, value) of the ``index``-th record (from 0; blank lines are not records, as
    in ``read_jsonl``) of a local JSONL file, parsing only that line: a columnar reader that
    found a bad row names its line without parsing the file again."""
    with (
        open_binary(path) as handle,
        gzip.open(handle, "rb") if str(path).endswith(".gz") else handle as f,
    ):
        seen = -1
        for lineno, raw in enumerate(f, start=1):
            if raw.strip():
                seen += 1
                if seen == index:
                    try:
                        return lineno, json.loads(raw.decode("utf-8"))
                    except (UnicodeDecodeError, json.JSONDecodeError):
                        raise UserError(f"{path}:{lineno}: not valid JSON") from None
    raise IndexError(f"{path}: no record {index}")
