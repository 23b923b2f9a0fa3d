"""The reader's rows against the records, on real imported arena-hard judgments (three judges'
logs, one judge imported twice so that the newer import replaces every game of the older one):
each record the rows make equals the record built here from the summary's score metadata, the
rows keep the newest judgment of each game in the records' canonical order, and every column of
the table read from the rows' parsed scores equals the column of the table of the records,
also after selecting rows."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
import pytest
from inspect_ai.log import read_eval_log_sample_summaries

from inspect_arenahard.cli import main
from inspect_arenahard.logs.reader import game_key, read_games, read_header
from inspect_arenahard.stats.game_rows import GameRows, unparsed_count
from inspect_arenahard.stats.game_table import GameTable, game_table
from tests.helpers.shared_data import shared

V01 = shared("arena-hard-v0.1")


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a folder with the older imports, the folder of the newer import of gpt-4o's judgments)."""
    older = tmp_path_factory.mktemp("older")
    newer = tmp_path_factory.mktemp("newer")
    for judge in ("gpt-4o", "gpt-3.5-turbo-0125", "gpt-4-1106-preview"):
        assert (
            main(["import", "arena-hard-auto", str(V01), "--judge", judge, "--out", str(older)])
            == 0
        )
    time.sleep(1.1)  # the newer import is the later run (creation time, else modification)
    assert (
        main(["import", "arena-hard-auto", str(V01), "--judge", "gpt-4o", "--out", str(newer)]) == 0
    )
    return older, newer


def expected_records(paths: list[Path]) -> dict[tuple, dict]:
    """Every game record by its identity, built from each log's summaries; a newer log's wins."""
    logs = sorted(
        (str(p) for folder in paths for p in folder.glob("*.eval")),
        key=lambda p: (read_header(p).recency, p),
    )
    out: dict[tuple, dict] = {}
    for log in logs:
        header = read_header(log)
        for summary in read_eval_log_sample_summaries(log):
            [(name, score)] = [
                (n, s) for n, s in summary.scores.items() if n.endswith("pairwise_judge")
            ]
            meta = score.metadata
            for game in meta["games"]:
                record = {
                    "log": log,
                    "question_id": str(summary.id),
                    "epoch": summary.epoch,
                    "model": meta.get("model") or header.model,
                    "baseline": meta["baseline"],
                    "judge": game["judge"],
                    "category": meta.get("category"),
                    "game": game["game"],
                    "model_position": game["model_position"],
                    "label": game["label"],
                    "parsed": game["parsed"],
                    "style": meta.get("style"),
                    "version": header.version,
                    "protocol": "pairwise_judge",
                    "strong_weight": meta["strong_weight"],
                    "settings": header.settings,
                }
                out[game_key(record)] = record
    return out


def same_columns(a: GameTable, b: GameTable) -> None:
    for f in dataclasses.fields(GameTable):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "records":
            assert list(x) == list(y)
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, f.name
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f.name
        else:
            assert x == y, f.name


def test_rows_make_the_records_and_the_columns_of_the_records(imported: tuple[Path, Path]) -> None:
    older, newer = imported
    result = read_games([older, newer])
    rows = result.games
    assert isinstance(rows, GameRows)
    expected = expected_records([older, newer])
    records = list(rows)
    assert len(records) == len(expected) == len(rows) > 500
    assert sorted(records, key=lambda r: str(game_key(r))) == sorted(
        expected.values(), key=lambda r: str(game_key(r))
    )
    assert sum(r["log"].startswith(str(newer)) for r in records) == sum(
        r["judge"] == "gpt-4o" for r in records
    )
    assert result.counts()["replaced"] == sum(r["judge"] == "gpt-4o" for r in records)
    assert [rows[i] for i in range(len(rows))] == records  # made once: the same dicts
    assert all(a is b for a, b in zip(rows, records))
    assert unparsed_count(rows) == sum(not r["parsed"] for r in records) > 0

    from_rows = game_table(read_games([older, newer]).games)  # before any record is made
    from_records = game_table(records)
    same_columns(from_rows, from_records)
    assert from_rows.model_style is not None and from_rows.malformed_style.sum() == 0
    mask = from_records.label % 2 == 0
    same_columns(from_rows.select(mask), from_records.select(mask))
    assert from_rows.select(mask).records.tolist() == [r for r, m in zip(records, mask) if m]


def test_records_once_made_are_the_games(imported: tuple[Path, Path]) -> None:
    """A caller that changes the records it read (relabelling categories, say) ranks its change:
    once made, the records, not the samples, are what the table and the counts read."""
    rows = read_games([imported[0]]).games
    assert isinstance(rows, GameRows) and rows.unmade
    for record in rows:
        record["category"] = "relabelled"
        record["parsed"] = False
    assert not rows.unmade
    assert set(game_table(rows).category) == {"relabelled"}
    assert unparsed_count(rows) == len(rows)
    assert set(game_table(rows[np.arange(3)]).category) == {"relabelled"}
