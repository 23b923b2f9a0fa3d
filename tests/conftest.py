"""Shared test setup: offline tokenizers, isolated Inspect dirs, the shared_data marker."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import shared_data


@pytest.fixture(autouse=True, scope="session")
def _offline_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> None:
    """mockllm counts tokens with tiktoken; serve its BPE files from bpe-openai, offline."""
    import os

    from inspect_arenahard.evaluate.offline import seed_tiktoken_cache

    cache = tmp_path_factory.mktemp("tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    seed_tiktoken_cache(cache)


@pytest.fixture(autouse=True)
def _isolated_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own Inspect model cache and log folder."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def pytest_configure(config: pytest.Config) -> None:
    """A run that leaves shared_data tests out does not need the data to import test modules."""
    shared_data.DESELECTED = "not shared_data" in (config.getoption("markexpr") or "")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test module that reads ../shared/data while being imported needs the data for every
    test it holds, and for every test that uses one of its fixtures; so does every test that uses
    a fixture declared with ``reads_shared_data`` (directly or through another fixture)."""
    for item in items:
        modules = {getattr(getattr(item, "module", None), "__name__", "")}
        fixtures = set()
        fixture_info = getattr(item, "_fixtureinfo", None)
        for defs in getattr(fixture_info, "name2fixturedefs", {}).values():
            for d in defs:
                module = getattr(d.func, "__module__", "")
                modules.add(module)
                fixtures.add(f"{module}.{getattr(d.func, '__qualname__', '')}")
        if modules & shared_data.READ_AT_IMPORT or fixtures & shared_data.DATA_FIXTURES:
            item.add_marker(pytest.mark.shared_data)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    """While a test runs, ``shared`` knows whether it carries the shared_data marker."""
    shared_data.running = (item.nodeid, item.get_closest_marker("shared_data") is not None)
    try:
        return (yield)
    finally:
        shared_data.running = None
