"""curate cluster on real Arena prompts: the CLI contract, counts, resumability, NMI/ARI vs official topics."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.curate.cluster import reassign_outliers
from inspect_arenahard.curate.topics import OUTLIER, cluster_keywords, topic_names
from tests.helpers.scripted import scripted_model
from tests.helpers.shared_data import shared

CATALOG = shared("prompt_pools", "lmarena_arena_catalog", "explorer_examples_20241215.json")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documented contract: `curate ingest --source FILE --out WORK`, then `curate cluster WORK`."""
    root = tmp_path_factory.mktemp("curate") / "work"
    assert main(["curate", "ingest", "--source", str(CATALOG), "--out", str(root)]) == 0
    assert main(["curate", "cluster", str(root), "--min-cluster-size", "10"]) == 0
    return root


def test_clusters_jsonl_contract(work: Path) -> None:
    rows = [
        json.loads(line)
        for line in (work / "clusters.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert rows and all(set(r) == {"id", "prompt", "cluster", "topic"} for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    topics = json.loads((work / "topics.json").read_text(encoding="utf-8"))
    assert all(r["topic"] == topics[str(r["cluster"])]["topic"] for r in rows)
    assert {r["cluster"] for r in rows} >= {OUTLIER, 0}
    assert all(r["topic"] == "(outliers)" for r in rows if r["cluster"] == OUTLIER)


def test_nothing_dropped_silently(work: Path) -> None:
    report = json.loads((work / "cluster_report.json").read_text(encoding="utf-8"))
    ingested = pd.read_parquet(work / "ingested.parquet")
    kept = pd.read_parquet(work / "prompts.parquet")
    excluded = pd.read_parquet(work / "excluded.parquet")
    assert report["ingested"] == len(ingested) == 3860
    assert report["kept"] == len(kept) == len(ingested) - len(excluded)
    assert set(kept["id"]) | set(excluded["id"]) == set(ingested["id"])
    counts = {c["filter"]: c["removed"] for c in report["filters"]}
    assert set(counts) == {
        "multi_turn",
        "exact_duplicate",
        "min_length",
        "truncated",
        "language",
        "judge_text",
        "near_duplicate",
    }
    assert excluded["filter"].value_counts().to_dict() == {k: v for k, v in counts.items() if v}
    assert (kept["prompt"].str.strip().str.len() > 32).all()


def test_agrees_with_official_topics(work: Path) -> None:
    agreement = json.loads((work / "cluster_report.json").read_text(encoding="utf-8"))[
        "label_agreement"
    ]
    print("NMI/ARI vs official topics:", agreement)
    assert agreement["nmi"] >= 0.8
    assert agreement["ari"] >= 0.3


def test_rerun_is_cached(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["curate", "cluster", str(work), "--min-cluster-size", "10"]) == 0
    assert '"cached": true' in capsys.readouterr().out


def test_reassign_outliers_to_nearest_centroid() -> None:
    vectors = np.array(
        [[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9], [0.8, 0.3], [0.2, 0.7]], dtype=np.float32
    )
    labels = np.array([0, 0, 1, 1, OUTLIER, OUTLIER])
    assert reassign_outliers(vectors, labels).tolist() == [0, 0, 1, 1, 0, 1]


def test_keywords_and_llm_topic_names() -> None:
    prompts = [f"python pandas dataframe merge question {i}" for i in range(6)] + [
        f"bake sourdough bread recipe flour {i}" for i in range(6)
    ]
    labels = np.array([0] * 6 + [1] * 6)
    keywords = cluster_keywords(prompts, labels)
    assert set(keywords[0][:5]) == {"python", "pandas", "dataframe", "merge", "question"}
    assert {"bake", "sourdough", "bread", "recipe", "flour"} <= set(keywords[1])
    seen: list[str] = []

    def namer(messages):  # type: ignore[no-untyped-def]
        text = messages[-1].text
        seen.append(text)
        return '"Pandas DataFrames"\n' if "pandas" in text else "Topic: Sourdough baking"

    names = topic_names(prompts, labels, namer=scripted_model("namer", namer), examples=3)
    assert names[0]["topic"] == "Pandas DataFrames" and names[1]["topic"] == "Sourdough baking"
    assert (
        names[0]["size"] == 6 and len(seen) == 2 and all(text.count("\n- ") == 3 for text in seen)
    )
