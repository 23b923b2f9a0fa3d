"""Reading ingest's sources: files, folders and globs of shards, saved and hub datasets.

Files, folders and globs may also be in an object store (``s3://bucket/prefix/*.parquet``, or any
fsspec URL whose driver is installed): they are listed and read through ``storage``, and
their digest comes from the store's object metadata (size and version tag) instead of their bytes.

A source is a list of parts (``Part``), each opened on its own by ``read_part``, which
yields every record with where it is (``file:line``, ``file row N``, ``dataset[i]``) for error
messages. The local engine reads a source's parts one after the other; the Ray engine cuts them
finer (``split_part``) and hands them to its workers.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import posixpath
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pyarrow.parquet as pq

from inspect_arenahard.curate.cache import file_digest
from inspect_arenahard.errors import MissingFileError
from inspect_arenahard.files.jsonl import line_starts, read_json, read_jsonl
from inspect_arenahard.files.sample_data import PREFIX, is_sample, sample_questions
from inspect_arenahard.files.storage import file_size, filesystem, is_remote, open_binary

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import IngestOptions

FILE_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".json", ".parquet")

Located = tuple[str, Any]
"""(where, record): where names the file and line (or dataset and row) for error messages."""

PART_ROWS = 50_000
"""Records per part when the Ray engine cuts a Parquet file (at row groups) or a dataset."""
PART_BYTES = 64 << 20
"""Bytes per part when the Ray engine cuts an uncompressed JSONL file (at line starts)."""


@dataclass(frozen=True)
class Part:
    """A piece of a source that one reader opens on its own: a whole file, the records
    ``[start, stop)`` of a Parquet file (cut at row groups) or of a Hugging Face dataset, or the
    lines that begin in bytes ``[start, stop)`` of an uncompressed JSONL file (cut at line
    starts; ``line`` numbers the first, so errors name the line as in the whole file).

    The local engine reads a source's parts one after the other; the Ray engine hands them to its
    workers. ``reader`` is ``jsonl``, ``json``, ``parquet`` or ``hf`` (``path`` is then the
    dataset id or ``save_to_disk`` folder).
    """

    reader: str
    path: str
    start: int = 0
    stop: int | None = None
    line: int = 1


@dataclass(frozen=True)
class Source:
    """One ``--source``: its name (the prefix of every id), its parts in record order, and the
    digest of its content (part of the step's cache key)."""

    given: str
    """As given on the command line (``NAME=`` included)."""
    location: str
    """The file, folder, glob or dataset id (without ``NAME=``)."""
    name: str
    parts: tuple[Part, ...]
    digest: str
    dataset: Any = field(default=None, compare=False, repr=False)
    """A Hugging Face dataset, loaded once on the driver (workers load their own)."""


def _jsonl(path: str, start: int = 0, stop: int | None = None, line: int = 1) -> Iterator[Located]:
    records = read_jsonl(path, objects=False, start=start, stop=stop, first_line=line)
    for lineno, record in records:  # bare strings are prompts too
        yield f"{path}:{lineno}", record


def _is_group(record: Any) -> bool:
    return (
        isinstance(record, dict) and isinstance(record.get("examples"), list) and "name" in record
    )


def _json(path: str) -> Iterator[Located]:
    data = read_json(path)
    if not isinstance(data, list):
        raise ValueError(
            f"{path}: expected a JSON array of records (or of topic groups {{id, name, examples}})"
        )
    if data and _is_group(data[0]):
        yield from _expand_groups(path, data)
    else:
        for index, record in enumerate(data):
            yield f"{path}[{index}]", record


def _expand_groups(path: str, groups: list[Any]) -> Iterator[Located]:
    """Topic groups ``{id, name, examples}`` → one record per example, labelled with the group name."""
    for g, group in enumerate(groups):
        if not _is_group(group):
            raise ValueError(
                f"{path}[{g}]: expected a topic group with fields 'id', 'name' and list 'examples'"
            )
        gid = group.get("id", g)
        for i, example in enumerate(group["examples"]):
            yield (
                f"{path}[{g}].examples[{i}]",
                {"id": f"{gid}-{i}", "prompt": example, "label": group["name"]},
            )


@contextmanager
def _parquet_file(path: str) -> Iterator[pq.ParquetFile]:
    """A Parquet file, local (memory-mapped by pyarrow) or in a store (range reads)."""
    if not is_remote(path):
        yield pq.ParquetFile(path)
        return
    with open_binary(path) as handle:
        yield pq.ParquetFile(handle)


def _parquet(path: str, start: int = 0, stop: int | None = None) -> Iterator[Located]:
    """Rows of the row groups that begin in ``[start, stop)``, numbered from the file's first row."""
    with _parquet_file(path) as file:
        yield from _parquet_rows(path, file, start, stop)


def _parquet_rows(
    path: str, file: pq.ParquetFile, start: int, stop: int | None
) -> Iterator[Located]:
    groups, offsets, row = [], [], 0
    for g in range(file.metadata.num_row_groups):
        if row >= start and (stop is None or row < stop):
            groups.append(g)
            offsets.append(row)
        row += file.metadata.row_group(g).num_rows
    if not groups:
        return
    row = offsets[0]
    for batch in file.iter_batches(batch_size=10_000, row_groups=groups):
        for record in batch.to_pylist():
            yield f"{path} row {row}", record
            row += 1


def _hf_dataset(source: str, options: IngestOptions) -> tuple[Any, str]:
    """A Hugging Face dataset (hub id or ``save_to_disk`` folder) and its fingerprint."""
    import datasets

    path = Path(source)
    if path.is_dir():
        loaded = datasets.load_from_disk(str(path))
        if isinstance(loaded, datasets.DatasetDict):
            if options.split not in loaded:
                raise ValueError(
                    f"{path}: no split {options.split!r} (splits: {', '.join(loaded)})"
                )
            loaded = loaded[options.split]
    else:
        try:
            loaded = datasets.load_dataset(source, name=options.subset, split=options.split)
        except (
            OSError,
            ValueError,
        ) as ex:  # not found, offline, gated, unknown split: say so in one line
            reason = (str(ex).strip().splitlines() or [type(ex).__name__])[0]
            raise MissingFileError(
                f"source {source!r} is neither a local file nor a Hugging Face dataset that can be loaded "
                f"({reason}); check the name, your network and `huggingface-cli login` for gated datasets, "
                "or give a local JSON/JSONL/Parquet file"
            ) from ex
    return loaded, str(getattr(loaded, "_fingerprint", ""))


def _hf_rows(
    source: str, options: IngestOptions, dataset: Any, start: int, stop: int | None
) -> Iterator[Located]:
    if dataset is None:  # a Ray worker: load it here (memory-mapped; a hub id from the HF cache)
        dataset = _hf_dataset(source, options)[0]
    if start or stop is not None:
        dataset = dataset.select(range(start, len(dataset) if stop is None else stop))
    for index, record in enumerate(dataset, start=start):
        yield f"{source}[{index}]", record


def read_part(part: Part, options: IngestOptions, dataset: Any = None) -> Iterator[Located]:
    """The records of one part, in order, each with where it is (file:line, file row N, ...)."""
    path = part.path
    if part.reader == "jsonl":
        return _jsonl(path, part.start, part.stop, part.line)
    if part.reader == "json":
        return _json(path)
    if part.reader == "parquet":
        return _parquet(path, part.start, part.stop)
    return _hf_rows(part.path, options, dataset, part.start, part.stop)


def split_part(part: Part, dataset: Any = None, rows: int | None = None) -> list[Part]:
    """``part`` cut into pieces of about ``rows`` (default ``PART_ROWS``) records where the
    format allows it: Parquet at row-group boundaries, a dataset at any row, an uncompressed
    JSONL file at line starts every ``PART_BYTES`` (one read of the file on the driver counts
    the lines before each cut). A ``.jsonl.gz`` cannot be entered midway and a JSON array is one
    value: both stay whole."""
    rows = rows or PART_ROWS
    if part.reader == "jsonl" and not part.path.endswith(".gz"):
        if file_size(part.path) <= PART_BYTES:
            return [part]
        cuts = line_starts(part.path, PART_BYTES)
        stops = [start for start, _ in cuts[1:]] + [None]
        return [replace(part, start=s, stop=e, line=n) for (s, n), e in zip(cuts, stops)]
    if part.reader == "parquet":
        with _parquet_file(part.path) as file:
            meta = file.metadata
        pieces, start, row = [], 0, 0
        for g in range(meta.num_row_groups):
            row += meta.row_group(g).num_rows
            if row - start >= rows:
                pieces.append(replace(part, start=start, stop=row))
                start = row
        return [*pieces, replace(part, start=start, stop=None)] if row > start else pieces
    if part.reader == "hf" and dataset is not None:
        n = len(dataset)
        return [replace(part, start=s, stop=min(s + rows, n)) for s in range(0, n, rows)]
    return [part]


def _reader(path: Path | str) -> str | None:
    suffixes = "".join(Path(path).suffixes[-2:]).lower()
    if suffixes.endswith(FILE_SUFFIXES[:3]):
        return "jsonl"
    if suffixes.endswith(".json"):
        return "json"
    if suffixes.endswith(".parquet"):
        return "parquet"
    return None


_FILE_TYPES = ".jsonl, .jsonl.gz, .json or .parquet"


def _shard_parts(files: list[Path] | list[str], where: str) -> tuple[Part, ...]:
    unknown = next((f for f in files if _reader(f) is None), None)
    if unknown is not None:
        raise ValueError(
            f"{unknown}: unsupported file type among the shards of {where} (expected {_FILE_TYPES}); "
            "pick the shards with a glob such as 'folder/*.parquet'"
        )
    return tuple(Part(str(_reader(f)), str(f)) for f in files)


def _shards_digest(files: list[Path]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for file in files:
        h.update(f"{file.name}\0{file_digest(file)}\n".encode())
    return h.hexdigest()


def _is_saved_dataset(folder: Path) -> bool:
    return (folder / "state.json").is_file() or (folder / "dataset_dict.json").is_file()


def _glob_base(pattern: str) -> Path:
    """The folder a glob searches: its path up to the first part with a wildcard."""
    parts = Path(pattern).parts
    first = next(i for i, p in enumerate(parts) if glob.has_magic(p))
    return Path(*parts[:first]) if first else Path(".")


_NAMED = re.compile(r"^([A-Za-z0-9_.-]+)=(.+)$")


def split_name(source: str) -> tuple[str | None, str]:
    """(given name, source) of ``NAME=SOURCE``; (None, source) otherwise."""
    named = _NAMED.match(source)
    if named and not Path(source).exists():
        return named.group(1), named.group(2)
    return None, source


def resolve_source(source: str, options: IngestOptions) -> Source:
    """A file, a folder or glob of shards, a saved dataset, a hub id or a shipped release's
    questions (``sample:arena-hard-v2.0``), as a ``Source``.

    The name (the prefix of every id) is the file's stem, the folder's name (for a glob: the
    folder it searches) or the hub id, or given as ``NAME=SOURCE``. Shards are read in the
    order of their sorted paths, as one source (ids must be unique across them).
    """
    given, location = split_name(source)
    if is_sample(location):
        given, location = given or location.removeprefix(PREFIX), str(sample_questions(location))
    if is_remote(location):
        return _remote_source(source, given, location)
    path = Path(location)
    if path.is_file():
        reader = _reader(path)
        if reader is None:
            raise ValueError(f"{path}: unsupported file type (expected {_FILE_TYPES})")
        parts: tuple[Part, ...] = (Part(reader, str(path)),)
        return Source(source, location, given or path.name.split(".")[0], parts, file_digest(path))
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path}: not a regular file")
    if path.is_dir() and not _is_saved_dataset(path):
        files = sorted(
            p for p in path.iterdir() if p.is_file() and not p.name.startswith((".", "_"))
        )
        if not files:
            raise ValueError(
                f"{path}: a folder with neither data files ({_FILE_TYPES}) nor a dataset "
                "written by Dataset.save_to_disk"
            )
        parts = _shard_parts(files, str(path))
        return Source(source, location, given or path.absolute().name, parts, _shards_digest(files))
    if not path.exists() and glob.has_magic(location):
        files = sorted(Path(p) for p in glob.glob(location, recursive=True) if Path(p).is_file())
        if not files:
            raise FileNotFoundError(f"no files match {location}")
        parts = _shard_parts(files, location)
        name = given or _glob_base(location).absolute().name
        return Source(source, location, name, parts, _shards_digest(files))
    if not path.exists() and (
        location.startswith((".", "/")) or location.lower().endswith(FILE_SUFFIXES)
    ):
        raise FileNotFoundError(f"source not found: {location}")
    dataset, fingerprint = _hf_dataset(location, options)
    name = given or (path.name if path.is_dir() else location)
    digest = fingerprint or f"{location}:{options.subset}:{options.split}"
    return Source(source, location, name, (Part("hf", location),), digest, dataset)


def _remote_source(source: str, given: str | None, location: str) -> Source:
    """A file, a folder of shards or a glob in an object store (``s3://bucket/prefix/*.parquet``)."""
    fs, root = filesystem(location)
    fs.invalidate_cache()  # shards may have been added since this process last listed
    if glob.has_magic(root):
        files = sorted(f for f in fs.glob(root) if fs.isfile(f))
        if not files:
            raise FileNotFoundError(f"no files match {location}")
        base = root[: min(root.find(c) for c in "*?[" if c in root)]
        name = posixpath.basename(posixpath.dirname(base) if not base.endswith("/") else base[:-1])
    elif fs.isfile(root):
        if _reader(root) is None:
            raise ValueError(f"{location}: unsupported file type (expected {_FILE_TYPES})")
        files, name = [root], posixpath.basename(root).split(".")[0]
    elif fs.isdir(root):
        files = sorted(
            f
            for f in fs.ls(root, detail=False)
            if not posixpath.basename(f).startswith((".", "_")) and fs.isfile(f)
        )
        if any(posixpath.basename(f) in ("state.json", "dataset_dict.json") for f in files):
            raise ValueError(
                f"{location}: a dataset written by save_to_disk cannot be read from a store; "
                "give its files (e.g. its Parquet export) or a local copy"
            )
        if not files:
            raise ValueError(f"{location}: a folder with no data files ({_FILE_TYPES})")
        name = posixpath.basename(root.rstrip("/"))
    else:
        raise FileNotFoundError(f"source not found: {location}")
    urls = [fs.unstrip_protocol(f) for f in files]
    h = hashlib.blake2b(digest_size=16)
    for file in files:  # the store's metadata: a changed object has a new size or version tag
        h.update(f"{posixpath.basename(file)}\0{fs.size(file)}\0{fs.checksum(file)}\n".encode())
    return Source(source, location, given or name, _shard_parts(urls, location), h.hexdigest())


def source_records(source: Source, options: IngestOptions) -> Iterator[Located]:
    """Every record of a source, in order (its parts one after the other)."""
    return itertools.chain.from_iterable(
        read_part(part, options, source.dataset) for part in source.parts
    )


def open_source(source: str, options: IngestOptions) -> tuple[str, Iterator[Located], str]:
    """(source name, records, content digest) of a file, a folder or glob of shards, a saved
    dataset or a hub id (see ``resolve_source``)."""
    resolved = resolve_source(source, options)
    return resolved.name, source_records(resolved, options), resolved.digest
