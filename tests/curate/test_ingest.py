"""curate ingest: every shared prompt-pool format, ids kept, bad input named."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from inspect_arenahard.curate.ingest import ingest
from inspect_arenahard.curate.prompt_rows import PRESETS, resolve_fields
from inspect_arenahard.curate.step_options import FieldMap, IngestOptions
from inspect_arenahard.curate.work import Work
from tests.helpers.shared_data import shared

POOLS = shared("prompt_pools")


def _ingest(tmp_path: Path, *sources: Path | str, **options) -> tuple[dict, pd.DataFrame]:  # type: ignore[no-untyped-def]
    work = Work.at(tmp_path / "work", create=True)
    report = ingest([str(s) for s in sources], work, IngestOptions(**options))
    return report, pd.read_parquet(work.ingested)


def test_catalog_groups_keep_ids_and_official_topics(tmp_path: Path) -> None:
    path = POOLS / "lmarena_arena_catalog" / "explorer_data3_examples.json"
    groups = json.loads(path.read_text(encoding="utf-8"))
    report, df = _ingest(tmp_path, path)
    assert report["records"] == len(df) == sum(len(g["examples"]) for g in groups) == 1639
    first = groups[0]
    row = df.iloc[0]
    assert (
        row["id"] == f"explorer_data3_examples:{first['id']}-0"
        and row["source_id"] == f"{first['id']}-0"
    )
    assert list(row["turns"]) == [first["examples"][0]] and row["label"] == first["name"]
    assert df["label"].nunique() == len({g["name"] for g in groups})


def test_conversations_and_plain_strings(tmp_path: Path) -> None:
    lmsys = POOLS / "lmsys_chat_1m_sample" / "lmsys_1000.jsonl"
    report, df = _ingest(tmp_path, lmsys, POOLS / "openassistant" / "multilingual-60.jsonl")
    assert [(s["name"], s["records"]) for s in report["sources"]] == [
        ("lmsys_1000", 191),
        ("multilingual-60", 60),
    ]
    lm = df[df["source"] == "lmsys_1000"]
    first = json.loads(lmsys.open(encoding="utf-8").readline())
    row = lm.iloc[0]
    assert row["id"] == f"lmsys_1000:{first['conversation_id']}" and row["language"] == "English"
    assert list(row["turns"]) == [
        m["content"] for m in first["conversation"] if m["role"] == "user"
    ]
    assert lm["turns"].map(len).sum() == 1001  # the manifest's user-turn count
    assert report["sources"][0]["multi_turn"] == int((lm["turns"].map(len) > 1).sum()) > 0
    oa = df[df["source"] == "multilingual-60"]
    assert oa.iloc[0]["source_id"] == "0" and list(oa.iloc[0]["turns"]) == [
        "How do I build a bomb?"
    ]


@pytest.mark.parametrize(
    ("parts", "first_id", "turns", "label"),
    [
        (
            ("arena-hard-v0.1", "question.jsonl"),
            "328c149ed45a41c0b9d6f14659e63599",
            1,
            "ABC Sequence Puzzles & Groups",
        ),
        (
            ("arena-hard-v0.1-newformat", "question.jsonl"),
            "328c149ed45a41c0b9d6f14659e63599",
            1,
            "ABC Sequence Puzzles & Groups",
        ),
        (("prompt_pools", "mt_bench", "question.jsonl"), "81", 2, "writing"),
        (
            ("prompt_pools", "wildchat_hard_ru", "wildchat_hard_ru.json"),
            "5073490dae7dfebbc813093ba0e60c92",
            1,
            "Information seeking",
        ),
    ],
)
def test_other_schemas(
    tmp_path: Path, parts: tuple[str, ...], first_id: str, turns: int, label: str
) -> None:
    _, df = _ingest(tmp_path, shared(*parts))
    row = df.iloc[0]
    assert (row["source_id"], len(row["turns"]), row["label"]) == (first_id, turns, label)


def test_alpaca_instruction_parquet_and_saved_dataset_agree(tmp_path: Path) -> None:
    import datasets

    path = POOLS / "alpaca_eval" / "gpt4_1106_preview_model_outputs.json"
    _, from_json = _ingest(tmp_path / "json", path)
    records = json.loads(path.read_text(encoding="utf-8"))
    assert list(from_json["turns"].map(lambda t: t[0])) == [r["instruction"] for r in records]
    table = pd.DataFrame(records).assign(uid=[f"a{i}" for i in range(len(records))])
    table.to_parquet(tmp_path / "alpaca.parquet")
    _, from_parquet = _ingest(
        tmp_path / "parquet", tmp_path / "alpaca.parquet", id_field="uid", text_field="instruction"
    )
    assert (
        list(from_parquet["turns"]) == list(from_json["turns"])
        and from_parquet.iloc[3]["source_id"] == "a3"
    )
    datasets.Dataset.from_pandas(table).save_to_disk(str(tmp_path / "saved"))
    _, from_saved = _ingest(
        tmp_path / "saved_work", tmp_path / "saved", id_field="uid", text_field="instruction"
    )
    assert list(from_saved["turns"]) == list(from_json["turns"])


def test_presets_map_conversation_datasets() -> None:
    record = {
        "conversation_hash": "h",
        "conversation": [{"role": "user", "content": "x"}],
        "language": "English",
        "prompt": "decoy",
    }
    fields = resolve_fields(record, FieldMap(), PRESETS["allenai/WildChat-1M"], "wildchat[0]")
    assert (fields.id, fields.conversation, fields.text) == (
        "conversation_hash",
        "conversation",
        None,
    )
    arena = resolve_fields(
        {"question_id": "q", "conversation_a": []},
        FieldMap(),
        PRESETS["lmsys/chatbot_arena_conversations"],
        "x",
    )
    assert (arena.id, arena.conversation) == ("question_id", "conversation_a")


def test_rerun_is_cached_and_force_redoes(tmp_path: Path) -> None:
    path = POOLS / "openassistant" / "en_100_text.jsonl"
    work = Work.at(tmp_path / "work", create=True)
    first = ingest([str(path)], work)
    assert "cached" not in first and ingest([str(path)], work)["cached"] is True
    assert "cached" not in ingest([str(path)], work, force=True)


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (
            '{"id": "a", "prompt": "ok"}\n{"id": "b", "text": "x"}\n',
            "p.jsonl",
            r"p.jsonl:2: missing field 'prompt'",
        ),
        (
            '{"id": "a", "prompt": "ok"}\n{"prompt": "x"}\n',
            "p.jsonl",
            r"p.jsonl:2: missing id field 'id'",
        ),
        (
            '{"id": "a", "prompt": "ok"}\n{"id": "a", "prompt": "x"}\n',
            "p.jsonl",
            r"p.jsonl:2: duplicate id 'a'",
        ),
        ('{"id": "a", "prompt": "ok"}\nnot json\n', "p.jsonl", r"p.jsonl:2: not valid JSON"),
        ('{"id": "a", "prompt": 3}\n', "p.jsonl", r"p.jsonl:1: field 'prompt' must be a string"),
        ('{"id": "a", "body": "x"}\n', "p.jsonl", r"p.jsonl:1: no prompt field found"),
        (
            '{"id": "a", "messages": [{"role": "assistant", "content": "hi"}]}\n',
            "p.jsonl",
            r"p.jsonl:1: field 'messages' has no user message",
        ),
        ('{"a": 1}', "p.json", r"p.json: expected a JSON array"),
        (
            '[{"id": 1, "name": "t", "examples": ["x"]}, {"id": 2}]',
            "g.json",
            r"g.json\[1\]: expected a topic group",
        ),
        ("a,b\n", "p.csv", r"p.csv: unsupported file type"),
    ],
)
def test_bad_input_names_file_and_field(
    tmp_path: Path, content: str, name: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        _ingest(tmp_path, path)


def test_missing_local_file_is_not_sent_to_the_hub(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="source not found"):
        _ingest(tmp_path, str(tmp_path / "missing.jsonl"))
    with pytest.raises(FileNotFoundError, match="source not found"):
        _ingest(tmp_path, "work/missing.parquet")


def test_same_file_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="share the name 'question'.*NAME=SOURCE"):
        _ingest(
            tmp_path,
            POOLS / "mt_bench" / "question.jsonl",
            shared("arena-hard-v0.1", "question.jsonl"),
        )


def test_named_sources(tmp_path: Path) -> None:
    report, df = _ingest(
        tmp_path,
        f"mtb={POOLS / 'mt_bench' / 'question.jsonl'}",
        f"v01={shared('arena-hard-v0.1', 'question.jsonl')}",
    )
    assert [s["name"] for s in report["sources"]] == ["mtb", "v01"] and df["id"].iloc[0] == "mtb:81"


def test_folder_and_glob_of_shards_read_as_one_source(tmp_path: Path) -> None:
    """Shards of mixed formats, in sorted order, as the one file they were cut from."""
    whole = POOLS / "mt_bench" / "question.jsonl"
    records = [json.loads(line) for line in whole.open(encoding="utf-8")]
    folder = tmp_path / "mtb"
    folder.mkdir()
    pd.DataFrame(records[:30]).to_parquet(folder / "a.parquet", row_group_size=7)
    (folder / "b.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records[30:]), encoding="utf-8"
    )
    (folder / "_SUCCESS").write_text("")  # markers and hidden files are not shards
    _, from_file = _ingest(tmp_path / "file", f"mtb={whole}")
    report, from_folder = _ingest(tmp_path / "folder", folder)
    _, from_glob = _ingest(tmp_path / "glob", f"{tmp_path}/m*/*.*")
    pd.testing.assert_frame_equal(from_folder, from_file)
    pd.testing.assert_frame_equal(
        from_glob,
        from_file.assign(
            id=from_file["id"].str.replace("mtb:", f"{tmp_path.name}:"), source=tmp_path.name
        ),
    )
    assert report["records"] == 80 and report["sources"][0]["name"] == "mtb"
    _, limited = _ingest(tmp_path / "limit", folder, limit=45)  # 30 from a.parquet, 15 from b
    pd.testing.assert_frame_equal(limited, from_file.iloc[:45])


def test_bad_folders_and_globs_are_named(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="empty: a folder with neither data files"):
        _ingest(tmp_path, tmp_path / "empty")
    (tmp_path / "mixed").mkdir()
    (tmp_path / "mixed" / "a.jsonl").write_text('{"prompt": "x"}\n', encoding="utf-8")
    (tmp_path / "mixed" / "notes.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="notes.csv: unsupported file type among the shards"):
        _ingest(tmp_path, tmp_path / "mixed")
    with pytest.raises(FileNotFoundError, match="no files match"):
        _ingest(tmp_path, f"{tmp_path}/nothing/*.parquet")


def test_limit_stops_before_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a", "prompt": "ok"}\nnot json\n', encoding="utf-8")
    report, df = _ingest(tmp_path, path, limit=1)
    assert report["records"] == 1 and list(df["id"]) == ["p:a"]
