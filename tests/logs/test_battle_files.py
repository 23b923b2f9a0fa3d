"""The columnar battle-file reader gives exactly the row reader's battles and errors.

Real data: the published arena-hard battle file (runs of repeated rows for strong verdicts) and
battles between arena-hard v0.1's stored answers carrying their real ``conv_metadata``.
"""

from __future__ import annotations

import gc
import json
import pickle
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.logs.battle_files import (
    PACKED_SUFFIXES,
    read_battle_columns,
    read_battle_rows,
    read_battles_jsonl,
    read_battles_soon,
)
from inspect_arenahard.stats.battles import Battles, distinct
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.name_codes import cluster_index, name_codes
from tests.helpers.battles import BATTLE_FILE
from tests.helpers.shared_data import shared
from tests.helpers.style_games import BASELINE, MODELS, answer_metadata

FIELDS = ("a", "b", "points", "weight", "question_id", "category", "judge", "baseline", "version", "epoch")  # fmt: skip


def assert_same_battles(ours: Battles, rows: Battles) -> None:
    assert ours.models == rows.models
    for name in (*FIELDS, "style_a", "style_b"):
        x, y = getattr(ours, name), getattr(rows, name)
        if y is None:
            assert x is None, name
            continue
        assert x.dtype == y.dtype and x.shape == y.shape, name
        same = (x == y) | ((x != x) & (y != y))  # NaN style rows equal
        assert same.all(), name
        assert [type(v) for v in x[:50]] == [type(v) for v in y[:50]], name
    if ours.question_codes is not None:  # the reader's codes: the ranking's own, exactly
        groups = name_codes(rows.question_id)[1]
        assert np.array_equal(cluster_index(ours.question_clusters()), groups)


