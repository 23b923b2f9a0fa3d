"""Shared test setup: real data location, offline tokenizers, isolated Inspect dirs."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared(*parts: str) -> Path:
    """A path under ../shared/data; fails loudly (never skips) when the data is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"shared test data missing: {path} (tests read ../shared/data beside the repo)")
    return path


@pytest.fixture(autouse=True, scope="session")
def _offline_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> None:
    """mockllm counts tokens with tiktoken; serve its BPE files from bpe-openai, offline."""
    import os

    from inspect_arenahard.offline import seed_tiktoken_cache

    cache = tmp_path_factory.mktemp("tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    seed_tiktoken_cache(cache)


@pytest.fixture(autouse=True)
def _isolated_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own Inspect model cache and log folder."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
