"""Is any CPU embedder fast enough for 1M prompts in 20 minutes on 2 cores (issue #29, goal 4)
and still finds the same topics? Speed against clustering quality, one row per candidate.

Each candidate embeds 2,048 real Arena catalog prompts (shortest first, as ``embed_texts`` hands
them out; warm) for its rate, then ``curate cluster`` runs on the catalog file with official
topics (``explorer_examples_20241215.json``, the NMI reference of benchmarks/README.md) with its
vectors. Candidates:

* ``minilm`` (ONNX Runtime int8 here, the default without AMX) at 128 tokens (the default), 64
  and 32: truncation is the only exact-model knob left that buys speed;
* ``static-distilled``: a table of one vector per vocabulary token, each token run through
  MiniLM alone, centred, reduced to 256 dimensions with PCA and weighted by the log of its
  frequency rank (BERT's vocabulary lists tokens by frequency from id 1,996); a prompt is the
  mean of its tokens' vectors. No transformer at run time: thousands of prompts per second;
* ``static-fitted:F``: that table refitted (ridge, in the dual) so that the mean over a prompt's
  tokens reproduces MiniLM's vector on a random fraction F of the pool, which keeps its exact
  vectors; the rest get the table's. Its rate counts the exact share (and the fit).

The rate goal 4 needs is printed first: a million prompts in (20 min − the other stages), the
other stages taken from the local engine's 100K run in benchmarks/README.md scaled to 1M.
Usage::

    PYTHONPATH=src python benchmarks/bench_embed_frontier.py
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from bench_umap_init import SOURCES

from inspect_arenahard.curate import cluster as cluster_module
from inspect_arenahard.curate.cluster import cluster
from inspect_arenahard.curate.embed import _normalised, get_embedder, minilm_onnx, minilm_path
from inspect_arenahard.curate.ingest import ingest
from inspect_arenahard.curate.step_options import ClusterOptions
from inspect_arenahard.curate.work import Work

CATALOG = SOURCES["catalog-20241215"][0]
OTHER_STAGES_1M_MINUTES = 10 * 39.4 / 60
"""The local engine's stages after embedding at 100K (39.4 s, README's 2026-11-26 table), × 10:
a floor, since the 200K default UMAP sample costs more than the 25K one measured there."""
SAMPLE = 2048
MAX_TOKENS = 126  # 128 with [CLS] and [SEP], as the default MiniLM truncation


class StaticTable:
    """A prompt's vector = the mean of its tokens' rows in ``table`` (then L2-normalised)."""

    def __init__(self, table: np.ndarray, name: str) -> None:
        self.table = table.astype(np.float32)
        self.name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        return _normalised(bags(texts) @ self.table)


@cache
def tokenizer() -> Any:
    """MiniLM's tokenizer, loaded once (the static candidates call it per batch)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(minilm_path()))


def bags(texts: list[str]) -> sp.csr_matrix:
    """(len(texts), vocabulary) token frequencies, each row summing to 1."""
    ids = tokenizer()(texts, add_special_tokens=False, truncation=True, max_length=MAX_TOKENS)
    lengths = np.array([len(row) for row in ids["input_ids"]])
    flat = np.fromiter((t for row in ids["input_ids"] for t in row), np.int64, lengths.sum())
    rows = np.repeat(np.arange(len(texts)), lengths)
    weights = 1.0 / np.maximum(lengths, 1)[rows]
    return sp.csr_matrix((weights, (rows, flat)), shape=(len(texts), tokenizer().vocab_size))


def token_vectors() -> np.ndarray:
    """(vocabulary, 384): MiniLM's pooled vector of ``[CLS] token [SEP]`` for every token."""
    import onnxruntime  # type: ignore[import-untyped]

    words = tokenizer()
    session = onnxruntime.InferenceSession(str(minilm_onnx("fp32")))
    vocabulary = np.arange(words.vocab_size)
    ids = np.stack(
        [np.full_like(vocabulary, words.cls_token_id), vocabulary,
         np.full_like(vocabulary, words.sep_token_id)], axis=1,
    )  # fmt: skip
    return np.concatenate(
        [
            session.run(None, {"input_ids": b, "attention_mask": np.ones_like(b)})[0]
            for b in np.array_split(ids, 16)
        ]
    )


