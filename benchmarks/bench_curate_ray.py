"""The Ray engine of ``curate cluster`` against the local engine: quality, and time/memory at scale.

Scenarios (each in a fresh work folder; the pools are those of ``bench_curate.py``):

* ``catalog``: the LMArena catalog files (official topic labels). The local engine, then the Ray
  engine on a copy sharing its embedding cache (so the clusterings differ only by the engine),
  with ``--umap-sample`` (default: a quarter of the pool, so the sample fit is exercised; at or
  above the pool size the Ray engine's clusters are the local ones exactly). Prints NMI of each
  against the official topics and NMI between the two.
* ``umap``: sample-fit vs full UMAP on the synthetic pool (``--size``, the issue's 200K):
  the time of each and NMI between the two clusterings (same vectors, same neighbours).
* ``scale``: the Ray engine from scratch on ``--size`` synthetic prompts (the issue's 1M), then the
  local engine on the same pool (``--local``: from scratch, from the Ray run's embeddings, not at
  all, or only the local engine after a kept Ray run): wall time and peak memory (driver + Ray
  processes) per stage, and a projection for N workers from the measured per-stage throughput.
* ``ingest``: ``curate ingest`` of ``--size`` synthetic LMSYS-shaped records in ``--shards`` files
  (Parquet, JSONL, JSONL.gz in turn) with the local engine, then the Ray engine twice (its first
  dataset starts the workers; the second finds them running): records/s, peak memory, whether
  the rows are the same, and the per-part work vs the driver's work measured apart.

Measured on the 2-core dev machine (AMX, MiniLM in bfloat16; the VM's speed varies by 15–20%
between runs). 1M, 2026-11-24/25, idle machine, ``--ray-batch-size 4096``:

* scale, 1M (858,346 kept, ~10,850 clusters): Ray 43.6 / 52.0 min in two runs (embed 1,603 /
  1,981 s = 556 / 450 prompts/s compiled, neighbours 247 / 290 s, UMAP fit on 200K 498 / 563 s,
  transform 90 / 97 s, HDBSCAN 85 / 90 s, filters 64 s, topics 22 / 24 s, ingest 8 s); peak
  8.2 GiB PSS (8.7 GiB RSS sum) with the actor-pool transform, 12.0 GiB RSS sum with one task
  per chunk; 9.3 GiB PSS (10.7 RSS sum) once each actor copies the model (same clusters on
  rerun; before, NMI 0.89 between two runs from the same embeddings). Projection: 1M in
  52 / 34 / 25 / 21 / 18.5 / 17 min on 1 / 2 / 4 / 8 / 16 / 32 workers, 10M in
  435 / 256 / 167 / 123 / 100 / 89 min.
  Local engine on the same pool from Ray's embeddings (``--local only``): stopped after 50 min
  still in UMAP's spectral initialisation (``eigsh`` on the largest of 1,364 graph components,
  858,346 prompts), 12.3 GiB RSS — the full fit is not feasible at 1M on 2 cores.

Earlier, 2026-11-23, while four other jobs shared the machine (times are upper bounds):

* catalog: 16,311 records → 11,680 kept, 864 official topics. Default sample (above the pool):
  Ray = local exactly. Sample of 2,920: NMI vs official 0.58 (local 0.78), 0.62 between.
* umap, 200K (sample 50K of 175,751; idle machine): NMI 0.68 between; 1,959 vs 5,629 clusters;
  UMAP+HDBSCAN 93 s (sample: fit 29 s, transform 59 s) vs 265 s (full); peak 7.1 vs 3.8 GiB.
* umap, 20K (sample 10K of 17,786): NMI 0.73 between; UMAP+HDBSCAN 48 s (sample) vs 20 s (full).
* scale, 20K (sample 5K): Ray 386 s (embed 220 s at 81 prompts/s), peak 4.6 GiB; local 178 s,
  peak 4.7 GiB; projection to 1M: 314 min on one such worker, ~50–60 min on 16–32.
* ingest, 200K in 8 shards (94 MB), 2026-11-24, two runs at load 5–7: local 3.7–4.4 s
  (46–55K records/s, 0.42 GiB); Ray first dataset 8.8–12.8 s, warm 2.5–4.2 s (48–80K
  records/s), 2.1 GiB, ``ray.init`` 8–9 s; same rows; per-part work 1.8–4.7 s vs driver
  0.3–0.8 s (so the driver bounds the speed-up at roughly 5–10 workers).

Usage::

    python benchmarks/bench_curate_ray.py --scenario catalog [--umap-sample 5000]
    python benchmarks/bench_curate_ray.py --scenario umap --size 200000 --umap-sample 50000
    python benchmarks/bench_curate_ray.py --scenario scale --size 1000000 [--local own|reuse|none] [--keep DIR] [--out results.jsonl]
    python benchmarks/bench_curate_ray.py --scenario scale --size 1000000 --local only --keep DIR   # after a kept Ray run
    python benchmarks/bench_curate_ray.py --scenario ingest --size 200000 [--shards 8] [--ray-cpus 2]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_curate import SOURCES, emit, real_prompts, synthetic_pool  # noqa: E402

CATALOG = [name for name in SOURCES if name.startswith("catalog") or name == "webdev"]
STAGES = ("filters", "embed", "neighbours", "umap_hdbscan", "topics")
DEFAULT_SAMPLE = 200_000
PARALLEL = {"filters", "embed", "umap_transform"}
"""Stages that run on every worker; the others run on the driver (see the table in docs/curation.md)."""


class MemorySampler:
    """Peak memory of this process and all its children (Ray's raylet, workers, actors).

    Summed as PSS (proportional set size: a page shared by k processes counts 1/k in each), so
    Ray's shared-memory object store and the libraries every worker maps are counted once; the
    RSS sum, which counts them once per process, is kept too (``peak_rss``).
    """

    def __init__(self, every: float = 0.5) -> None:
        self.samples: list[tuple[float, int, int]] = []
        self.every, self.done = every, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self.done.is_set():
            pss = rss = 0
            for proc in [me, *me.children(recursive=True)]:
                try:
                    info = proc.memory_full_info()
                except psutil.Error:
                    continue
                pss += getattr(info, "pss", info.rss)  # PSS where the OS reports it (Linux)
                rss += info.rss
            self.samples.append((time.perf_counter(), pss, rss))
            self.done.wait(self.every)

    def __enter__(self) -> "MemorySampler":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()

    def peak_gib(self, start: float, end: float, rss: bool = False) -> float:
        inside = [s[2 if rss else 1] for s in self.samples if start <= s[0] <= end]
        return round(max(inside, default=0) / 2**30, 2)


def run_cluster(work: Path, scale: dict, umap_sample: int | None = None) -> dict:
    """``cluster`` with the given engine; its report plus peak memory per stage."""
    from inspect_arenahard.curate.cluster import cluster
    from inspect_arenahard.curate.step_options import ScaleOptions
    from inspect_arenahard.curate.work import Work

    options = ScaleOptions(
        **scale, **({"umap_sample": umap_sample} if umap_sample is not None else {})
    )
    with MemorySampler() as memory:
        started = time.perf_counter()
        report = cluster(Work.at(work), scale=options, force=True)
    edges, at = {}, started
    for stage in STAGES:
        edges[stage] = (at, at + report["seconds"][stage])
        at += report["seconds"][stage]
    report["peak_gib"] = {stage: memory.peak_gib(*edges[stage]) for stage in STAGES}
    report["peak_gib"]["step"] = memory.peak_gib(started, time.perf_counter())
    report["peak_rss_gib"] = memory.peak_gib(started, time.perf_counter(), rss=True)
    return report


def clusters_of(work: Path) -> dict[str, int]:
    with (work / "clusters.jsonl").open(
        encoding="utf-8"
    ) as f:  # lines, not str.splitlines: prompts hold U+2028
        return {r["id"]: r["cluster"] for r in map(json.loads, f)}


def nmi_between(a: Path, b: Path) -> float:
    from sklearn.metrics import normalized_mutual_info_score

    x, y = clusters_of(a), clusters_of(b)
    ids = sorted(set(x) & set(y))
    return round(float(normalized_mutual_info_score([x[i] for i in ids], [y[i] for i in ids])), 4)


def ingest_pool(work: Path, scenario: str, size: int) -> dict:
    """``curate ingest`` of the pool (a local step with either engine): records and seconds."""
    from inspect_arenahard.curate.ingest import ingest
    from inspect_arenahard.curate.work import Work

    if scenario == "catalog":
        sources = [f"{name}={SOURCES[name]}" for name in CATALOG]
    else:
        synthetic_pool(real_prompts(work.parent / "base"), size, work.parent / "synthetic.jsonl")
        sources = [str(work.parent / "synthetic.jsonl")]
    report = ingest(sources, Work.at(work, create=True))
    return {"records": report["records"], "ingest_seconds": report["seconds"]}


def summary(report: dict) -> dict:
    return {
        k: report.get(k)
        for k in (
            "engine",
            "kept",
            "clusters",
            "outliers",
            "label_agreement",
            "seconds",
            "peak_gib",
            "peak_rss_gib",
        )
    }


def compare(root: Path, scenario: str, size: int, umap_sample: int | None, ray: dict) -> dict:
    """Local engine, then the Ray engine on a copy sharing the embedding cache."""
    ingested = ingest_pool(root / "local", scenario, size)
    local = run_cluster(root / "local", {"engine": "local"})
    sample = umap_sample if umap_sample is not None else max(1, local["kept"] // 4)
    (root / "ray").mkdir()
    shutil.copy(root / "local" / "ingested.parquet", root / "ray")
    shutil.copytree(root / "local" / "cache", root / "ray" / "cache")
    ray_report = run_cluster(root / "ray", ray, umap_sample=sample)
    return {
        "scenario": scenario,
        **ingested,
        "umap_sample": sample,
        "local": summary(local),
        "ray": summary(ray_report),
        "nmi_between_engines": nmi_between(root / "local", root / "ray"),
        "full_umap_seconds": local["seconds"]["umap_hdbscan"],
        "sample_umap_seconds": ray_report["seconds"]["umap_hdbscan"],
    }


def projection(
    report: dict,
    records: int,
    to: int,
    cores_here: int,
    workers: tuple[int, ...] = (1, 2, 4, 8, 16, 32),
) -> dict:
    """Minutes for ``to`` prompts on N workers of this machine's size, from the measured stages.

    Every stage is extrapolated linearly from ``records`` to ``to`` prompts (optimistic for the
    neighbour search and HDBSCAN, which grow a little faster) except the UMAP sample fit, whose
    size is fixed (scaled from the sample used to the default 200K when projecting to another
    size); parallel stages then divide by N, driver stages do not.
    """
    seconds = dict(report["seconds"])
    parts = {
        k: seconds[k] for k in ("umap_fit_sample", "umap_transform", "hdbscan") if k in seconds
    }
    if parts:  # the sample fit and HDBSCAN run on the driver, the transform on the workers
        seconds.pop("umap_hdbscan")
        seconds |= parts
    sample = report["settings"]["scale"]["umap_sample"]
    fit = 1.0 if to == records else min(to, DEFAULT_SAMPLE) / sample
    factor = {k: (fit if k == "umap_fit_sample" else to / records) for k in seconds}
    stages = {k: v * factor[k] for k, v in seconds.items() if k != "total"}
    parallel = sum(v for k, v in stages.items() if k in PARALLEL)
    serial = sum(v for k, v in stages.items() if k not in PARALLEL)
    return {
        "prompts": to,
        "cores_per_worker": cores_here,
        "scales": sorted(k for k in stages if k in PARALLEL),
        "driver_only": sorted(k for k in stages if k not in PARALLEL),
        "embed_prompts_per_second_per_worker": round(
            report["kept_before_near_dup"] / max(seconds["embed"], 1e-9), 1
        ),
        "minutes": {n: round((serial + parallel / n) / 60, 1) for n in workers},
    }


def scale_run(
    root: Path,
    size: int,
    umap_sample: int | None,
    ray: dict,
    local: str,
) -> dict:
    """The Ray engine from scratch; then the local engine (``local``: ``own`` embeds again,
    ``reuse`` starts from the Ray run's embeddings so that only its other stages are timed,
    ``only`` times just the local engine's stages after a Ray run kept in ``root``)."""
    ingested = ingest_pool(root / "ray", "synthetic", size)
    if local == "only":
        ray_report = json.loads((root / "ray" / "cluster_report.json").read_text(encoding="utf-8"))
        sample = ray_report["settings"]["scale"]["umap_sample"]
        return {
            "scenario": f"scale{size}",
            **ingested,
            "local": _local_run(root, "reuse", sample),
        } | {
            "nmi_between_engines": nmi_between(root / "local", root / "ray"),
            "ray_seconds": ray_report["seconds"],
        }
    ray_report = run_cluster(root / "ray", ray, umap_sample=umap_sample)
    ray_report["seconds"]["ingest"] = ingested["ingest_seconds"]
    ray_report["kept_before_near_dup"] = next(
        c["in"] for c in ray_report["filters"] if c["filter"] == "near_duplicate"
    )
    result = {
        "scenario": f"scale{size}",
        **ingested,
        "umap_sample": ray_report["settings"]["scale"]["umap_sample"],
        "ray": summary(ray_report),
        "projection": {
            f"{to}": projection(ray_report, records=size, to=to, cores_here=psutil.cpu_count() or 1)
            for to in (size, 1_000_000, 10_000_000)
        },
    }
    if local != "none":
        result["local"] = _local_run(root, local, result["umap_sample"])
        result["nmi_between_engines"] = nmi_between(root / "local", root / "ray")
    return result


def _local_run(root: Path, embeddings: str, umap_sample: int) -> dict:
    """The local engine on the Ray run's pool, with its own embedding cache or a copy of Ray's,
    and the Ray run's UMAP sample (so that both engines fit UMAP on the same sample)."""
    shutil.rmtree(root / "local", ignore_errors=True)
    (root / "local").mkdir()
    shutil.copy(root / "ray" / "ingested.parquet", root / "local")
    if embeddings != "own":
        shutil.copytree(root / "ray" / "cache", root / "local" / "cache")
    local = run_cluster(root / "local", {"engine": "local"}, umap_sample=umap_sample)
    return summary(local) | {"embeddings": embeddings}


def sharded_pool(root: Path, size: int, shards: int) -> Path:
    """``size`` synthetic prompts as LMSYS-shaped records (a user turn, an assistant reply, a
    language) in ``shards`` files, Parquet, JSONL and JSONL.gz in turn."""
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    synthetic_pool(real_prompts(root / "base"), size, root / "synthetic.jsonl")
    with (root / "synthetic.jsonl").open(encoding="utf-8") as f:
        prompts = [json.loads(line) for line in f]
    records = [
        {
            "conversation_id": p["id"],
            "conversation": [
                {"role": "user", "content": p["prompt"]},
                {"role": "assistant", "content": prompts[i - 1]["prompt"]},  # a reply-sized text
            ],
            "language": "English",
        }
        for i, p in enumerate(prompts)
    ]
    folder = root / "shards"
    folder.mkdir()
    per_shard = -(-len(records) // shards)
    for s in range(shards):
        chunk = records[s * per_shard : (s + 1) * per_shard]
        if s % 3 == 0:
            pq.write_table(pa.Table.from_pylist(chunk), folder / f"part-{s:03}.parquet")
        else:
            opener: Any = gzip.open if s % 3 == 2 else open
            name = f"part-{s:03}.jsonl" + (".gz" if s % 3 == 2 else "")
            with opener(folder / name, "wt", encoding="utf-8") as out:
                out.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in chunk)
    return folder


def driver_share(folder: Path) -> dict:
    """Seconds of the per-part work (reading, normalising: what Ray spreads over workers) and of
    the driver's work (ordering, duplicate ids, writing), measured apart in this process."""
    import pyarrow.parquet as pq

    from inspect_arenahard.curate.prompt_rows import SCHEMA, Sequencer, part_rows, source_fields
    from inspect_arenahard.curate.sources import resolve_source
    from inspect_arenahard.curate.step_options import IngestOptions

    options = IngestOptions()
    source = resolve_source(str(folder), options)
    fields = source_fields(source, options)
    assert fields is not None
    started = time.perf_counter()
    tables = [rows for part in source.parts for rows in part_rows(part, fields, options)]
    parts_seconds = time.perf_counter() - started
    sequencer = Sequencer(source.name, fields, None)
    with (
        tempfile.TemporaryDirectory() as tmp,
        pq.ParquetWriter(Path(tmp) / "x.parquet", SCHEMA) as w,
    ):
        started = time.perf_counter()
        for rows in tables:
            w.write_table(sequencer.take(rows))
        driver_seconds = time.perf_counter() - started
    return {"parts_seconds": round(parts_seconds, 2), "driver_seconds": round(driver_seconds, 2)}


def ingest_run(root: Path, size: int, shards: int, ray_cpus: int | None) -> dict:
    """``curate ingest`` of a sharded pool: local engine, then Ray engine (same rows checked)."""
    import pyarrow.parquet as pq

    from inspect_arenahard.curate.ingest import ingest
    from inspect_arenahard.curate.scale import connect
    from inspect_arenahard.curate.step_options import ScaleOptions
    from inspect_arenahard.curate.work import Work

    started = time.perf_counter()
    folder = sharded_pool(root, size, shards)
    result: dict = {
        "scenario": f"ingest{size}",
        "shards": sorted(p.name for p in folder.iterdir()),
        "pool_seconds": round(time.perf_counter() - started, 1),
        "bytes": sum(p.stat().st_size for p in folder.iterdir()),
    }
    for engine in ("local", "ray", "ray_warm"):  # ray_warm: again, its workers already started
        if engine == "ray":
            started = time.perf_counter()
            connect(ray_cpus)  # the step joins it: start-up apart from the ingest itself
            result["ray_startup_seconds"] = round(time.perf_counter() - started, 1)
        work = Work.at(root / engine, create=True)
        with MemorySampler() as memory:
            started = time.perf_counter()
            scale = ScaleOptions(engine=engine.removesuffix("_warm"))
            report = ingest([str(folder)], work, scale=scale, force=True)
            ended = time.perf_counter()
        result[engine] = {
            "records": report["records"],
            "seconds": round(ended - started, 2),
            "records_per_second": round(report["records"] / (ended - started)),
            "peak_gib": memory.peak_gib(started, ended),
        }
    import ray

    ray.shutdown()
    local = pq.read_table(root / "local" / "ingested.parquet")
    result["same_rows"] = all(
        local.equals(pq.read_table(root / engine / "ingested.parquet"))
        for engine in ("ray", "ray_warm")
    )
    result |= driver_share(folder)
    result["cpus"] = psutil.cpu_count()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--scenario", choices=["catalog", "umap", "scale", "ingest"], default="catalog"
    )
    parser.add_argument(
        "--size",
        type=int,
        default=200_000,
        help="synthetic prompts (umap: 200K, scale: 1M in the issue)",
    )
    parser.add_argument(
        "--umap-sample",
        type=int,
        help="Ray engine's UMAP sample (default: a quarter of the kept pool for catalog/umap, 200K for scale)",
    )
    parser.add_argument("--ray-actors", type=int, default=1)
    parser.add_argument("--ray-actor-cpus", type=float, default=2.0)
    parser.add_argument("--ray-batch-size", type=int, default=1024)
    parser.add_argument(
        "--local",
        choices=["own", "reuse", "none", "only"],
        default="own",
        help="scale: the local engine after the Ray one, embedding again (own) or from the Ray "
        "run's embeddings (reuse); none: skip it; only: just the local engine, after a Ray run "
        "kept with --keep",
    )
    parser.add_argument("--shards", type=int, default=8, help="ingest: files the pool is cut into")
    parser.add_argument("--ray-cpus", type=int, help="ingest: CPUs of the local Ray (default: all)")
    parser.add_argument("--out", type=Path, help="append the result (JSON line) here")
    parser.add_argument(
        "--keep",
        type=Path,
        help="work in this (new) folder and keep it: its embedding cache lets later runs time the other stages",
    )
    args = parser.parse_args()
    ray = {
        "engine": "ray",
        "ray_actors": args.ray_actors,
        "ray_actor_cpus": args.ray_actor_cpus,
        "ray_batch_size": args.ray_batch_size,
    }
    with tempfile.TemporaryDirectory(prefix=f"bench-ray-{args.scenario}-") as scratch:
        tmp = str(args.keep) if args.keep else scratch
        Path(tmp).mkdir(parents=True, exist_ok=True)
        if args.scenario == "ingest":
            result = ingest_run(Path(tmp), args.size, args.shards, args.ray_cpus)
        elif args.scenario == "scale":
            result = scale_run(Path(tmp), args.size, args.umap_sample, ray, args.local)
        else:
            size = args.size if args.scenario == "umap" else 0
            result = compare(Path(tmp), args.scenario, size, args.umap_sample, ray)
    emit(result, args.out)


if __name__ == "__main__":
    main()
