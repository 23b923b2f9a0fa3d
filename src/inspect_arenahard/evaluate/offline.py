"""Offline support: make tiktoken work without its download.

Several Inspect providers (``mockllm`` among them) count tokens with tiktoken, which downloads
its BPE files on first use and fails on a machine without internet. ``bpe-openai`` ships the
same files; this module writes them into tiktoken's cache under the names tiktoken looks for
(the SHA-1 of the download URL), after checking tiktoken's own expected hashes.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from importlib.resources import files
from pathlib import Path

_BLOBS = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}


def tiktoken_cache_dir() -> Path:
    """The folder tiktoken reads its cache from (same rules as tiktoken)."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(var):
            return Path(os.environ[var])
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def seed_tiktoken_cache(cache_dir: Path | None = None) -> list[Path]:
    """Write cl100k_base and o200k_base into tiktoken's cache; returns the files written."""
    target = cache_dir or tiktoken_cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (url, sha256) in _BLOBS.items():
        data = gzip.decompress((files("bpe_openai.data") / f"{name}.tiktoken.gz").read_bytes())
        if hashlib.sha256(data).hexdigest() != sha256:
            raise RuntimeError(f"bpe-openai's {name} does not match tiktoken's expected hash")
        path = target / hashlib.sha1(url.encode()).hexdigest()
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        written.append(path)
    return written