def distilled_table(vectors: np.ndarray) -> np.ndarray:
    """Token vectors centred, PCA to 256 dimensions, times log(1 + frequency rank)."""
    from sklearn.decomposition import PCA

    reduced = PCA(256, random_state=0).fit_transform(vectors - vectors.mean(axis=0))
    ids = np.arange(len(vectors))
    rank = np.where(ids >= 1996, ids - 1995, len(ids))  # special and unused ids: as the rarest
    return reduced * np.log1p(rank)[:, None]


class FittedStatic:
    """MiniLM on a random ``fraction`` of the texts; the token table, refitted to reproduce
    those vectors (ridge towards the token vectors, solved in the dual), for the rest."""

    def __init__(self, fraction: float, seed: np.ndarray, exact: Any) -> None:
        self.fraction, self.seed, self.exact = fraction, seed, exact
        self.name = f"static-fitted:{fraction}"

    def embed(self, texts: list[str]) -> np.ndarray:
        picked = np.random.default_rng(0).choice(
            len(texts), max(1, int(self.fraction * len(texts))), replace=False
        )
        target = self.exact.embed([texts[i] for i in picked])
        every = bags(texts)
        sample = every[picked]
        gram = (sample @ sample.T).toarray() + 0.01 * np.eye(len(picked))
        table = self.seed + sample.T @ np.linalg.solve(gram, target - sample @ self.seed)
        out = _normalised(every @ table)
        out[picked] = target
        return out


def catalog_prompts(work: Work) -> list[str]:
    """The catalog's first user turns, as ingested."""
    turns = pd.read_parquet(work.ingested, columns=["turns"])["turns"]
    return turns.map(lambda t: t[0]).tolist()


def measure(name: str, embedder: Any, work: Work, texts: list[str], max_tokens: int) -> dict:
    """Rate on ``texts`` (warm), then ``curate cluster`` of the catalog with these vectors."""
    embedder.embed(texts[:64])
    started = time.perf_counter()
    embedder.embed(texts)
    rate = len(texts) / (time.perf_counter() - started)
    original = cluster_module.get_embedder
    cluster_module.get_embedder = lambda *a, **k: embedder  # type: ignore[assignment]
    try:
        options = ClusterOptions(embed_max_tokens=max_tokens, min_cluster_size=10)
        report = cluster(work, options=options, force=True)
    finally:
        cluster_module.get_embedder = original  # type: ignore[assignment]
    return {
        "candidate": name, "prompts_per_second": round(rate, 1),
        "minutes_for_1m": round(1e6 / rate / 60, 1), "kept": report["kept"],
        "clusters": report["clusters"], "nmi_official": report["label_agreement"]["nmi"],
    }  # fmt: skip


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    budget = 20 - OTHER_STAGES_1M_MINUTES
    print(json.dumps({
        "goal": "1M prompts end to end < 20 min on 2 cores",
        "other_stages_1m_minutes_floor": round(OTHER_STAGES_1M_MINUTES, 1),
        "embedding_rate_needed": round(1e6 / (budget * 60)),
    }), flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-embed-frontier-") as tmp:
        os.environ.setdefault("ARENAHARD_ONNX_DIR", str(Path(tmp) / "onnx"))
        work = Work.at(Path(tmp) / "work", create=True)
        ingest([str(CATALOG)], work)
        prompts = catalog_prompts(work)
        texts = sorted(random.Random(0).sample(prompts, min(SAMPLE, len(prompts))), key=len)
        default = get_embedder("minilm", max_seq_length=128)
        for tokens in (128, 64, 32):
            embedder = default if tokens == 128 else get_embedder("minilm", max_seq_length=tokens)
            print(
                json.dumps(measure(f"minilm@{tokens}", embedder, work, texts, tokens)), flush=True
            )
        vectors = token_vectors()
        distilled = StaticTable(distilled_table(vectors), "static-distilled")
        print(json.dumps(measure(distilled.name, distilled, work, texts, 128)), flush=True)
        for fraction in (0.2, 0.5):
            fitted = FittedStatic(fraction, vectors, default)
            print(json.dumps(measure(fitted.name, fitted, work, texts, 128)), flush=True)


if __name__ == "__main__":
    main()
