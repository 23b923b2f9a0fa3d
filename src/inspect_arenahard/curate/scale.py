"""Curating at scale: the ``cluster`` step on Ray Data (local Ray, or the cluster in RAY_ADDRESS).

The Ray engine runs the same stages as the local one, with the same functions, and writes the
same files; what changes is where each stage runs:

* filters: ``ingested.parquet`` is read lazily as a Ray dataset; the single-prompt filters run
  block by block on the workers; exact deduplication is global, so only (id, text hash) pairs
  come to the driver, which keeps the first of each hash;
* embeddings: a pool of actors, each loading the model once (actor count, rows per batch, CPUs
  and GPUs per actor are options); every batch is added to the embedding cache as it returns,
  so an interrupted run resumes where it stopped;
* near-duplicates: one approximate nearest-neighbour graph (pynndescent, see ``neighbours``);
* UMAP is fitted on a seeded sample (``umap_sample`` prompts) and the other vectors are
  transformed by a pool of Ray actors; HDBSCAN clusters the 5-dimensional vectors on the driver.

Ray is imported only here and only when the Ray engine is chosen; the local engine never loads it.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa

from inspect_arenahard.curate.cache import text_digest
from inspect_arenahard.curate.embed import (
    LocalModel,
    Parts,
    embed_texts,
    get_embedder,
    wants_compile,
)
from inspect_arenahard.curate.filters import (
    FilterLog,
    FilterOptions,
    exact_duplicates,
    normalise_whitespace,
    per_prompt_filters,
    turns_to_prompt,
)
from inspect_arenahard.curate.reduce import (
    TRANSFORM_ROWS,
    quiet_umap,
    sample_reduce_and_cluster,
)
from inspect_arenahard.curate.step_options import ScaleOptions
from inspect_arenahard.curate.work import Work

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import ClusterOptions


class Engine(Protocol):
    """Where the heavy stages of ``cluster`` run; the step itself is the same for every engine."""

    name: str
    seconds: dict[str, float]
    """Time of the engine's own sub-stages, added to the step report's ``seconds``."""

    def filter(self, work: Work, filters: FilterOptions, log: FilterLog) -> pd.DataFrame:
        """Kept rows (with ``prompt``, without ``turns``) in ingest order; removals go to ``log``."""
        ...

    def embed(self, prompts: list[str], options: ClusterOptions, cache_root: Path) -> np.ndarray:
        """Vectors of the prompts, read from and added to the embedding cache under ``cache_root``."""
        ...

    def reduce_and_cluster(
        self, vectors: np.ndarray, knn: tuple[np.ndarray, np.ndarray], options: ClusterOptions
    ) -> tuple[np.ndarray, np.ndarray]:
        """(HDBSCAN labels with -1 for outliers, UMAP coordinates), given the neighbour lists."""
        ...

    def close(self) -> None:
        """Release what the engine started (e.g. a local Ray instance)."""
        ...


def connect(num_cpus: int | None = None) -> bool:
    """Join the Ray cluster in RAY_ADDRESS, or start a local one; True if this call started it."""
    import ray

    if ray.is_initialized():  # joined as it is, but the order of rows is the step's to keep
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        return False
    address = os.environ.get("RAY_ADDRESS")
    ray.init(
        address=address or None,
        num_cpus=None if address else num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        # workers import this package as the driver does (on a cluster: install it on every node)
        runtime_env={"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}}
        if not address
        else None,
    )
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # ingest order decides which duplicate is kept
    context.enable_progress_bars = sys.stderr.isatty()
    if not context.enable_progress_bars:  # without bars Ray Data logs progress every few seconds
        logging.getLogger("ray.data").setLevel(logging.WARNING)
    return True


def _tagged(kept: pd.DataFrame, log: FilterLog) -> pd.DataFrame:
    """A block's kept rows and removed rows (``_filter`` names the filter) and, on its first row, its counts."""
    removed = log.excluded().rename(columns={"filter": "_filter", "detail": "_detail"})
    out = pd.concat([kept.assign(_filter="", _detail=""), removed], ignore_index=True)
    out["_counts"] = ""
    if len(out):
        out.loc[0, "_counts"] = json.dumps(log.counts)
    return out


