"""Loading the three real arena-hard folders, both schemas, and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from inspect_arenahard import arenahard
from inspect_arenahard.evaluate.dataset import load_answers, load_questions
from tests.helpers.shared_data import shared


@pytest.mark.shared_data
def test_v01_legacy_schema_joins_500_of_500() -> None:
    task = arenahard(data_dir=str(shared("arena-hard-v0.1")))
    samples = list(task.dataset)[:-16]  # the prompts; 16 canary pairs follow them
    assert len(samples) == 500 and len(task.dataset) == 516
    assert all(s.metadata["baseline_answer"] for s in samples)
    assert {s.metadata["baseline_model"] for s in samples} == {"gpt-4-0314"}
    first = samples[0]
    assert first.id == "328c149ed45a41c0b9d6f14659e63599"
    assert first.metadata["cluster"] == "ABC Sequence Puzzles & Groups"
    assert first.metadata["category"] == "arena-hard-v0.1"


@pytest.mark.shared_data
def test_new_schema_gives_the_same_questions_and_answers() -> None:
    old = {s.id: s for s in arenahard(data_dir=str(shared("arena-hard-v0.1"))).dataset}
    new = {s.id: s for s in arenahard(data_dir=str(shared("arena-hard-v0.1-newformat"))).dataset}
    assert old.keys() == new.keys()
    assert all(old[k].input == new[k].input for k in old)
    legacy = load_answers(shared("arena-hard-v0.1", "model_answer", "gpt-3.5-turbo-0125.jsonl"))
    modern = load_answers(
        shared("arena-hard-v0.1-newformat", "model_answer", "gpt-3.5-turbo-0125.jsonl")
    )
    assert legacy.keys() == modern.keys() and len(modern) == 500
    same = sum(legacy[k].text == modern[k].text for k in legacy)
    assert same >= 495, same


@pytest.mark.shared_data
def test_v20_baselines_by_category() -> None:
    v2 = str(shared("arena-hard-v2.0"))
    hard = list(arenahard(version="v2.0", data_dir=v2, category="hard_prompt", canaries=0).dataset)
    assert len(hard) == 500
    assert {s.metadata["baseline_model"] for s in hard} == {"o3-mini-2025-01-31"}
    assert {s.metadata["subcategory"] for s in hard} == {"coding", "math"}
    # creative writing's default baseline (gemini-2.0-flash-001) has no stored answers here
    with pytest.raises(
        ValueError,
        match="gemini-2.0-flash-001.*available: o3-mini-2025-01-31.*category=hard_prompt",
    ):
        arenahard(version="v2.0", data_dir=v2)
    # an explicit baseline applies to every category
    assert (
        len(
            arenahard(
                version="v2.0", data_dir=v2, baseline="o3-mini-2025-01-31", canaries=0
            ).dataset
        )
        == 750
    )


@pytest.mark.shared_data
def test_missing_baseline_answers_name_the_ids(tmp_path: Path) -> None:
    src = shared("arena-hard-v0.1")
    (tmp_path / "model_answer").mkdir()
    (tmp_path / "question.jsonl").write_bytes((src / "question.jsonl").read_bytes())
    lines = (
        (src / "model_answer" / "llama-3.1-8b-instruct.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    (tmp_path / "model_answer" / "llama-3.1-8b-instruct.jsonl").write_text(
        "\n".join(lines[:-2]), encoding="utf-8"
    )
    questions = {q.id for q in load_questions(src / "question.jsonl")}
    kept = {json.loads(line)["question_id"] for line in lines[:-2]}
    missing = sorted(questions - kept)
    assert len(missing) == 3  # the real file already lacks one answer
    with pytest.raises(ValueError, match="3 missing") as info:
        arenahard(data_dir=str(tmp_path), baseline="llama-3.1-8b-instruct")
    assert all(m in str(info.value) for m in missing)


def test_curated_dataset_jsonl_with_category_filter(tmp_path: Path) -> None:
    rows = [
        {
            "id": "c1",
            "prompt": "Prove that sqrt(2) is irrational.",
            "category": "math",
            "cluster": 3,
            "topic": "proofs",
        },
        {"id": "c2", "prompt": "Write a haiku about rain.", "category": "writing", "cluster": 1},
    ]
    path = tmp_path / "bench.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    answers = tmp_path / "answers"
    (answers / "model_answer").mkdir(parents=True)
    (answers / "model_answer" / "base.jsonl").write_text(
        json.dumps(
            {
                "uid": "c1",
                "model": "base",
                "messages": [
                    {"role": "user", "content": "x"},
                    {"role": "assistant", "content": {"answer": "Because..."}},
                ],
            }
        ),
        encoding="utf-8",
    )
    task = arenahard(
        version="custom",
        dataset=str(path),
        data_dir=str(answers),
        baseline="base",
        category="math",
        canaries=0,
    )
    [sample] = list(task.dataset)
    assert (
        sample.id == "c1"
        and sample.metadata["topic"] == "proofs"
        and sample.metadata["baseline_answer"] == "Because..."
    )
    with pytest.raises(ValueError, match="category 'poetry' not in the data"):
        arenahard(
            version="custom",
            dataset=str(path),
            data_dir=str(answers),
            baseline="base",
            category="poetry",
        )


def test_bad_input_names_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "a", "prompt": "ok"}\n{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:2: missing field 'prompt' or 'turns'"):
        load_questions(bad)
    bad.write_text('{"id": "a", "prompt": "ok"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:2: not valid JSON"):
        load_questions(bad)
    bad.write_text(
        '{"id": "a", "prompt": "ok"}\n{"id": "a", "prompt": "again"}\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"duplicate id 'a'"):
        load_questions(bad)
    with pytest.raises(ValueError, match="version='v3' is not one of v0.1, v2.0, custom"):
        arenahard(version="v3")
    with pytest.raises(ValueError, match="version=custom needs"):
        arenahard(version="custom")


@pytest.mark.shared_data
def test_hub_release_download_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without data_dir the release comes from the hub: the revision from scorers/configs/hub.yaml
    (or ARENAHARD_HUB_REVISION) and only the files the run needs (hub faked offline)."""
    import shutil

    import huggingface_hub

    calls: list[dict] = []

    def fake_snapshot_download(**kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs)
        root = tmp_path / "snapshot"
        target = root / "data" / "arena-hard-v0.1"
        (target / "model_answer").mkdir(parents=True, exist_ok=True)
        shutil.copy(shared("arena-hard-v0.1", "question.jsonl"), target / "question.jsonl")
        shutil.copy(
            shared("arena-hard-v0.1", "model_answer", "gpt-4-0314.jsonl"), target / "model_answer"
        )
        return str(root)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    monkeypatch.delenv("ARENAHARD_HUB_REVISION", raising=False)
    task = arenahard(version="v0.1", canaries=0)
    assert len(task.dataset) == 500
    [call] = calls
    assert call["repo_id"] == "lmarena-ai/arena-hard-auto" and call["repo_type"] == "dataset"
    # pinned to a full commit hash, never a moving branch
    assert re.fullmatch(r"[0-9a-f]{40}", call["revision"]), call["revision"]
    monkeypatch.setenv("ARENAHARD_HUB_REVISION", "abc123")
    calls.clear()
    arenahard(version="v0.1")
    [call] = calls
    assert call["revision"] == "abc123"
    assert call["allow_patterns"] == [
        "data/arena-hard-v0.1/question.jsonl",
        "data/arena-hard-v0.1/model_answer/gpt-4-0314.jsonl",
    ]

    def offline(**kwargs):  # type: ignore[no-untyped-def]
        raise OSError("no network")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(ValueError, match="Pass -T data_dir=<folder> to use a local copy"):
        arenahard(version="v0.1")
