"""Where logs and prompt shards live: local folders or any fsspec store (``s3://``, ``gs://`` …).

Big runs spread over many machines write into one bucket; every reader opens logs through these
functions so that ``s3://bucket/prefix`` reads exactly like a local folder (same fast ``.eval``
reader, same de-duplication, same handling of damaged files). Curation reads its shards through
``open_binary``, ``file_size`` and ``filesystem`` for the same reason.
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, cast

if sys.version_info < (3, 14):  # Inspect writes zstd members; stdlib zipfile reads them from 3.14
    import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401

LOG_SUFFIXES = (".eval", ".json")


def is_remote(path: str | Path) -> bool:
    """A URL of an fsspec store (``file://`` counts as local)."""
    text = str(path)
    return "://" in text and not text.startswith("file://")


def filesystem(url: str) -> tuple[Any, str]:
    """(fsspec filesystem, path inside it) of a store URL; a missing driver is named."""
    from fsspec.core import (
        url_to_fs,
    )  # comes with Inspect; the store's driver (s3fs, gcsfs) must be installed

    try:
        return url_to_fs(url)
    except ImportError as ex:
        raise ValueError(
            f"cannot read {url}: {ex} (install the store's fsspec driver, e.g. pip install s3fs)"
        ) from None


def list_logs(path: str | Path) -> list[str]:
    """The ``.eval``/``.json`` files named or found (recursively) under ``path``, sorted."""
    text = str(path).removeprefix("file://")
    if not is_remote(text):
        local = Path(text)
        if local.is_dir():
            return sorted(
                str(f) for f in local.rglob("*") if f.suffix in LOG_SUFFIXES and f.is_file()
            )
        if local.is_file():
            return [str(local)]
        raise FileNotFoundError(f"no such log file or folder: {local}")
    fs, root = filesystem(text)
    fs.invalidate_cache()  # other machines may have written logs since this process last listed
    try:
        if fs.isfile(root):
            return [text]
        if not fs.isdir(root):
            raise FileNotFoundError(f"no such log file or folder: {text}")
        return sorted(fs.unstrip_protocol(f) for f in fs.find(root) if f.endswith(LOG_SUFFIXES))
    except Exception as ex:
        if "Credentials" not in type(ex).__name__:  # botocore's NoCredentialsError and kin
            raise
        bucket = root.split("/")[0]
        raise PermissionError(
            f"cannot read {text}: no credentials for bucket {bucket!r} ({type(ex).__name__}); "
            "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), and "
            "AWS_ENDPOINT_URL for an S3-compatible store"
        ) from None


@contextmanager
def open_archive(path: str) -> Iterator[zipfile.ZipFile]:
    """An ``.eval`` archive, local or remote (remote members are fetched by range requests)."""
    if not is_remote(path):
        with zipfile.ZipFile(path.removeprefix("file://")) as archive:
            yield archive
        return
    fs, root = filesystem(path)
    with fs.open(root, "rb") as handle, zipfile.ZipFile(handle) as archive:
        yield archive


def local_mtime(path: str) -> float:
    """Modification time of a local file (0 for remote stores, where listing order decides)."""
    if is_remote(path):
        return 0.0
    try:
        return os.path.getmtime(path.removeprefix("file://"))
    except OSError:
        return 0.0


def open_binary(path: str | Path) -> BinaryIO:
    """A local file or a store object, opened for reading bytes (remote: buffered range reads)."""
    text = str(path)
    if not is_remote(text):
        return Path(text.removeprefix("file://")).open("rb")
    fs, root = filesystem(text)
    return cast(BinaryIO, fs.open(root, "rb"))


def file_size(path: str | Path) -> int:
    """Size in bytes of a local file or a store object."""
    text = str(path)
    if not is_remote(text):
        return Path(text.removeprefix("file://")).stat().st_size
    fs, root = filesystem(text)
    return int(fs.size(root))
