"""UMAP on a sample in this process (the local engine's ``--umap-sample``): the sample keeps the
fit's own coordinates, the rest are UMAP's ``transform`` of them chunk by chunk, a pool at or
below the sample size gets the one full fit, and the sub-stage times are reported."""

from __future__ import annotations

import numpy as np
import pytest

from inspect_arenahard.curate import reduce
from inspect_arenahard.curate.reduce import (
    quiet_umap,
    reduce_and_cluster,
    sample_reduce_and_cluster,
    transform_here,
    umap_reducer,
)
from inspect_arenahard.curate.step_options import ClusterOptions


@pytest.fixture(scope="module")
def blobs() -> np.ndarray:
    """Six well-separated groups of unit vectors in 32 dimensions."""
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (6, 32))
    vectors = np.repeat(centres, 100, axis=0) + rng.normal(0, 0.15, (600, 32))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.slow
def test_sample_fit_keeps_the_fit_and_transforms_the_rest(
    blobs: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = ClusterOptions(min_cluster_size=20, n_neighbors=10)
    monkeypatch.setattr(reduce, "TRANSFORM_ROWS", 70)  # several chunks
    seconds: dict[str, float] = {}
    labels, reduced = sample_reduce_and_cluster(blobs, (None, None), options, 400, seconds=seconds)  # type: ignore[arg-type]
    assert set(seconds) == {"umap_fit_sample", "umap_transform", "hdbscan"}
    fitted = np.sort(np.random.default_rng(options.seed).choice(600, size=400, replace=False))
    rest = np.setdiff1d(np.arange(600), fitted)
    with quiet_umap():
        reducer = umap_reducer(options).fit(blobs[fitted])
        np.testing.assert_array_equal(reduced[fitted], reducer.embedding_)
        chunks = [reducer.transform(blobs[rest[i : i + 70]]) for i in range(0, len(rest), 70)]
    np.testing.assert_allclose(reduced[rest], np.concatenate(chunks), rtol=0, atol=1e-5)
    np.testing.assert_array_equal(transform_here(reducer, blobs, rest[:0]).shape, (0, 5))
    # the six groups come out as six clusters, transformed rows in their group's cluster
    groups = np.repeat(np.arange(6), 100)
    assert len(set(labels) - {-1}) == 6
    for g in range(6):
        found = labels[groups == g]
        assert np.mean(found == np.bincount(found[found >= 0]).argmax()) > 0.9


@pytest.mark.slow
def test_pool_within_the_sample_gets_the_full_fit(blobs: np.ndarray) -> None:
    from sklearn.neighbors import NearestNeighbors

    options = ClusterOptions(min_cluster_size=20, n_neighbors=10)
    distances, indices = (
        NearestNeighbors(n_neighbors=10, metric="cosine").fit(blobs).kneighbors(blobs)
    )
    knn = (indices, distances.astype(np.float32))
    full = reduce_and_cluster(blobs, knn, options)
    for sample in (600, 0):
        labels, reduced = sample_reduce_and_cluster(blobs, knn, options, sample)
        np.testing.assert_array_equal(labels, full[0])
        np.testing.assert_array_equal(reduced, full[1])
