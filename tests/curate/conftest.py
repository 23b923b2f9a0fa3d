"""Fixtures shared by the curation tests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval

from inspect_arenahard.curate.annotate import arenahard_annotate
from inspect_arenahard.curate.work import Work
from tests.helpers.curation import quality, real_records, sixty_questions, write_jsonl
from tests.helpers.scripted import scripted_model
from tests.helpers.shared_data import reads_shared_data


@pytest.fixture(scope="module")
@reads_shared_data
def curated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Work, Path]:
    """``sixty_questions`` annotated by a scripted gpt-4o-mini that labels each prompt with
    ``quality`` (and leaves the first unparsed): the work folder and the annotation logs."""
    questions = sixty_questions()
    root = tmp_path_factory.mktemp("select")
    work = Work.at(root / "work", create=True)
    clusters = {name: i for i, name in enumerate(dict.fromkeys(q.cluster for q in questions))}
    pd.DataFrame(
        {"id": [q.id for q in questions], "prompt": [q.prompt for q in questions],
         "cluster": [clusters[q.cluster] for q in questions], "topic": [q.cluster for q in questions]}
    ).to_parquet(work.prompts)  # fmt: skip

    def annotator(messages):  # type: ignore[no-untyped-def]
        text = messages[-1].text
        if text == questions[0].prompt:
            return "I am not sure."
        return f"Reasoning.\nCriteria Satisfied: {list(range(1, quality(text) + 1))}"

    logs = root / "logs"
    with (
        pytest.MonkeyPatch.context() as mp
    ):  # module fixtures run before the per-test cache isolation
        mp.setenv("INSPECT_CACHE_DIR", str(root / "inspect-cache"))
        [log] = eval(
            arenahard_annotate(pool=str(work.prompts)),
            model=scripted_model("gpt-4o-mini", annotator),
            log_dir=str(logs),
            display="none",
        )
    assert log.status == "success"
    return work, logs


@pytest.fixture(scope="module")
@reads_shared_data
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real prompts as four shards of three formats (Parquet in row groups of 200)."""
    folder = tmp_path_factory.mktemp("shards") / "pool"
    folder.mkdir()
    records = real_records()
    q = len(records) // 4
    chunks = [records[:q], records[q : 2 * q], records[2 * q : 3 * q], records[3 * q :]]
    pd.DataFrame(chunks[0]).to_parquet(folder / "part-0.parquet", row_group_size=200)
    write_jsonl(folder / "part-1.jsonl", chunks[1])
    write_jsonl(folder / "part-2.jsonl.gz", chunks[2])
    pd.DataFrame(chunks[3]).to_parquet(folder / "part-3.parquet", row_group_size=200)
    return folder