def _turns_block(batch: pd.DataFrame, first_turn: bool) -> pd.DataFrame:
    """Block step 1: the prompt of each record, and the hash exact deduplication compares."""
    log = FilterLog()
    kept = turns_to_prompt(batch, log, first_turn).drop(columns=["turns"])
    kept["_key"] = kept["prompt"].map(lambda p: text_digest(normalise_whitespace(p)))
    return _tagged(kept, log)


def _prompt_block(
    batch: pd.DataFrame, filters: FilterOptions, duplicates: frozenset[str]
) -> pd.DataFrame:
    """Block step 2: drop what step 1 or the global deduplication removed, then the per-prompt filters."""
    batch = batch[(batch["_filter"] == "") & ~batch["id"].isin(duplicates)]
    batch = batch.drop(columns=["_filter", "_detail", "_counts", "_key"]).reset_index(drop=True)
    log = FilterLog()
    return _tagged(per_prompt_filters(batch, filters, log), log)


def _collect(tagged: pd.DataFrame, log: FilterLog) -> pd.DataFrame:
    """Add the blocks' summed counts and their removed rows (filter by filter) to ``log``; the kept rows."""
    tagged = (
        pa.Table.from_pandas(tagged, preserve_index=False).replace_schema_metadata().to_pandas()
    )  # the types read from Parquet
    blocks = FilterLog()
    for counts in tagged["_counts"]:
        if counts:
            blocks.add_counts(json.loads(counts))
    removed = tagged.loc[tagged["_filter"] != "", ["id", "_filter", "_detail"]].set_axis(
        ["id", "filter", "detail"], axis=1
    )
    log.counts.extend(blocks.counts)
    log.removed.extend(removed[removed["filter"] == entry["filter"]] for entry in blocks.counts)
    return (
        tagged[tagged["_filter"] == ""]
        .drop(columns=["_filter", "_detail", "_counts"])
        .reset_index(drop=True)
    )


class _EmbedActor:
    """One embedding model per Ray actor, loaded once and reused for every batch."""

    def __init__(
        self, spec: str, max_seq_length: int | None, threads: float, gpus: float, compile: bool
    ) -> None:
        import torch

        own = max(1, int(threads))  # the actor's CPUs, not the whole machine's
        self.embedder = get_embedder(spec, max_seq_length=max_seq_length, threads=own)
        torch.set_num_threads(own)
        if isinstance(self.embedder, LocalModel):
            if gpus:
                self.embedder.to("cuda")
            if compile:
                self.embedder.compile()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {
            "key": batch["key"],
            "vector": self.embedder.embed([str(t) for t in batch["prompt"]]),
        }


class _Transformer:
    """One fitted UMAP per Ray actor, copied once and reused for every chunk it transforms."""

    def __init__(self, reducer: Any) -> None:
        # A private copy: Ray hands every actor zero-copy views of the same buffers, and actors
        # transforming on those at once gave different coordinates from run to run (the
        # kernels write into state they share); with a copy they equal an in-process transform.
        self.reducer = copy.deepcopy(reducer)

    def transform(self, vectors: np.ndarray) -> np.ndarray:
        with quiet_umap():
            return np.asarray(self.reducer.transform(vectors), dtype=np.float32)


