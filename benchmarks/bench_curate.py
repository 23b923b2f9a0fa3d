"""Time and peak memory of curation (ingest + filters/dedup + embed + cluster) at two scales.

* ``real20k``: every shared prompt pool (~20K real prompts: Arena catalog files, LMSYS,
  WildChat-ru, OpenAssistant, AlpacaEval, MT-Bench, Arena-Hard v0.1/v2.0).
* ``synthetic200k``: 200K prompts sampled from those and perturbed (word dropout, word
  substitutions, an added instruction) so that each is a distinct text.

Measured on the 2-core dev machine (Xeon with AMX, so MiniLM's weights are cast to bfloat16),
128 embedding tokens, 2026-11-21, machine otherwise idle:

* real20k: 20,137 records → 13,706 kept, 387 clusters + 3,085 outliers; 74 s (embedding 47 s,
  neighbours 11 s, UMAP+HDBSCAN 13 s); peak RSS 3.0 GiB.
* synthetic200k: 200,000 → 175,751 kept, 5,629 clusters + 30,871 outliers; 870 s = 14.5 min
  (embedding 475 s ≈ 375 prompts/s, UMAP+HDBSCAN 311 s, neighbours 55 s, filters 21 s,
  topics 4 s); peak RSS 3.8 GiB. Before the weights were cast once (bfloat16 autocast per
  call, other jobs running) the same run took 1,670 s with embedding at ~140–190 prompts/s.
* embedding (4,096 real prompts, 128 tokens): float32 90 prompts/s, bfloat16 weights 323
  prompts/s (3.6×), cosine between the two ≥ 0.9998 (mean 0.99995).
* embedding again on 2026-11-25 with the compiled model: float32 102 prompts/s, bfloat16 360
  (3.5×), bfloat16 compiled 432 (4.2×) after 14.7 s of compilation; cosine to float32 ≥ 0.9998
  for both (mean 0.99995).

Each scenario runs in a fresh child process with a fresh work folder (no embedding cache), so
peak RSS and wall time are its own. Offline MiniLM embeddings; target on the 2-core dev
machine: 200K in < 20 min and < 8 GiB. Usage::

    python benchmarks/bench_curate.py --scenario real20k [--out results.json]
    python benchmarks/bench_curate.py --scenario synthetic200k [--embed-max-tokens 0]   # 0: MiniLM's 256
    python benchmarks/bench_curate.py --scenario embedding   # float32, bfloat16, bfloat16 compiled, ONNX int8/fp32 MiniLM, 4096 real prompts
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
POOLS = DATA / "prompt_pools"
SOURCES = {
    "catalog_20250206": POOLS / "lmarena_arena_catalog" / "explorer_examples_20250206.json",
    "catalog_20241215": POOLS / "lmarena_arena_catalog" / "explorer_examples_20241215.json",
    "catalog_data3": POOLS / "lmarena_arena_catalog" / "explorer_data3_examples.json",
    "webdev": POOLS / "lmarena_arena_catalog" / "webdev_web-80k-examples.json",
    "lmsys": POOLS / "lmsys_chat_1m_sample" / "lmsys_1000.jsonl",
    "wildchat_ru": POOLS / "wildchat_hard_ru" / "wildchat_hard_ru.json",
    "oa_en100": POOLS / "openassistant" / "en_100_text.jsonl",
    "oa_lottery": POOLS / "openassistant" / "prompt_lottery_en_250_text.jsonl",
    "oa_multilingual": POOLS / "openassistant" / "multilingual-60.jsonl",
    "alpaca_eval": POOLS / "alpaca_eval" / "gpt4_1106_preview_model_outputs.json",
    "mt_bench": POOLS / "mt_bench" / "question.jsonl",
    "arena_hard_v01": DATA / "arena-hard-v0.1" / "question.jsonl",
    "arena_hard_v20": DATA / "arena-hard-v2.0" / "question.jsonl",
}
PREFIXES = [
    "",
    "Please help:",
    "Quick question.",
    "I need this for work.",
    "Hi!",
    "Be concise.",
    "Explain clearly:",
    "For a beginner:",
]
SUFFIXES = [
    "",
    "Thanks!",
    "Step by step please.",
    "Keep it short.",
    "Give an example.",
    "Use bullet points.",
    "Why?",
    "In detail.",
]


def synthetic_pool(base: list[str], n: int, path: Path, seed: int = 0) -> None:
    """``n`` distinct perturbed prompts drawn (with replacement) from ``base``, as JSONL."""
    rng = random.Random(seed)
    vocab = [w for p in rng.sample(base, min(len(base), 5000)) for w in p.split()[:50]]
    seen: set[str] = set()
    with path.open("w", encoding="utf-8") as f:
        while len(seen) < n:
            words = rng.choice(base)[:2000].split() or ["empty"]
            kept = [w for w in words if rng.random() > 0.15] or words
            for _ in range(max(1, len(kept) // 10)):
                kept[rng.randrange(len(kept))] = rng.choice(vocab)
            text = " ".join(
                filter(None, [rng.choice(PREFIXES), " ".join(kept), rng.choice(SUFFIXES)])
            )
            if text not in seen:
                seen.add(text)
                f.write(
                    json.dumps({"id": f"s{len(seen)}", "prompt": text}, ensure_ascii=False) + "\n"
                )


def real_prompts(work_dir: Path) -> list[str]:
    """First user turns of every shared pool, ingested into ``work_dir``."""
    import pandas as pd

    from inspect_arenahard.curate.ingest import ingest
    from inspect_arenahard.curate.work import Work

    work = Work.at(work_dir, create=True)
    ingest([f"{name}={path}" for name, path in SOURCES.items()], work)
    return pd.read_parquet(work.ingested, columns=["turns"])["turns"].map(lambda t: t[0]).tolist()


def embedding_speed(work_dir: Path, embed_max_tokens: int | None, n: int = 4096) -> dict:
    """MiniLM throughput on ``n`` real prompts: float32 (the slow reference) against bfloat16
    weights (the default on AMX CPUs), bfloat16 compiled (``--embed-compile``, the default
    from 20K prompts) and ONNX Runtime (``--embedder minilm-onnx``: int8, and float32), with the
    cosine of each against float32 and the warm-up time (compilation; for ONNX, export and
    quantization when its cache is empty, which this fresh folder's is)."""
    import os

    import numpy as np

    from inspect_arenahard.curate.embed import MiniLMEmbedder, MiniLMOnnxEmbedder, has_amx

    os.environ.setdefault("ARENAHARD_ONNX_DIR", str(work_dir / "onnx"))
    prompts = real_prompts(work_dir)
    prompts = random.Random(0).sample(prompts, min(n, len(prompts)))
    prompts.sort(key=len)  # as embed_texts hands them out
    tokens = 128 if embed_max_tokens is None else embed_max_tokens or None
    result: dict = {"scenario": "embedding", "prompts": len(prompts), "embed_max_tokens": tokens}
    vectors = {}
    # without AMX, bfloat16 is emulated (slow) and not what ``precision="auto"`` picks: skipped
    bf16 = ("bf16", "bf16_compiled") if has_amx() else ()
    result["amx"] = bool(bf16)
    variants = ("fp32", *bf16, "onnx_int8", "onnx_fp32")
    for variant in variants:
        started = time.perf_counter()
        embedder: MiniLMEmbedder | MiniLMOnnxEmbedder
        if variant.startswith("onnx"):
            embedder = MiniLMOnnxEmbedder(max_seq_length=tokens, precision=variant[5:])
        else:
            embedder = MiniLMEmbedder(max_seq_length=tokens, precision=variant.split("_")[0])
            if variant.endswith("compiled"):
                embedder.compile()
        embedder.embed(prompts[:128])  # warm-up (compiles)
        result[f"{variant}_warm_up_seconds"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        vectors[variant] = embedder.embed(prompts)
        result[f"{variant}_prompts_per_second"] = round(
            len(prompts) / (time.perf_counter() - started), 1
        )
    for variant in variants[1:]:
        cosines = (vectors["fp32"] * vectors[variant]).sum(axis=1)
        result[f"{variant}_speedup"] = round(
            result[f"{variant}_prompts_per_second"] / result["fp32_prompts_per_second"], 2
        )
        result[f"{variant}_cosine_min"] = round(float(cosines.min()), 5)
        result[f"{variant}_cosine_mean"] = round(float(np.mean(cosines)), 5)
    return result


def child(scenario: str, work_dir: Path, embed_max_tokens: int | None, size: int) -> dict:
    if scenario == "embedding":
        return embedding_speed(work_dir, embed_max_tokens)
    from inspect_arenahard.curate.cluster import cluster
    from inspect_arenahard.curate.ingest import ingest
    from inspect_arenahard.curate.step_options import ClusterOptions
    from inspect_arenahard.curate.work import Work

    start = time.perf_counter()
    work = Work.at(work_dir, create=True)
    if scenario == "real20k":
        sources = [f"{name}={path}" for name, path in SOURCES.items()]
    else:
        base = real_prompts(work_dir / "base")
        synthetic_pool(base, size, work_dir / "synthetic.jsonl")
        sources = [str(work_dir / "synthetic.jsonl")]
    prepared = time.perf_counter() - start
    ingested = ingest(sources, work)
    options = (
        ClusterOptions()
        if embed_max_tokens is None
        else ClusterOptions(embed_max_tokens=embed_max_tokens)
    )
    clustered = cluster(work, options=options)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "scenario": scenario if scenario == "real20k" else f"synthetic{size}",
        "embed_max_tokens": options.embed_max_tokens,
        "records": ingested["records"],
        "kept": clustered["kept"],
        "filters": {c["filter"]: c["removed"] for c in clustered["filters"]},
        "clusters": clustered["clusters"],
        "outliers": clustered["outliers"],
        "label_agreement": clustered["label_agreement"],
        "seconds": {
            "prepare_pool": round(prepared, 1),
            "ingest": ingested["seconds"],
            **{k: round(v, 1) for k, v in clustered["seconds"].items()},
            "ingest_to_clusters": round(ingested["seconds"] + clustered["seconds"]["total"], 1),
        },
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_gib": round(usage.ru_maxrss / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--scenario", choices=["real20k", "synthetic200k", "embedding", "all"], default="real20k"
    )
    parser.add_argument("--embed-max-tokens", type=int, default=None)
    parser.add_argument("--size", type=int, default=200_000, help="prompts in the synthetic pool")
    parser.add_argument("--out", type=Path, help="append results (JSON lines) here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.work, args.embed_max_tokens, args.size)))
        return
    for scenario in (
        ["embedding", "real20k", "synthetic200k"] if args.scenario == "all" else [args.scenario]
    ):
        with tempfile.TemporaryDirectory(prefix=f"bench-{scenario}-") as tmp:
            cmd = [
                sys.executable,
                __file__,
                "--child",
                scenario,
                "--work",
                str(Path(tmp) / "work"),
                "--size",
                str(args.size),
            ]
            if args.embed_max_tokens is not None:
                cmd += ["--embed-max-tokens", str(args.embed_max_tokens)]
            started = time.perf_counter()
            out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
            result = json.loads(out.strip().splitlines()[-1]) | {
                "wall_seconds": round(time.perf_counter() - started, 1)
            }
        emit(result, args.out)


def emit(result: dict, out: Path | None) -> None:
    """Print a result, and append it as a JSON line to ``out`` when given."""
    print(json.dumps(result, indent=2))
    if out:
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
