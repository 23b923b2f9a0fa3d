"""Select: hard prompts from good clusters, a few per cluster, as the benchmark's dataset.

BenchBuilder's rule: keep prompts whose quality score is at least ``min_score`` in clusters
whose mean score is at least ``min_cluster_mean``; draw ``clusters`` of the qualifying
clusters at random (seeded) and ``per_cluster`` prompts from each. A cluster's mean is taken
over its annotated, parsed prompts. Outliers (cluster −1) are not a topic and are left out
unless asked for. Writes ``benchmark.jsonl`` (``id, prompt, category, cluster, topic, score,
criteria``; read by ``inspect eval arenahard -T dataset=...``), the same rows as a ``datasets``
dataset (``benchmark/``), and ``select_report.json`` with every count.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from inspect_arenahard.curate.annotation_logs import (
    AnnotationLog,
    annotation_logs,
    log_key,
    read_scores,
)
from inspect_arenahard.curate.cache import Timer, file_digest, step_key, up_to_date, write_report
from inspect_arenahard.curate.step_options import SelectOptions as SelectOptions  # re-exported
from inspect_arenahard.curate.topics import OUTLIER
from inspect_arenahard.curate.work import Work


def cluster_table(scored: pd.DataFrame, options: SelectOptions) -> pd.DataFrame:
    """Per cluster: size, annotated, unparsed, mean score, eligible prompts, qualifies."""
    eligible = scored["parsed"] & (scored["score"] >= options.min_score)
    table = (
        scored.assign(
            eligible=eligible,
            annotated=scored["annotated"],
            unparsed=scored["annotated"] & ~scored["parsed"],
        )
        .groupby("cluster")
        .agg(
            topic=("topic", "first"),
            size=("id", "size"),
            annotated=("annotated", "sum"),
            unparsed=("unparsed", "sum"),
            mean_score=("score", "mean"),
            eligible=("eligible", "sum"),
        )
    )
    ok = (table["mean_score"] >= options.min_cluster_mean) & (table["eligible"] > 0)
    if not options.include_outliers:
        ok &= table.index != OUTLIER
    return table.assign(qualifies=ok)


def choose(
    scored: pd.DataFrame, table: pd.DataFrame, options: SelectOptions
) -> tuple[list[int], pd.DataFrame]:
    """(chosen clusters, selected rows): seeded draws of clusters, then of prompts within each."""
    rng = random.Random(options.seed)
    qualifying = sorted(int(c) for c in table.index[table["qualifies"]])
    chosen = sorted(rng.sample(qualifying, min(options.clusters, len(qualifying))))
    eligible = scored[scored["parsed"] & (scored["score"] >= options.min_score)]
    picked = []
    for c in chosen:
        ids = sorted(eligible.loc[eligible["cluster"] == c, "id"])
        picked.extend(rng.sample(ids, min(options.per_cluster, len(ids))))
    rows = eligible.set_index("id").loc[picked].reset_index()
    return chosen, rows


def join_annotations(
    work: Work, logs: Sequence[str | Path]
) -> tuple[pd.DataFrame, int, list[AnnotationLog]]:
    """(kept prompts with their annotation, annotations of ids not in the pool, the logs read)."""
    if not work.prompts.is_file():
        raise FileNotFoundError(
            f"{work.prompts} not found: run `arenahard curate cluster {work.root}` first"
        )
    prompts = pd.read_parquet(work.prompts, columns=["id", "prompt", "cluster", "topic"])
    found = annotation_logs(logs)
    scores = read_scores(found)
    joined = prompts.merge(scores.drop(columns=["log"]), on="id", how="left")
    joined["annotated"] = joined["parsed"].notna()
    joined["parsed"] = joined["parsed"].fillna(False).astype(bool)
    return joined, int((~scores["id"].isin(prompts["id"])).sum()), found


def select(
    work: Work,
    logs: Sequence[str | Path],
    options: SelectOptions | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run the selection step; returns its report."""
    options = options or SelectOptions()
    timer = Timer()
    scored, not_in_pool, found = join_annotations(work, logs)
    key = step_key(
        "select",
        prompts=file_digest(work.prompts),
        logs=[log_key(log) for log in found],
        options=asdict(options),
    )
    if not force and up_to_date(
        work.report("select"), key, [work.benchmark, work.benchmark_dataset]
    ):
        return json.loads(work.report("select").read_text(encoding="utf-8")) | {"cached": True}
    table = cluster_table(scored, options)
    chosen, rows = choose(scored, table, options)
    records = [
        {
            "id": r["id"],
            "prompt": r["prompt"],
            "category": options.category,
            "cluster": int(r["cluster"]),
            "topic": r["topic"],
            "score": int(r["score"]),
            "criteria": [int(c) for c in r["criteria"]],
        }
        for r in rows.to_dict("records")
    ]
    _export(work, records)
    short = table.loc[chosen]
    return write_report(
        work.report("select"),
        {
            "step": "select",
            "key": key,
            "logs": [log.path for log in found],
            "prompts": len(scored),
            "annotated": int(scored["annotated"].sum()),
            "unannotated": int((~scored["annotated"]).sum()),
            "unparsed": int((scored["annotated"] & ~scored["parsed"]).sum()),
            "annotations_not_in_pool": not_in_pool,
            "eligible_prompts": int(
                (scored["parsed"] & (scored["score"] >= options.min_score)).sum()
            ),
            "clusters": int((table.index != OUTLIER).sum()),
            "qualifying_clusters": int(table["qualifies"].sum()),
            "chosen_clusters": len(chosen),
            "clusters_short_of_per_cluster": int((short["eligible"] < options.per_cluster).sum()),
            "selected": len(records),
            "output": str(work.benchmark),
            "settings": asdict(options),
            "seconds": timer.seconds,
        },
    )


def _export(work: Work, records: list[dict[str, Any]]) -> None:
    import datasets

    with work.benchmark.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "prompt": datasets.Value("string"),
            "category": datasets.Value("string"),
            "cluster": datasets.Value("int64"),
            "topic": datasets.Value("string"),
            "score": datasets.Value("int64"),
            "criteria": datasets.Sequence(datasets.Value("int64")),
        }
    )
    columns = {
        name: [r[name] for r in records] for name in features
    }  # from_dict also handles no rows
    datasets.Dataset.from_dict(columns, features=features).save_to_disk(str(work.benchmark_dataset))