def arena_rows(seed: int = 0) -> list[dict]:
    """Battles among arena-hard v0.1 answers with their stored ``conv_metadata``: every winner
    value, categories, judges, a few rows without metadata and runs of repeated rows."""
    rng = np.random.default_rng(seed)
    answers = {m: answer_metadata(m) for m in [BASELINE, *MODELS]}
    names = list(answers)
    rows = []
    for qid in list(answers[BASELINE])[:150]:
        a, b = rng.choice(len(names), 2, replace=False)
        row = {
            "question_id": qid, "model_a": names[a], "model_b": names[b],
            "winner": str(rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"])),
            "category": str(rng.choice(["hard_prompt", "coding"])), "judge": "gpt-4-1106-preview",
        }  # fmt: skip
        if rng.random() > 0.1:
            meta = {}
            for side, model in (("a", names[a]), ("b", names[b])):
                stored = answers[model][qid]
                meta[f"sum_assistant_{side}_tokens"] = stored["token_len"]
                for kind in ("header_count", "list_count", "bold_count"):
                    meta[f"{kind}_{side}"] = stored[kind]
            row["conv_metadata"] = meta
        rows += [row] * int(rng.choice([1, 1, 2, 3, 4, 7]))
    return rows


def write(path: Path, rows: list, blank_every: int = 0) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    if blank_every:
        lines = [
            x
            for i, line in enumerate(lines)
            for x in ([line, ""] if i % blank_every == 0 else [line])
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.shared_data
def test_the_published_battle_file_reads_alike_both_ways() -> None:
    path = shared(*BATTLE_FILE)
    assert read_battle_columns(path) is not None  # the columnar reader took it
    ours, rows = read_battles_jsonl(path), read_battle_rows(path)
    assert_same_battles(ours, rows)
    assert (ours.weight == 3).sum() > 100  # strong verdicts folded from runs of three rows


@pytest.mark.shared_data
@pytest.mark.parametrize("strong_weight", [1, 3])
def test_real_style_metadata_reads_alike_both_ways(tmp_path: Path, strong_weight: int) -> None:
    path = write(tmp_path / "arena.jsonl", arena_rows(), blank_every=17)
    assert read_battle_columns(path) is not None
    ours = read_battles_jsonl(path, strong_weight)
    assert_same_battles(ours, read_battle_rows(path, strong_weight))
    assert ours.style_a is not None and np.isnan(ours.style_a[:, 0]).any()  # rows without metadata
    assert set(ours.category) == {"hard_prompt", "coding"}


def test_no_style_metadata_and_integer_ids_read_alike(tmp_path: Path) -> None:
    rows = [
        {"question_id": i // 3, "model_a": f"m{i % 4}", "model_b": f"m{(i + 1) % 4}", "winner": "model_a"}
        for i in range(60)
    ]  # fmt: skip
    path = write(tmp_path / "b.jsonl", rows)
    ours = read_battles_jsonl(path)
    assert_same_battles(ours, read_battle_rows(path))
    assert ours.style_a is None and type(ours.question_id[0]) is int


def test_rows_alike_but_for_their_id_category_or_judge_are_separate_games(tmp_path: Path) -> None:
    """A run is rows equal in every field: the same pair and winner under another question id,
    category or judge starts a new game."""
    base = {"question_id": "q1", "model_a": "x", "model_b": "y", "winner": "model_a"}
    rows = [
        *[base] * 3,  # one strong game
        *[{**base, "question_id": "q2"}] * 2,
        {**base, "question_id": "q2", "category": "coding"},
        *[{**base, "question_id": "q2", "category": "coding", "judge": "j"}] * 3,
        {**base, "question_id": "q3", "category": "coding", "judge": "j"},
    ]
    path = write(tmp_path / "b.jsonl", rows)
    ours = read_battles_jsonl(path)
    assert_same_battles(ours, read_battle_rows(path))
    assert ours.weight.tolist() == [3.0, 1.0, 1.0, 1.0, 3.0, 1.0]


@pytest.mark.shared_data
@pytest.mark.parametrize("runs", [True, False], ids=["repeated-ids", "distinct-ids"])
def test_text_ids_and_labels_read_alike_however_often_they_repeat(
    tmp_path: Path, runs: bool
) -> None:
    """Ids that mostly differ become strings one by one, labels that repeat through a table of
    their distinct values: the same battles either way."""
    rows = arena_rows()
    if not runs:  # one row per prompt: every question id differs
        rows = list({row["question_id"]: row for row in rows}.values())
    path = write(tmp_path / "arena.jsonl", rows)
    ours = read_battles_jsonl(path)
    assert_same_battles(ours, read_battle_rows(path))
    assert (len(set(ours.question_id)) == len(ours)) is not runs
    assert type(ours.question_id[0]) is str and set(ours.category) == {"hard_prompt", "coding"}


def test_text_ids_are_grouped_in_the_order_python_sorts_them(tmp_path: Path) -> None:
    """The reader's question codes (pyarrow's byte order of UTF-8) are Python's code-point order
    for ids from every plane, also after rows are taken out; a sandwich ranking on them is the
    row reader's to the last bit."""
    rng = np.random.default_rng(3)
    pieces = [
        "q",
        "Q",
        "10",
        "9",
        "é",
        "e\u0301",
        "Ω",
        "中文",
        "\U0001f600",
        "\U00020000",
        "~",
        " ",
        "ß",
    ]
    ids = ["".join(rng.choice(pieces, rng.integers(1, 4))) + str(k % 40) for k in range(400)]
    rows = [
        {"question_id": q, "model_a": f"m{k % 5}", "model_b": f"m{(k + 1 + k // 5) % 5}",
         "winner": str(rng.choice(["model_a", "model_b", "tie"])), "category": f"c{k % 2}"}
        for k, q in enumerate(ids)
    ]  # fmt: skip
    path = write(tmp_path / "ids.jsonl", [r for r in rows if r["model_a"] != r["model_b"]])
    ours, by_rows = read_battles_jsonl(path), read_battle_rows(path)
    assert ours.question_codes is not None and by_rows.question_codes is None
    assert_same_battles(ours, by_rows)
    some = ours.where(category="c1")
    assert np.array_equal(cluster_index(some.question_clusters()), name_codes(some.question_id)[1])
    again = pickle.loads(pickle.dumps(some))  # the codes travel as numbers
    assert np.array_equal(cluster_index(again.question_clusters()), name_codes(some.question_id)[1])
    for method in ("bt", "mean"):
        mine = leaderboard(ours, "m0", method=method, ci_method="sandwich")
        theirs = leaderboard(by_rows, "m0", method=method, ci_method="sandwich")
        assert mine.clusters == theirs.clusters > 100 and mine.rows == theirs.rows


BAD_ROWS = [
    ({"question_id": 1, "model_a": "x", "winner": "model_a"}, "missing field 'model_b'"),
    ({"model_a": "x", "model_b": "y", "winner": "model_a"}, "missing field 'question_id'"),
    ({"question_id": 1, "model_a": "x", "model_b": "y", "winner": "draw"}, "field 'winner' is 'draw'"),
    ({"question_id": 1, "model_a": "x", "model_b": "y", "winner": None}, "field 'winner' is None"),
    ({"question_id": 1, "model_a": "x", "model_b": "x", "winner": "tie"}, "model_a and model_b are both 'x'"),
    (
        {"question_id": 1, "model_a": "x", "model_b": "y", "winner": "tie",
         "conv_metadata": {"sum_assistant_a_tokens": 5}},
        "malformed conv_metadata (KeyError",
    ),
    ('{"question_id": 1, "model_a": "x",', "not valid JSON"),
    ({"question_id": "q1", "model_a": "x", "model_b": "y", "winner": "tie"}, None),  # id type changes
]  # fmt: skip


@pytest.mark.parametrize(("bad", "message"), BAD_ROWS)
def test_a_bad_row_is_named_by_file_line_and_field_as_the_row_reader_does(
    tmp_path: Path, bad: dict | str, message: str | None
) -> None:
    good = [
        {"question_id": i, "model_a": "x", "model_b": "y", "winner": "model_a",
         "conv_metadata": {f"{k}_{s}": ({"n": 1} if k != "sum_assistant" else 3)
                           for k in ("header_count", "list_count", "bold_count") for s in "ab"}
         | {"sum_assistant_a_tokens": 3, "sum_assistant_b_tokens": 4}}
        for i in range(40)
    ]  # fmt: skip
    path = write(tmp_path / "b.jsonl", [*good[:30], bad, *good[30:]], blank_every=7)
    lineno = (
        path.read_text().splitlines().index(bad if isinstance(bad, str) else json.dumps(bad)) + 1
    )
    if message is None:  # pyarrow refuses the file; the row reader reads it
        assert read_battle_columns(path) is None
        assert_same_battles(read_battles_jsonl(path), read_battle_rows(path))
        return
    with pytest.raises(ValueError) as ours:
        read_battles_jsonl(path)
    with pytest.raises(ValueError) as rows:
        read_battle_rows(path)
    assert str(ours.value) == str(rows.value)
    assert str(ours.value).startswith(f"{path}:{lineno}: {message}")


def test_an_explicit_null_the_row_reader_takes_is_read_row_by_row(tmp_path: Path) -> None:
    rows = [{"question_id": None, "model_a": "x", "model_b": "y", "winner": "tie"}] + [
        {"question_id": i, "model_a": "x", "model_b": "y", "winner": "model_b"} for i in range(5)
    ]
    path = write(tmp_path / "b.jsonl", rows)
    assert_same_battles(read_battles_jsonl(path), read_battle_rows(path))


@pytest.mark.parametrize("content", ["", "\n\n"])
def test_an_empty_file_has_no_battles(tmp_path: Path, content: str) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError, match=r"b.jsonl: no battles"):
        read_battles_jsonl(path)


@pytest.mark.parametrize(
    "change",
    [{"category": "coding"}, {"judge": "j2"}, {"winner": "tie (bothbad)"}, {"question_id": 2},
     {"model_b": "z"}, {"conv_metadata": {"sum_assistant_a_tokens": 9}}],
    ids=lambda c: next(iter(c)),
)  # fmt: skip
def test_rows_that_differ_in_one_field_are_not_one_run(tmp_path: Path, change: dict) -> None:
    """Three identical rows are one strong game; a fourth that differs in one field is its own."""
    row = {"question_id": 1, "model_a": "x", "model_b": "y", "winner": "tie", "category": "hard",
           "judge": "j1", "conv_metadata": {f"{k}_{s}": {"n": 1} for k in ("header_count", "list_count", "bold_count") for s in "ab"}
           | {"sum_assistant_a_tokens": 3, "sum_assistant_b_tokens": 4}}  # fmt: skip
    other = row | change
    if "conv_metadata" in change:
        other["conv_metadata"] = row["conv_metadata"] | change["conv_metadata"]
    path = write(tmp_path / "b.jsonl", [row, row, row, other, other, row])
    ours = read_battles_jsonl(path)
    assert_same_battles(ours, read_battle_rows(path))
    assert ours.weight.tolist() == [3.0, 1.0, 1.0, 1.0]


def test_a_gzip_battle_file_reads_alike_and_names_its_bad_line(tmp_path: Path) -> None:
    import gzip

    rows = [
        {"question_id": i, "model_a": f"m{i % 3}", "model_b": f"m{(i + 1) % 3}", "winner": "tie"}
        for i in range(30)
    ]
    path = tmp_path / "b.jsonl.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
    assert read_battle_columns(path) is not None
    assert_same_battles(read_battles_jsonl(path), read_battle_rows(path))
    del rows[7]["winner"]
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
    with pytest.raises(ValueError, match=rf"^{path}:8: missing field 'winner'$"):
        read_battles_jsonl(path)


@pytest.mark.parametrize(
    "packed", [b"not gzip", b"\x1f\x8b\x08\x00"], ids=["not-gzip", "cut-short"]
)
def test_a_broken_gzip_battle_file_is_one_line_naming_it(tmp_path: Path, packed: bytes) -> None:
    """pyarrow's decompression error is not a traceback: the row reader reads the file and
    names it, as it names any broken gzip file."""
    path = tmp_path / "b.jsonl.gz"
    path.write_bytes(packed)
    assert read_battle_columns(path) is None
    with pytest.raises(ValueError, match=rf"^{path}:1: not a gzip JSONL file"):
        read_battles_jsonl(path)


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
def test_a_plain_file_is_parsed_from_a_memory_map_released_after_and_a_packed_one_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    """pyarrow parses an uncompressed file where it lies (a memory map, closed once read: the
    battles hold no view of it); a name pyarrow decompresses is read by name, as before."""
    import bz2
    import gzip

    import pyarrow as pa

    mapped: list[pa.MemoryMappedFile] = []
    real = pa.memory_map

    def memory_map(path: str) -> pa.MemoryMappedFile:
        mapped.append(real(path))
        return mapped[-1]

    monkeypatch.setattr(pa, "memory_map", memory_map)
    rows = [
        {"question_id": i, "model_a": f"m{i % 3}", "model_b": f"m{(i + 1) % 3}", "winner": "tie"}
        for i in range(30)
    ]
    plain = write(tmp_path / "plain.jsonl", rows)
    packers: dict[str, Callable[[bytes], bytes]] = {
        "": bytes,
        ".gz": gzip.compress,
        ".bz2": bz2.compress,
    }
    pack = packers[suffix]
    path = tmp_path / f"b.jsonl{suffix}"
    path.write_bytes(pack(plain.read_bytes()))
    assert read_battle_columns(path) is not None
    assert len(mapped) == (suffix == "") and all(m.closed for m in mapped)
    assert_same_battles(read_battles_jsonl(path), read_battle_rows(plain))
    assert {".gz", ".bz2"} <= set(PACKED_SUFFIXES)
    for packed in PACKED_SUFFIXES:  # each a name pyarrow itself decompresses
        assert pa.Codec.detect(f"b.jsonl{packed}") is not None


@pytest.mark.shared_data
def test_read_on_a_thread_gives_the_same_battles_and_the_same_error(tmp_path: Path) -> None:
    """What ``leaderboard --battles`` reads while it imports the fitting code: the very battles,
    and a bad row's one-line error raised where the result is asked for."""
    path = write(tmp_path / "arena.jsonl", arena_rows(), blank_every=17)
    assert_same_battles(read_battles_soon(path).result(), read_battles_jsonl(path))
    bad = write(tmp_path / "bad.jsonl", [*arena_rows()[:20], {"question_id": 1, "model_a": "x"}])
    with pytest.raises(ValueError, match=rf"^{bad}:21: missing field 'model_b', 'winner'"):
        read_battles_soon(bad).result()


@pytest.mark.shared_data
def test_named_values_are_the_python_sets_of_each_column(tmp_path: Path) -> None:
    """The vectorised None check finds what a loop over the rows finds: categories and judges of
    real rows, none in the columns a battle file leaves empty, None kept apart in a mixed one."""
    battles = read_battles_jsonl(write(tmp_path / "arena.jsonl", arena_rows()))
    for column in ("category", "judge", "baseline", "version"):
        loop = {v for v in getattr(battles, column).tolist() if v is not None}
        assert battles.named(column) == loop, column
    assert battles.named("category") == {"hard_prompt", "coding"} and not battles.named("baseline")
    mixed = np.array([None, "a", "", None, "b", "a"], dtype=object)
    assert distinct(mixed) == {None, "a", "", "b"} and distinct(mixed[1:3]) == {"a", ""}
    empty = np.full(5, None, dtype=object)  # a None-only column is told by counting its Nones
    assert distinct(empty) == {None} and distinct(empty[:0]) == set()
    empty[-1] = "late"
    assert distinct(empty) == {None, "late"}


@pytest.mark.shared_data
@pytest.mark.parametrize("labels", [True, False], ids=["with-labels", "four-fields"])
def test_values_known_at_read_are_what_the_rows_hold(tmp_path: Path, labels: bool) -> None:
    """The columns a file lacks are known to hold None alone when the battles are built (no
    million-row pass later); every column's values are the set a loop over its rows finds,
    and the row reader's."""
    rows = arena_rows()
    if not labels:
        rows = [{k: r[k] for k in ("question_id", "model_a", "model_b", "winner")} for r in rows]
    path = write(tmp_path / "arena.jsonl", rows)
    battles, by_rows = read_battles_jsonl(path), read_battle_rows(path)
    for column in ("category", "judge", "baseline", "version"):
        loop = set(getattr(battles, column).tolist())
        assert battles.values(column) == loop == by_rows.values(column), column
        assert battles.named(column) == loop - {None}, column
    assert battles.named("category") == ({"hard_prompt", "coding"} if labels else set())


@pytest.mark.shared_data
def test_columns_a_file_lacks_take_no_memory_and_refuse_writes(tmp_path: Path) -> None:
    """A four-field file's absent columns are views of one None and its epochs of one 1: no
    memory per row, and read-only, so nothing can write one row of a shared value. Selecting
    rows and ranking read them as the row reader's filled columns."""
    rows = [
        {k: r[k] for k in ("question_id", "model_a", "model_b", "winner")} for r in arena_rows()
    ]
    path = write(tmp_path / "arena.jsonl", rows)
    battles, by_rows = read_battles_jsonl(path), read_battle_rows(path)
    for column in ("category", "judge", "baseline", "version", "epoch"):
        values = getattr(battles, column)
        assert values.strides == (0,) and not values.flags.writeable, column
        with pytest.raises(ValueError, match="read-only"):
            values[0] = values[0]
        assert getattr(by_rows, column).flags.writeable, column  # the row reader fills them
    even = np.arange(len(battles)) % 2 == 0
    assert_same_battles(battles.select(even), by_rows.select(even))
    for how in ({"ci_method": "sandwich"}, {"ci_method": "official", "rounds": 20, "seed": 3}):
        ours, theirs = leaderboard(battles, **how), leaderboard(by_rows, **how)  # type: ignore[arg-type]
        assert ours.rows == theirs.rows and ours.exclusions == theirs.exclusions


@pytest.mark.shared_data
def test_the_row_reader_takes_no_full_collection(tmp_path: Path) -> None:
    """Every row it reads is kept: a full collection would rescan them all for no garbage."""
    path = write(tmp_path / "arena.jsonl", arena_rows() * 20)
    full: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    saved = gc.get_threshold()
    gc.freeze()  # the test run's own heap set aside: the rows alone make full passes due
    gc.collect()
    gc.set_threshold(100, 1, 1)  # a full pass every few hundred allocations
    gc.callbacks.append(count)
    try:
        battles = read_battle_rows(path)
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*saved)
        gc.unfreeze()
    assert len(battles) > 5000 and full == []
