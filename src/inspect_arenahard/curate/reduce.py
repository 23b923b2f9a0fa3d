"""Reduce and cluster embeddings: UMAP (BERTopic's settings, seeded) then HDBSCAN.

Shared by both engines of the ``cluster`` step (:mod:`.cluster` runs them in this process,
:mod:`.scale` fits UMAP on a sample and transforms the rest on Ray), so both cluster alike.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import ClusterOptions


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
