"""curate select and report: selection arithmetic, exports, cost; the export runs as `inspect eval arenahard`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from inspect_arenahard.curate.curation_report import cost_estimate, price_for, report
from inspect_arenahard.curate.selection import SelectOptions, choose, cluster_table, select
from inspect_arenahard.curate.work import Work
from tests.helpers.curation import quality, sixty_questions
from tests.helpers.inspect_cli import inspect_eval_cli

NAN = math.nan


def _scored() -> pd.DataFrame:
    rows = [
        # cluster 0: mean 21/4 = 5.25, eligible (>= 6) 3
        ("a1", 0, 7), ("a2", 0, 6), ("a3", 0, 6), ("a4", 0, 2),
        # cluster 1: mean 14/3 = 4.67 < 5: never chosen
        ("b1", 1, 6), ("b2", 1, 4), ("b3", 1, 4),
        # cluster 2: parsed mean 16/3 = 5.33 (the unparsed one is not a zero), eligible 1
        ("c1", 2, 5), ("c2", 2, 5), ("c3", 2, 6), ("c4", 2, NAN),
        # cluster 3: one unannotated prompt, mean 7 over the two annotated
        ("d1", 3, 7), ("d2", 3, 7), ("d3", 3, None),
        # outliers: mean 7 but not a topic
        ("o1", -1, 7), ("o2", -1, 7),
    ]  # fmt: skip
    df = pd.DataFrame(rows, columns=["id", "cluster", "score"])
    annotated = df["score"].notna() | (df["id"] == "c4")
    parsed = df["score"].notna()
    return df.assign(
        prompt=df["id"] + " prompt",
        topic="topic " + df["cluster"].astype(str),
        annotated=annotated,
        parsed=parsed,
        score=df["score"].astype(float),
        criteria=[
            list(range(1, int(s) + 1)) if s == s and s is not None else None for s in df["score"]
        ],
    )


def test_cluster_table_arithmetic() -> None:
    table = cluster_table(_scored(), SelectOptions(min_score=6, min_cluster_mean=5))
    assert table.loc[0, ["size", "annotated", "eligible"]].tolist() == [4, 4, 3]
    assert table["mean_score"].to_dict() == pytest.approx(
        {-1: 7, 0: 5.25, 1: 14 / 3, 2: 16 / 3, 3: 7}
    )
    assert table.loc[2, "unparsed"] == 1 and table.loc[3, "annotated"] == 2
    assert table.index[table["qualifies"]].tolist() == [0, 2, 3]
    with_outliers = cluster_table(
        _scored(), SelectOptions(min_score=6, min_cluster_mean=5, include_outliers=True)
    )
    assert with_outliers.index[with_outliers["qualifies"]].tolist() == [-1, 0, 2, 3]


def test_choose_draws_clusters_then_prompts() -> None:
    scored = _scored()
    options = SelectOptions(min_score=6, min_cluster_mean=5, clusters=2, per_cluster=2, seed=3)
    table = cluster_table(scored, options)
    chosen, rows = choose(scored, table, options)
    assert len(chosen) == 2 and set(chosen) <= {0, 2, 3}
    expected_sizes = {0: 2, 2: 1, 3: 2}  # cluster 2 has a single eligible prompt
    assert rows.groupby("cluster").size().to_dict() == {c: expected_sizes[c] for c in chosen}
    assert (rows["score"] >= 6).all() and rows["id"].is_unique
    again = choose(scored, table, options)
    assert again[0] == chosen and again[1]["id"].tolist() == rows["id"].tolist()
    everything = SelectOptions(min_score=6, min_cluster_mean=5, clusters=250, per_cluster=5)
    chosen, rows = choose(scored, cluster_table(scored, everything), everything)
    assert chosen == [0, 2, 3] and sorted(rows["id"]) == ["a1", "a2", "a3", "c3", "d1", "d2"]


def test_prices() -> None:
    table = {"gpt-4o": (2.5, 10.0), "gpt-4o-mini": (0.15, 0.6)}
    assert price_for("openai/gpt-4o-mini-2024-07-18", table) == (0.15, 0.6)
    assert price_for("openai/gpt-4o-2024-08-06", table) == (2.5, 10.0)
    assert price_for("anthropic/claude-x", table) is None
    usage = [
        {
            "log": "l",
            "model": "openai/gpt-4o-mini",
            "samples": 100,
            "input_tokens": 1_000_000,
            "output_tokens": 500_000,
            "provider_cost": None,
        },
        {
            "log": "l",
            "model": "openai/gpt-4o",
            "samples": 20,
            "input_tokens": 100_000,
            "output_tokens": 10_000,
            "provider_cost": None,
        },
        {
            "log": "m",
            "model": "x/own",
            "samples": 100,
            "input_tokens": 5,
            "output_tokens": 5,
            "provider_cost": 0.5,
        },
    ]
    cost = cost_estimate(usage, pool_size=1000, prices=table)
    spent = 0.15 + 0.3 + 0.25 + 0.1 + 0.5
    assert cost["usd"] == pytest.approx(spent) and cost["usd_for_pool"] == pytest.approx(
        10 * spent, abs=0.01
    )
    assert cost["unpriced_models"] == []


# --------------------------------------------------------------------------- real prompts, scripted annotator
# curated (tests/curate/conftest.py): sixty_questions annotated by a scripted gpt-4o-mini


def test_select_exports_jsonl_and_dataset(curated: tuple[Work, Path]) -> None:
    import datasets

    work, logs = curated
    questions = sixty_questions()
    options = SelectOptions(min_score=2, min_cluster_mean=1.5, clusters=10, per_cluster=2, seed=1)
    summary = select(work, [logs], options)
    qualities = {q.id: quality(q.prompt) for q in questions[1:]}
    assert summary["prompts"] == 60 and summary["annotated"] == 60 and summary["unparsed"] == 1
    assert summary["eligible_prompts"] == sum(v >= 2 for v in qualities.values())
    rows = [json.loads(line) for line in work.benchmark.read_text(encoding="utf-8").splitlines()]
    assert (
        len(rows) == summary["selected"] > 0
        and len({r["cluster"] for r in rows}) == summary["chosen_clusters"] <= 10
    )
    by_id = {q.id: q for q in questions}
    for r in rows:
        assert set(r) == {"id", "prompt", "category", "cluster", "topic", "score", "criteria"}
        assert r["prompt"] == by_id[r["id"]].prompt and r["topic"] == by_id[r["id"]].cluster
        assert r["score"] == qualities[r["id"]] >= 2 and r["criteria"] == list(
            range(1, r["score"] + 1)
        )
        assert r["category"] == "hard_prompt"
    saved = datasets.load_from_disk(str(work.benchmark_dataset))
    assert saved.to_list() == rows
    assert select(work, [logs], options)["cached"] is True


def test_report_distribution_cost_and_plot(curated: tuple[Work, Path]) -> None:
    work, logs = curated
    select(
        work,
        [logs],
        SelectOptions(min_score=2, min_cluster_mean=1.5, clusters=10, per_cluster=2, seed=1),
    )
    plot = work.root / "clusters.png"
    out = report(work, plot=plot, prices={"gpt-4o-mini": (1.0, 2.0)})
    qualities = [quality(q.prompt) for q in sixty_questions()[1:]]
    dist = out["distribution"]
    assert dist["prompts"] == 59
    assert dist["percent_score_at_least"]["2"] == pytest.approx(
        round(100 * sum(q >= 2 for q in qualities) / 59, 2)
    )
    assert dist["percent_per_criterion"]["specificity"] == dist["percent_score_at_least"]["1"]
    assert out["cost"]["usd"] == pytest.approx(60 * (10 * 1.0 + 5 * 2.0) / 1e6)
    assert out["cost"]["usd_for_pool"] == pytest.approx(out["cost"]["usd"], abs=0.01)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(work.root / "clusters.csv")
    assert table["kept"].sum() == out["selected"] and table["size"].sum() == 60


def test_exported_file_runs_as_arenahard(curated: tuple[Work, Path], tmp_path: Path) -> None:
    work, logs = curated
    select(
        work,
        [logs],
        SelectOptions(min_score=2, min_cluster_mean=1.5, clusters=3, per_cluster=1, seed=1),
    )
    ids = [
        json.loads(line)["id"] for line in work.benchmark.read_text(encoding="utf-8").splitlines()
    ]
    args = [
        "arenahard", "-T", f"dataset={work.benchmark}", "-T", "version=custom",
        "--model", "mockllm/model", "--model-role", "baseline=mockllm/model", "--model-role", "judge=mockllm/model",
    ]  # fmt: skip
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs")
    # the benchmark's prompts, and the 16 canary pairs every run judges beside them
    prompts = [s for s in log.samples or [] if not s.metadata.get("canary")]
    assert log.status == "success" and sorted(s.id for s in prompts) == sorted(ids)
    assert len(log.samples or []) == len(ids) + 16
    assert all(
        s.metadata["category"] == "hard_prompt" and isinstance(s.metadata["cluster"], int)
        for s in prompts
    )


def test_select_without_logs_is_an_error(curated: tuple[Work, Path], tmp_path: Path) -> None:
    work, _ = curated
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no arenahard_annotate logs"):
        select(work, [tmp_path / "empty"])
    with pytest.raises(FileNotFoundError, match="annotation logs not found"):
        select(work, [tmp_path / "missing"])