def _transform_in_parallel(reducer: Any, vectors: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """UMAP coordinates of ``vectors[rows]``, chunk by chunk, on one actor per CPU of the cluster.

    Actors, not tasks: the fitted model (its training vectors and search index, ~1 GB for a 200K
    sample) is copied once per actor instead of once per chunk, only as many chunks as there
    are actors are in the object store at a time, and killing the actors at the end gives their
    memory back before HDBSCAN runs. Each chunk's coordinates are those of an in-process
    ``transform`` of the same chunk, whatever actor runs it.
    """
    import ray
    from ray.util import ActorPool

    chunks = [rows[i : i + TRANSFORM_ROWS] for i in range(0, len(rows), TRANSFORM_ROWS)]
    cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
    size = max(1, min(len(chunks), int(cpus)))
    model = ray.put(reducer)
    actor_class: Any = ray.remote(num_cpus=1)(_Transformer)
    actors = [actor_class.remote(model) for _ in range(size)]
    try:
        pool = ActorPool(actors)
        done = pool.map(lambda actor, chunk: actor.transform.remote(vectors[chunk]), chunks)
        return np.concatenate(list(done)) if chunks else np.empty((0, reducer.n_components))
    finally:
        for actor in actors:
            ray.kill(actor)
        del model


class RayEngine:
    """The ``cluster`` stages on Ray Data; see the module docstring for what runs where."""

    name = "ray"

    def __init__(self, options: ScaleOptions) -> None:
        self.options = options
        self.started = connect(options.ray_cpus)
        self.seconds: dict[str, float] = {}

    def filter(self, work: Work, filters: FilterOptions, log: FilterLog) -> pd.DataFrame:
        """Filters run on Ray Data blocks; exact duplicates are found over the collected hashes."""
        import ray

        records = ray.data.read_parquet(str(work.ingested))
        step1 = records.map_batches(
            _turns_block,  # type: ignore[arg-type]  # Ray's hint has no room for fn_kwargs
            batch_format="pandas",
            fn_kwargs={"first_turn": filters.first_turn},
        ).materialize()
        hashes = step1.select_columns(["id", "_filter", "_detail", "_counts", "_key"]).to_pandas()
        prompts = _collect(hashes, log)
        before = set(prompts["id"])
        unique = exact_duplicates(prompts, log, key=prompts["_key"])
        duplicates = frozenset(before - set(unique["id"]))
        step2 = step1.map_batches(
            _prompt_block,
            batch_format="pandas",
            fn_kwargs={"filters": filters, "duplicates": duplicates},
        )
        return _collect(step2.to_pandas(), log)

    def embed(self, prompts: list[str], options: ClusterOptions, cache_root: Path) -> np.ndarray:
        """Embeddings computed by a pool of Ray actors for the texts the cache lacks."""
        embedder = get_embedder(
            options.embedder, max_seq_length=options.embed_max_tokens
        )  # here it only names the cache
        return embed_texts(
            prompts,
            embedder,
            cache_root,
            compute=lambda pending: self._embed_parts(pending, options),
        )

    def _embed_parts(self, pending: list[tuple[str, str]], options: ClusterOptions) -> Parts:
        import ray

        if not pending:
            return
        o = self.options
        table = pd.DataFrame(pending, columns=["key", "prompt"])
        blocks = [
            table.iloc[i : i + o.ray_batch_size] for i in range(0, len(table), o.ray_batch_size)
        ]
        vectors = ray.data.from_pandas(blocks).map_batches(
            _EmbedActor,
            fn_constructor_kwargs={
                "spec": options.embedder,
                "max_seq_length": options.embed_max_tokens,
                "threads": o.ray_actor_cpus,
                "gpus": o.ray_actor_gpus,
                "compile": wants_compile(o.embed_compile, len(pending)),
            },
            batch_size=o.ray_batch_size,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=o.ray_actors),
            num_cpus=o.ray_actor_cpus,
            num_gpus=o.ray_actor_gpus,
        )
        for batch in vectors.iter_batches(batch_size=None, batch_format="numpy"):
            yield [str(k) for k in batch["key"]], np.asarray(batch["vector"], dtype=np.float32)

    def reduce_and_cluster(
        self, vectors: np.ndarray, knn: tuple[np.ndarray, np.ndarray], options: ClusterOptions
    ) -> tuple[np.ndarray, np.ndarray]:
        """UMAP fitted on a seeded sample and applied to the rest in parallel on Ray actors
        (the local engine's sample fit, transformed elsewhere); HDBSCAN on the result."""
        return sample_reduce_and_cluster(
            vectors, knn, options, self.options.umap_sample, _transform_in_parallel, self.seconds
        )

    def close(self) -> None:
        """Shut Ray down if this engine started it (never a cluster it joined)."""
        import ray

        if self.started:
            ray.shutdown()
