"""Reduce and cluster embeddings: UMAP (BERTopic's settings, seeded) then HDBSCAN.

Shared by both engines of the ``cluster`` step, so both cluster alike: a pool up to
``umap_sample`` prompts gets one UMAP fit on every vector; a larger one a fit on a seeded sample
and ``transform`` of the rest, chunk by chunk (in this process for the local engine, on Ray
actors for ``scale``; each chunk's coordinates are the same either way).
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from inspect_arenahard.curate.cache import Timer

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import ClusterOptions

TRANSFORM_ROWS = 20_000
"""Vectors per UMAP ``transform`` chunk."""
Transform = Callable[[Any, np.ndarray, np.ndarray], np.ndarray]
"""(fitted UMAP, vectors, rows) → coordinates of ``vectors[rows]``."""


def umap_reducer(options: ClusterOptions, knn: tuple[np.ndarray, np.ndarray] | None = None) -> Any:
    """BERTopic's UMAP settings, seeded; ``knn`` reuses a neighbour search (then it cannot ``transform``)."""
    import umap  # inspect-evals-lint: ignore[external_dependencies] -- `umap` is the import name of the declared umap-learn

    return umap.UMAP(
        n_neighbors=options.n_neighbors,
        n_components=options.n_components,
        min_dist=options.min_dist,
        metric="cosine",
        random_state=options.seed,
        precomputed_knn=knn or (None, None, None),
        low_memory=True,
    )


@contextmanager
def quiet_umap() -> Iterator[None]:
    """Seeding makes UMAP single-threaded, and a precomputed search has no index: both intended."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="n_jobs value", category=UserWarning)
        warnings.filterwarnings("ignore", message=r"precomputed_knn\[2\]", category=UserWarning)
        yield


def hdbscan_labels(reduced: np.ndarray, options: ClusterOptions) -> np.ndarray:
    """HDBSCAN clusters of the reduced vectors (−1: outlier)."""
    import hdbscan

    labels = hdbscan.HDBSCAN(
        min_cluster_size=options.min_cluster_size,
        metric="euclidean",
        cluster_selection_method="eom",
    ).fit_predict(reduced)
    return labels.astype(np.int64)


def reduce_and_cluster(
    vectors: np.ndarray, knn: tuple[np.ndarray, np.ndarray], options: ClusterOptions
) -> tuple[np.ndarray, np.ndarray]:
    """(HDBSCAN labels, UMAP coordinates) of the vectors, given their neighbour lists."""
    with quiet_umap():
        reduced = umap_reducer(options, knn).fit_transform(vectors)
    return hdbscan_labels(reduced, options), reduced


def transform_here(reducer: Any, vectors: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """UMAP coordinates of ``vectors[rows]`` in this process, ``TRANSFORM_ROWS`` at a time (the
    chunks the Ray engine hands its actors, so that both give the same coordinates)."""
    out = [np.empty((0, reducer.n_components), dtype=np.float32)]
    with quiet_umap():
        for start in range(0, len(rows), TRANSFORM_ROWS):
            chunk = vectors[rows[start : start + TRANSFORM_ROWS]]
            out.append(np.asarray(reducer.transform(chunk), dtype=np.float32))
    return np.concatenate(out)


def sample_reduce_and_cluster(
    vectors: np.ndarray,
    knn: tuple[np.ndarray, np.ndarray],
    options: ClusterOptions,
    sample: int,
    transform: Transform = transform_here,
    seconds: dict[str, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(HDBSCAN labels, UMAP coordinates): UMAP fitted on a seeded ``sample`` of the vectors and
    applied to the rest by ``transform``; at or above the pool's size (or 0), one fit on every
    vector (``reduce_and_cluster``). The sample's own coordinates are the fit's. Sub-stage
    times go to ``seconds``."""
    n = len(vectors)
    if not sample or n <= sample:
        return reduce_and_cluster(vectors, knn, options)
    timer = Timer()
    fitted = np.sort(np.random.default_rng(options.seed).choice(n, size=sample, replace=False))
    with quiet_umap():
        reducer = umap_reducer(options).fit(vectors[fitted])
    laps = {"umap_fit_sample": timer.lap()}
    reduced = np.empty((n, options.n_components), dtype=np.float32)
    reduced[fitted] = reducer.embedding_
    rest = np.setdiff1d(np.arange(n), fitted)
    reduced[rest] = transform(reducer, vectors, rest)
    laps["umap_transform"] = timer.lap()
    labels = hdbscan_labels(reduced, options)
    laps["hdbscan"] = timer.lap()
    if seconds is not None:
        seconds.update(laps)
    return labels, reduced
