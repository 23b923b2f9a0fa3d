"""Cluster: filters → embeddings → near-duplicate removal → UMAP → HDBSCAN → topic names.

UMAP follows BERTopic's defaults (15 neighbours, 5 components, min_dist 0, cosine) with a
fixed seed; HDBSCAN clusters the reduced vectors (``min_cluster_size``). One neighbour search
serves both near-duplicate removal and UMAP: it is run with spare neighbours, and the kept
prompts' lists are cut down to UMAP's 15 (recomputed only if some prompt lost too many).
Outliers (HDBSCAN's −1) stay a group of their own or join the cluster with the nearest
centroid. Outputs ``prompts.parquet``, ``clusters.jsonl``, ``excluded.parquet``,
``topics.json`` and ``cluster_report.json`` (counts per filter; NMI/ARI when the source had
topic labels). The filters, embeddings and UMAP run in this process (``LocalEngine``) or on
Ray (``--engine ray``, ``scale``); the step, its outputs and its cache are the same.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from inspect_arenahard.curate.cache import Timer, file_digest, step_key, up_to_date, write_report
from inspect_arenahard.curate.embed import embed_texts, get_embedder
from inspect_arenahard.curate.filters import (
    FilterLog,
    FilterOptions,
    apply_text_filters,
    near_duplicates,
)
from inspect_arenahard.curate.reduce import sample_reduce_and_cluster
from inspect_arenahard.curate.scale import Engine, RayEngine
from inspect_arenahard.curate.step_options import OUTLIER_MODES, ClusterOptions, ScaleOptions
from inspect_arenahard.curate.topics import OUTLIER, topic_names
from inspect_arenahard.curate.work import Work

EXACT_LIMIT = 30_000
"""Up to this many prompts, neighbours are found exactly (blocked dot products, no JIT warm-up);
above it, approximately with pynndescent (what UMAP would use)."""


def exact_neighbours(
    vectors: np.ndarray, k: int, block_bytes: int = 1 << 28
) -> tuple[np.ndarray, np.ndarray]:
    """Exact cosine neighbours of L2-normalised vectors, a block of rows at a time (bounded memory)."""
    n = len(vectors)
    rows = max(1, block_bytes // (4 * n))
    indices = np.empty((n, k), dtype=np.int64)
    dists = np.empty((n, k), dtype=np.float32)
    for start in range(0, n, rows):
        sims = vectors[start : start + rows] @ vectors.T
        np.fill_diagonal(sims[:, start : start + rows], np.inf)  # itself first, as pynndescent does
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        top_sims = np.take_along_axis(sims, top, axis=1)
        order = np.argsort(-top_sims, axis=1, kind="stable")
        indices[start : start + rows] = np.take_along_axis(top, order, axis=1)
        dists[start : start + rows] = 1.0 - np.take_along_axis(top_sims, order, axis=1)
    dists[:, 0] = 0.0
    return indices, np.maximum(dists, 0.0)


def neighbours(vectors: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices, cosine distances) of each vector's ``k`` nearest neighbours (itself first)."""
    k = min(k, len(vectors))
    if len(vectors) <= EXACT_LIMIT:
        return exact_neighbours(vectors, k)
    from umap.umap_ import (
        nearest_neighbors,
    )  # inspect-evals-lint: ignore[external_dependencies] -- `umap` is the import name of the declared umap-learn

    indices, dists, _ = nearest_neighbors(
        vectors,
        n_neighbors=k,
        metric="cosine",
        metric_kwds={},
        angular=False,
        random_state=np.random.RandomState(seed),
        low_memory=True,
    )
    return indices, dists


