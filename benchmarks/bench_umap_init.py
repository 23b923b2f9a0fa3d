"""Does a cheaper UMAP initialisation keep the clusters? ``curate cluster`` (local engine) on
real Arena catalog prompts with UMAP's default spectral initialisation, then with ``pca``,
``tswspectral`` and ``random`` (same vectors, same neighbours, same seed): the UMAP +
HDBSCAN time of each and its NMI against the official topics.

The spectral initialisation is what ran > 50 min at 12.3 GiB on the full graph of 1M prompts;
with ``--umap-sample`` it runs on the sample's graph only. Measure at ≤ 50K prompts::

    python benchmarks/bench_umap_init.py                       # catalog 2024-12-15 (~3.3K kept)
    python benchmarks/bench_umap_init.py --source all-catalog  # every catalog file (~11.7K kept)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from inspect_arenahard.curate import reduce
from inspect_arenahard.curate.cluster import cluster
from inspect_arenahard.curate.ingest import ingest
from inspect_arenahard.curate.step_options import ClusterOptions
from inspect_arenahard.curate.work import Work

CATALOG = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "prompt_pools"
    / "lmarena_arena_catalog"
)
SOURCES = {
    "catalog-20241215": [CATALOG / "explorer_examples_20241215.json"],
    "all-catalog": [
        CATALOG / "explorer_examples_20250206.json",
        CATALOG / "explorer_examples_20241215.json",
        CATALOG / "explorer_data3_examples.json",
    ],
}
INITS = ("spectral", "pca", "tswspectral", "random", "spectral")
"""Spectral twice: the first run also compiles numba's kernels (UMAP + HDBSCAN timings), the
second is the warm figure to compare."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", choices=sorted(SOURCES), default="catalog-20241215")
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    original = reduce.umap_reducer
    with tempfile.TemporaryDirectory(prefix="bench-umap-init-") as tmp:
        work = Work.at(Path(tmp) / "work", create=True)
        ingest([str(p) for p in SOURCES[args.source]], work)
        options = ClusterOptions(embedder=args.embedder, min_cluster_size=10)
        for init in INITS:

            def reducer(*a: Any, init: str = init, **k: Any) -> Any:
                model = original(*a, **k)
                model.init = init
                return model

            reduce.umap_reducer = reducer  # type: ignore[assignment]
            started = time.perf_counter()
            report = cluster(work, options=options, force=True)
            seconds = report["seconds"]
            print(json.dumps({
                "init": init, "kept": report["kept"], "clusters": report.get("clusters"),
                "nmi_official": report["label_agreement"]["nmi"],
                "umap_hdbscan_seconds": round(seconds["umap_hdbscan"], 1),
                "seconds": {k: round(v, 1) for k, v in seconds.items()},
                "wall_seconds": round(time.perf_counter() - started, 1),
            }), flush=True)  # fmt: skip
    reduce.umap_reducer = original


if __name__ == "__main__":
    main()
