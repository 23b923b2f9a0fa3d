"""The one JSONL reader: line numbers in every error, U+2028 and friends kept inside strings,
records streamed one line at a time, and the readers built on it (review files) round-tripping."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from inspect_arenahard.errors import UserError
from inspect_arenahard.files.jsonl import line_starts, read_json, read_jsonl

SEPARATORS = "line\u2028para\u2029next\x85end"
"""Characters ``str.splitlines`` breaks at but a JSONL line break is not."""


def _write(path: Path, lines: list[str], newline: str = "\n") -> Path:
    path.write_text(newline.join(lines) + newline, encoding="utf-8", newline="")
    return path


def test_unicode_line_separators_stay_inside_their_record(tmp_path: Path) -> None:
    records = [{"id": 1, "prompt": SEPARATORS}, {"id": 2, "prompt": "plain"}]
    path = _write(tmp_path / "q.jsonl", [json.dumps(r, ensure_ascii=False) for r in records])
    assert "\u2028" in path.read_text(encoding="utf-8")  # written raw, not escaped
    assert list(read_jsonl(path)) == [(1, records[0]), (2, records[1])]


def test_blank_lines_are_skipped_but_counted(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", ['{"a": 1}', "", "   ", '{"a": 2}'], newline="\r\n")
    assert list(read_jsonl(path)) == [(1, {"a": 1}), (4, {"a": 2})]


def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", ['{"a": 1}', "", '{"a": 2,}'])
    with pytest.raises(UserError, match=rf"^{path}:3: not valid JSON \("):
        list(read_jsonl(path))


def test_records_are_streamed_before_a_later_bad_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", ['{"a": 1}', "{oops"])
    records = read_jsonl(path)
    assert next(records) == (1, {"a": 1})
    with pytest.raises(UserError, match=":2: not valid JSON"):
        next(records)


def test_objects_only_unless_asked(tmp_path: Path) -> None:
    path = _write(tmp_path / "pool.jsonl", ['{"prompt": "x"}', '"a bare prompt"'])
    with pytest.raises(UserError, match=rf"^{path}:2: expected a JSON object$"):
        list(read_jsonl(path))
    assert list(read_jsonl(path, objects=False)) == [(1, {"prompt": "x"}), (2, "a bare prompt")]


def test_gzip_folders_missing_files_and_bad_bytes(tmp_path: Path) -> None:
    packed = tmp_path / "r.jsonl.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"p": SEPARATORS}, ensure_ascii=False) + "\n")
    assert list(read_jsonl(packed)) == [(1, {"p": SEPARATORS})]
    with pytest.raises(UserError, match="is a folder; expected a JSONL file"):
        list(read_jsonl(tmp_path))
    with pytest.raises(FileNotFoundError):
        list(read_jsonl(tmp_path / "missing.jsonl"))
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"a": 1}\n{"a": "caf\xe9"}\n')
    with pytest.raises(UserError, match=rf"^{latin}:2: not a UTF-8 JSONL file"):
        list(read_jsonl(latin))
    with pytest.raises(ValueError, match="gzip file cannot be read from a byte offset"):
        list(read_jsonl(packed, start=10))


def test_review_file_with_a_line_separator_in_a_question_reads_back(tmp_path: Path) -> None:
    """The review queue is written with ``ensure_ascii=False``; reading it used to split lines at
    U+2028 and fail on the half of a record."""
    from inspect_arenahard.scaleeval.review import COLUMNS, read_decisions, write_queue

    row = dict.fromkeys(COLUMNS, "") | {
        "key": "item-1::helpfulness",
        "order": "21",
        "question": f"Explain {SEPARATORS}",
        "decision": "1",
    }
    path = tmp_path / "review.jsonl"
    write_queue(path, [row])
    read = read_decisions(path)
    assert (
        read.decisions == {"item-1::helpfulness": "2"} and read.pending == 0
    )  # "1" as shown, swapped


def test_format_detection_reads_a_first_record_with_a_line_separator(tmp_path: Path) -> None:
    from inspect_arenahard.scaleeval.data import detect_format

    item = {"question": SEPARATORS, "submission_1": "a", "submission_2": "b"}
    path = _write(tmp_path / "items.jsonl", [json.dumps(item, ensure_ascii=False)])
    assert detect_format(path) == "jsonl"


def test_whole_json_file_errors_name_file_and_line(tmp_path: Path) -> None:
    good = _write(tmp_path / "map.json", ['{"a": "b",', f' "c": "{SEPARATORS}"}}'])
    assert read_json(good) == {"a": "b", "c": SEPARATORS}
    bad = _write(tmp_path / "bad.json", ["{", '  "a": 1', '  "b": 2', "}"])
    with pytest.raises(UserError, match=r"bad\.json: not valid JSON \(.*at line 3\)"):
        read_json(bad)
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "missing.json")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_pieces_read_apart_give_the_whole_file(
    tmp_path: Path, newline: str, final_newline: bool
) -> None:
    """Cut at every size from one byte to the whole file, the pieces (each read from its own
    offset) give the whole file's records with the whole file's line numbers: blank lines,
    U+2028 inside strings and CRLF endings included."""
    import random

    rng = random.Random(7)
    lines = [
        "" if rng.random() < 0.1 else json.dumps({"i": i, "p": SEPARATORS * rng.randint(0, 40)})
        for i in range(300)
    ]
    path = tmp_path / "pool.jsonl"
    text = newline.join(lines) + (newline if final_newline else "")
    path.write_bytes(text.encode("utf-8"))
    whole = list(read_jsonl(path))
    size = path.stat().st_size
    for every in (1, 2, 17, 300, 4096, size // 3, size, 10 * size):
        cuts = line_starts(path, every, block=64)  # small blocks: cuts across block edges
        assert cuts[0] == (0, 1) and all(a[0] < b[0] for a, b in zip(cuts, cuts[1:]))
        assert all(start < size for start, _ in cuts)
        stops = [start for start, _ in cuts[1:]] + [None]
        pieces = [
            list(read_jsonl(path, start=start, stop=stop, first_line=line))
            for (start, line), stop in zip(cuts, stops)
        ]
        assert [r for piece in pieces for r in piece] == whole, every
        if every <= size // 3:
            assert len(cuts) >= 3
