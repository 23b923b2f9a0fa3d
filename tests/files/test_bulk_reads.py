"""Full garbage collections pause while a bulk read runs, and resume as the caller had them."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from inspect_arenahard.files.bulk_reads import full_collections_paused


@pytest.fixture
def frequent_full_collections() -> Iterator[None]:
    """Thresholds that make the collector take a full pass every few allocations, with the test
    run's own heap set aside (else a full pass waits until the heap grows by a quarter)."""
    saved = gc.get_threshold()
    gc.freeze()
    gc.collect()
    gc.set_threshold(100, 1, 1)
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


def _full_collections_while(build_survivors: int) -> int:
    """Full collections while ``build_survivors`` lists are made and kept (as a reader keeps
    its records)."""
    seen = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    gc.callbacks.append(count)
    try:
        kept = [[k] for k in range(build_survivors)]
    finally:
        gc.callbacks.remove(count)
    assert len(kept) == build_survivors
    return len(seen)


@pytest.mark.usefixtures("frequent_full_collections")
def test_no_full_collection_while_paused_and_young_ones_still_run() -> None:
    assert _full_collections_while(300_000) > 0  # the measure sees full passes
    young = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            young.append(info["generation"])

    with full_collections_paused():
        assert _full_collections_while(300_000) == 0
        gc.callbacks.append(count)
        try:
            [[k] for k in range(10_000)]
        finally:
            gc.callbacks.remove(count)
    assert young and 2 not in young  # cycles made meanwhile are still freed young
    assert gc.get_threshold() == (100, 1, 1)


@pytest.mark.usefixtures("frequent_full_collections")
def test_thresholds_come_back_after_errors_nesting_and_threads() -> None:
    with pytest.raises(RuntimeError):
        with full_collections_paused():
            raise RuntimeError("reader failed")
    assert gc.get_threshold() == (100, 1, 1)

    with full_collections_paused():
        with full_collections_paused():
            pass
        assert gc.get_threshold()[2] > 1_000_000  # the outer read still holds the pause
    assert gc.get_threshold() == (100, 1, 1)

    # two readers on threads that end in the other order from their start
    first_in, second_in, first_may_end = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with full_collections_paused():
            first_in.set()
            first_may_end.wait(5)

    def second() -> None:
        first_in.wait(5)
        with full_collections_paused():
            second_in.set()
        first_may_end.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert second_in.is_set() and gc.get_threshold() == (100, 1, 1)


BULK_COMMANDS = {"leaderboard", "audit", "judges", "report", "metrics", "power"}
"""Commands that read logs or battle files and keep what they build until their output."""


def test_only_commands_that_read_in_bulk_ask_for_the_pause() -> None:
    """Commands that call models or run pipelines (for hours) keep the collector as it is."""
    import argparse

    from inspect_arenahard import cli

    parser = cli.build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    asking = {name for name, sub in commands.choices.items() if sub.get_default("bulk_read")}
    assert asking == BULK_COMMANDS


def test_main_runs_a_bulk_command_paused_and_gives_the_threshold_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from inspect_arenahard import cli
    from inspect_arenahard.cli import audit

    seen: list[int] = []
    monkeypatch.setattr(audit, "run", lambda args: seen.append(gc.get_threshold()[2]) or 0)
    before = gc.get_threshold()
    assert cli.main(["audit", "logs"]) == 0
    assert seen[0] > 1_000_000 and gc.get_threshold() == before