def subset_neighbours(
    indices: np.ndarray, dists: np.ndarray, keep: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """The kept rows' first ``k`` kept neighbours, renumbered; None if a row has fewer than ``k``."""
    renumber = np.full(len(keep), -1, dtype=np.int64)
    renumber[keep] = np.arange(int(keep.sum()))
    sub_idx = np.where(indices[keep] >= 0, renumber[np.maximum(indices[keep], 0)], -1)
    order = np.argsort(sub_idx < 0, axis=1, kind="stable")
    sub_idx = np.take_along_axis(sub_idx, order, axis=1)[:, :k]
    sub_dist = np.take_along_axis(dists[keep], order, axis=1)[:, :k]
    if sub_idx.shape[1] < k or (sub_idx < 0).any():
        return None
    return sub_idx, sub_dist


def reassign_outliers(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Give each outlier the cluster whose centroid is nearest (cosine) in embedding space."""
    clusters = np.array(sorted(int(c) for c in np.unique(labels) if c != OUTLIER))
    outliers = np.flatnonzero(labels == OUTLIER)
    if not len(clusters) or not len(outliers):
        return labels
    centroids = np.stack([vectors[labels == c].mean(axis=0) for c in clusters])
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    out = labels.copy()
    out[outliers] = clusters[np.argmax(vectors[outliers] @ centroids.T, axis=1)]
    return out


def label_agreement(labels_true: pd.Series, labels_pred: np.ndarray) -> dict[str, Any] | None:
    """NMI and ARI of our clusters against the source's topic labels (rows that have one)."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    has = labels_true.notna().to_numpy()
    if has.sum() < 2:
        return None
    truth, pred = labels_true[has].astype(str).to_numpy(), labels_pred[has]
    clustered = pred != OUTLIER
    return {
        "prompts": int(has.sum()),
        "official_topics": int(len(set(truth))),
        "nmi": round(float(normalized_mutual_info_score(truth, pred)), 4),
        "ari": round(float(adjusted_rand_score(truth, pred)), 4),
        "nmi_without_outliers": round(
            float(normalized_mutual_info_score(truth[clustered], pred[clustered])), 4
        )
        if clustered.sum() > 1
        else None,
    }


def _spare(options: ClusterOptions) -> int:
    """Neighbours searched: UMAP's, plus room for near-duplicates removed from the lists."""
    return 2 * options.n_neighbors


class LocalEngine:
    """Every stage in this process (the default): pandas filters, embeddings, one UMAP fit."""

    name = "local"

    def __init__(self, embed_compile: str = "auto", umap_sample: int = 0) -> None:
        self.embed_compile = embed_compile
        self.umap_sample = umap_sample
        self.seconds: dict[str, float] = {}

    def filter(self, work: Work, filters: FilterOptions, log: FilterLog) -> pd.DataFrame:
        """Filters run with pandas on the whole ingested table."""
        return apply_text_filters(pd.read_parquet(work.ingested), filters, log).drop(
            columns=["turns"]
        )

    def embed(self, prompts: list[str], options: ClusterOptions, cache_root: Path) -> np.ndarray:
        """Embeddings computed here, through the cache."""
        return embed_texts(
            prompts,
            get_embedder(options.embedder, max_seq_length=options.embed_max_tokens),
            cache_root,
            compile=self.embed_compile,
        )

    def reduce_and_cluster(
        self, vectors: np.ndarray, knn: tuple[np.ndarray, np.ndarray], options: ClusterOptions
    ) -> tuple[np.ndarray, np.ndarray]:
        """One UMAP fit on every vector up to ``umap_sample`` of them, else a fit on a seeded
        sample and the rest transformed here (the Ray engine's sample fit); then HDBSCAN."""
        return sample_reduce_and_cluster(
            vectors, knn, options, self.umap_sample, seconds=self.seconds
        )

    def close(self) -> None:
        """Nothing to release."""
        pass


def engine_for(scale: ScaleOptions) -> Engine:
    """The engine ``scale`` names (Ray is imported only when it is chosen)."""
    if scale.engine == "ray":
        return RayEngine(scale)
    return LocalEngine(scale.embed_compile, scale.umap_sample)


def cluster(
    work: Work,
    filters: FilterOptions | None = None,
    options: ClusterOptions | None = None,
    force: bool = False,
    scale: ScaleOptions | None = None,
) -> dict[str, Any]:
    """Run the clustering step on ``work/ingested.parquet``; returns the step report.

    ``scale`` picks the engine: local (default) or Ray (``scale``); both write the same files.
    """
    filters, options, scale = (
        filters or FilterOptions(),
        options or ClusterOptions(),
        scale or ScaleOptions(),
    )
    if options.outliers not in OUTLIER_MODES:
        raise ValueError(
            f"outliers must be one of {', '.join(OUTLIER_MODES)}, got {options.outliers!r}"
        )
    if not work.ingested.is_file():
        raise FileNotFoundError(
            f"{work.ingested} not found: run `arenahard curate ingest --out {work.root}` first"
        )
    key = step_key(
        "cluster",
        ingested=file_digest(work.ingested),
        filters=asdict(filters),
        options=asdict(options),
        **scale.key_parts(),
    )
    outputs = [work.prompts, work.clusters, work.excluded, work.topics]
    if not force and up_to_date(work.report("cluster"), key, outputs):
        return json.loads(work.report("cluster").read_text(encoding="utf-8")) | {"cached": True}
    engine = engine_for(scale)
    try:
        return _cluster(work, filters, options, scale, engine, key)
    finally:
        engine.close()


def _cluster(
    work: Work,
    filters: FilterOptions,
    options: ClusterOptions,
    scale: ScaleOptions,
    engine: Engine,
    key: str,
) -> dict[str, Any]:
    timer, seconds = Timer(), {}  # seconds per stage
    n_ingested = pq.ParquetFile(work.ingested).metadata.num_rows
    log = FilterLog()
    df = engine.filter(work, filters, log)
    seconds["filters"] = timer.lap()
    minimum = max(options.n_neighbors + 1, options.min_cluster_size * 2)
    if len(df) < minimum:
        raise ValueError(
            f"{work.ingested}: only {len(df)} prompts left after filtering; clustering needs at least {minimum}"
        )

    vectors = engine.embed(df["prompt"].tolist(), options, work.cache)
    seconds["embed"] = timer.lap()

    indices, dists = neighbours(vectors, _spare(options), options.seed)
    keep, duplicate_of = near_duplicates(indices, dists, filters.near_dup_threshold)
    detail = pd.Series(
        np.where(
            duplicate_of >= 0,
            "near-duplicate of " + df["id"].to_numpy()[np.maximum(duplicate_of, 0)],
            "",
        )
    )
    df = log.apply("near_duplicate", df, keep, detail=detail)
    vectors = vectors[keep]
    knn = subset_neighbours(indices, dists, keep, options.n_neighbors)
    if knn is None:
        knn = neighbours(vectors, options.n_neighbors, options.seed)
    seconds["neighbours"] = timer.lap()

    labels, _ = engine.reduce_and_cluster(vectors, knn, options)
    n_outliers = int((labels == OUTLIER).sum())
    if options.outliers == "reassign":
        labels = reassign_outliers(vectors, labels)
    seconds["umap_hdbscan"] = timer.lap()

    prompts = df["prompt"].tolist()
    topics = topic_names(prompts, labels, options.namer, options.topic_examples, options.seed)
    seconds["topics"] = timer.lap()
    df = df.assign(cluster=labels, topic=[topics[int(c)]["topic"] for c in labels])
    _write_outputs(work, df, log, topics)
    n_clusters = len([c for c in topics if c != OUTLIER])
    return write_report(
        work.report("cluster"),
        {
            "step": "cluster",
            "key": key,
            "engine": engine.name,
            "ingested": n_ingested,
            "kept": len(df),
            "filters": log.counts,
            "clusters": n_clusters,
            "outliers": n_outliers,
            "outliers_mode": options.outliers,
            "label_agreement": label_agreement(df["label"], labels),
            "settings": {
                "filters": asdict(filters),
                "cluster": asdict(options),
                "scale": asdict(scale),
            },
            "seconds": seconds | engine.seconds | {"total": timer.seconds},
        },
    )


def _write_outputs(
    work: Work, df: pd.DataFrame, log: FilterLog, topics: dict[int, dict[str, Any]]
) -> None:
    df.to_parquet(work.prompts, index=False)
    log.excluded().to_parquet(work.excluded, index=False)
    with work.clusters.open("w", encoding="utf-8") as f:
        for row in df[["id", "prompt", "cluster", "topic"]].itertuples(index=False):
            f.write(
                json.dumps(
                    {
                        "id": row.id,
                        "prompt": row.prompt,
                        "cluster": int(cast(int, row.cluster)),  # a numpy integer
                        "topic": row.topic,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    work.topics.write_text(
        json.dumps({str(c): t for c, t in sorted(topics.items())}, indent=2, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
